"""combine, eval, compare, cast, dropout, switch, activation, copy, constant, length: forward vs numpy with
variable sequence lengths, batch- and time-major inputs, plus one gradient step."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, forward_and_grad_step, make_feed

RND = np.random.RandomState(42)
X = RND.randn(3, 5, 4).astype("float32")  # [B, T, F]
LENS = [5, 2, 4]
MASK = np.arange(5)[None, :] < np.array(LENS)[:, None]


def _run(session, net_dict, extern=None, x=X, time_major=False, layer="output", extra=()):
    extern = extern or {"data": {"dim": 4, **({"batch_dim_axis": 1} if time_major else {})}}
    net = build_net(net_dict, extern)
    feed_x = x.transpose(1, 0, 2) if time_major else x
    out = forward_and_grad_step(session, net, make_feed(net, {"data": feed_x}, {"data": LENS}), layer=layer,
                                extra=extra)
    out_t = net.get_layer(layer).output
    return net, out, out_t


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("kind, fn", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                      ("maximum", np.maximum), ("average", lambda a, b: (a + b) / 2)])
def test_combine_kinds(session, kind, fn, time_major):
    net, (out, (a,)), tmpl = _run(session, {"a": {"class": "linear", "n_out": 4, "from": "data"},
                                            "output": {"class": "combine", "kind": kind, "from": ["a", "data"]}},
                                  time_major=time_major, extra=["a"])
    xx = X.transpose(1, 0, 2) if time_major else X
    np.testing.assert_allclose(out, fn(a, xx), rtol=1e-5, atol=1e-6)
    assert tmpl.batch_dim_axis == (1 if time_major else 0)


def test_combine_broadcast_reduced(session):
    net, out, tmpl = _run(session, {"m": {"class": "reduce", "mode": "max", "axes": "T", "from": "data"},
                                    "output": {"class": "combine", "kind": "sub", "from": ["data", "m"]}})
    xm = np.where(MASK[:, :, None], X, -np.inf).max(axis=1)
    np.testing.assert_allclose(out, X - xm[:, None, :], rtol=1e-5)
    assert tmpl.batch_shape == (None, None, 4)


def test_combine_eval_and_unknown_kind(session):
    _, out, _ = _run(session, {"output": {"class": "combine", "kind": "eval", "eval": "source(0) * 2 + 1",
                                          "from": "data"}})
    np.testing.assert_allclose(out, X * 2 + 1, rtol=1e-6)


def test_combine_unknown_kind(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "combine", "kind": "ad", "from": "data"}}, {"data": {"dim": 4}})
    assert info.value.arg == "kind" and "add" in info.value.suggestions


def test_eval_layer(session):
    _, out, _ = _run(session, {"output": {"class": "eval", "eval": "tf.nn.relu(source(0)) - source(1)",
                                          "from": ["data", "data"]}})
    np.testing.assert_allclose(out, np.maximum(X, 0) - X, rtol=1e-6)


def test_eval_bad_expression(session):
    with pytest.raises(LayerArgError, match="eval"):
        build_net({"output": {"class": "eval", "eval": "source(0) +* 2", "from": "data"}}, {"data": {"dim": 4}})


def test_compare_with_value(session):
    net, out, tmpl = _run(session, {"output": {"class": "compare", "kind": "greater", "value": 0.0, "from": "data"}})
    assert tmpl.dtype == "bool"
    np.testing.assert_array_equal(out, X > 0)


def test_cast_and_dropout_layer(session):
    _, out, tmpl = _run(session, {"output": {"class": "cast", "dtype": "int32", "from": "data"}})
    assert tmpl.dtype == "int32" and out.dtype == np.int32
    net = build_net({"output": {"class": "dropout", "dropout": 0.5, "from": "data"}}, {"data": {"dim": 4}},
                    train_flag=False)
    out = session.run(net.layers["output"].output.placeholder, make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_array_equal(out, X)


def test_switch(session):
    net, out, _ = _run(session, {"c": {"class": "compare", "kind": "greater", "value": 0.0, "from": "data"},
                                 "output": {"class": "switch", "condition": "c", "true_from": "data",
                                            "false_from": 0.0}})
    np.testing.assert_allclose(out, np.where(X > 0, X, 0))
    _, out2, _ = _run(session, {"output": {"class": "switch", "condition": False, "true_from": "data",
                                           "false_from": 3.0}})
    np.testing.assert_allclose(out2, np.full_like(X, 3.0))


def test_switch_condition_function(session):
    """A function as condition is called with the layer dict's entries, ``network`` and ``get_layer`` (as the
    reference, observed) and picks the branch; only that branch is a dependency."""
    seen = {}

    def condition(**kwargs):
        seen.update(kwargs)
        return False

    net, out, _ = _run(session, {"a": {"class": "eval", "from": "data", "eval": "source(0) * 2."},
                                 "output": {"class": "switch", "condition": condition, "true_from": "a",
                                            "false_from": "data"}})
    np.testing.assert_allclose(out, X)
    assert {"true_from", "false_from", "network", "get_layer"} <= set(seen) and seen["true_from"] == "a"
    assert [layer.name for layer in net.layers["output"].get_dep_layers()] == ["data"]


def test_activation_safe_log_with_opts(session):
    """``safe_log`` and the activation's ``opts`` (published chunked-AED configs: ``{"eps": 1e-10}``); values observed
    from the reference on [0, 1e-12, 2]."""
    x = np.array([[[0.0, 1e-12, 2.0]]], "float32")
    extern = {"data": {"dim": 3}}
    net = build_net({"output": {"class": "activation", "activation": "safe_log", "opts": {"eps": 1e-10}, "from": "data"},
                     "b": {"class": "activation", "activation": "safe_log", "from": "data", "is_output_layer": True}},
                    extern)
    feed = make_feed(net, {"data": x}, {"data": [1]})
    out, default = session.run([net.layers["output"].output.placeholder, net.layers["b"].output.placeholder], feed)
    np.testing.assert_allclose(out, [[[-23.02585, -23.02585, 0.6931472]]], rtol=1e-6)
    np.testing.assert_allclose(default, [[[-46.0517, -27.631021, 0.6931472]]], rtol=1e-6)
    with pytest.raises(LayerArgError, match="opts"):
        build_net({"output": {"class": "activation", "activation": "safe_log", "opts": {"epsilon": 1.0},
                              "from": "data"}}, extern)


def test_switch_in_rec_unit_on_first_frame(session):
    """As in published internal-LM configs: the condition is a layer of the unit (``:i == 0``), the other branches a
    ``base:`` layer and a same-step layer; frame 0 takes ``true_from``, the others ``false_from``."""
    unit = {"first": {"class": "compare", "from": ":i", "kind": "equal", "value": 0},
            "zero": {"class": "eval", "from": "data:source", "eval": "source(0) * 0."},
            "output": {"class": "switch", "condition": "first", "true_from": "zero", "false_from": "base:mean"}}
    net, out, _ = _run(session, {"mean": {"class": "reduce", "mode": "mean", "axes": "T", "from": "data"},
                                 "rec": {"class": "rec", "from": "data", "unit": unit},
                                 "output": {"class": "copy", "from": "rec"}})
    mean = np.where(MASK[:, :, None], X, 0).sum(1) / np.array(LENS)[:, None]
    expected = np.where((np.arange(5) == 0)[None, :, None], 0.0, mean[:, None, :])
    out = out.transpose(1, 0, 2) if out.shape[0] == 5 else out
    np.testing.assert_allclose(np.where(MASK[:, :, None], out, 0), np.where(MASK[:, :, None], expected, 0), rtol=1e-5)


@pytest.mark.parametrize("act, fn", [("relu", lambda x: np.maximum(x, 0)), ("tanh", np.tanh),
                                     ("2*sigmoid", lambda x: 2 / (1 + np.exp(-x))),
                                     ("relu+tanh", lambda x: np.maximum(x, 0) + np.tanh(x)),  # a sum (observed)
                                     ("log_softmax", lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
                                     ("elu", lambda x: np.where(x > 0, x, np.exp(x) - 1)),
                                     ("swish", lambda x: x / (1 + np.exp(-x))), ("identity", lambda x: x)])
def test_activation(session, act, fn):
    _, out, _ = _run(session, {"output": {"class": "activation", "activation": act, "from": "data"}})
    np.testing.assert_allclose(out, fn(X), rtol=1e-5, atol=1e-6)


def test_linear_against_numpy_batch_and_time_major(session):
    for tm in (False, True):
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            net = build_net({"output": {"class": "linear", "n_out": 3, "activation": "tanh", "from": "data"}},
                            {"data": {"dim": 4, **({"batch_dim_axis": 1} if tm else {})}})
            feed = make_feed(net, {"data": X.transpose(1, 0, 2) if tm else X}, {"data": LENS})
            out = forward_and_grad_step(sess, net, feed)
            sess.run(tf.compat.v1.global_variables_initializer())
            out = sess.run(net.layers["output"].output.placeholder, feed)
            w, b = sess.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
            expected = np.tanh(X @ w + b)
            np.testing.assert_allclose(out.transpose(1, 0, 2) if tm else out, expected, rtol=1e-5, atol=1e-6)


def test_linear_sparse_input_is_embedding(session):
    net = build_net({"output": {"class": "linear", "n_out": 3, "activation": None, "from": "data:classes"}},
                    {"data": {"dim": 4}, "classes": {"dim": 6, "sparse": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    y = np.array([[1, 5, 0], [2, 2, 2]], "int32")
    out = session.run(net.layers["output"].output.placeholder,
                      make_feed(net, {"classes": y}, {"classes": [3, 1]}))
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    np.testing.assert_allclose(out, w[y] + b, rtol=1e-6)


def test_constant_and_length(session):
    net, out, tmpl = _run(session, {"c": {"class": "constant", "value": 2.5},
                                    "output": {"class": "combine", "kind": "mul", "from": ["data", "c"]}})
    np.testing.assert_allclose(out, X * 2.5, rtol=1e-6)
    assert net.layers["c"].output.batch_shape == ()
    net2 = build_net({"output": {"class": "length", "from": "data"}}, {"data": {"dim": 4}})
    lens = session.run(net2.layers["output"].output.placeholder, make_feed(net2, {"data": X}, {"data": LENS}))
    np.testing.assert_array_equal(lens, LENS)
    assert net2.layers["output"].output.batch_shape == (None,)


def test_constant_array(session):
    net = build_net({"output": {"class": "constant", "value": [1, 2, 3]}}, {"data": {"dim": 4}})
    assert net.layers["output"].output.batch_shape == (3,) and net.layers["output"].output.dtype == "int32"
    np.testing.assert_array_equal(session.run(net.layers["output"].output.placeholder), [1, 2, 3])


def test_copy_concat_time_major_and_batch_major(session):
    from returnn.tensor import DimensionTag
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="shared_time", dimension=None)
    net = build_net({"output": {"class": "copy", "from": ["data:a", "data:b"]}},
                    {"a": {"dim": 2, "same_time_dim_as": {"T": tag}},
                     "b": {"dim": 3, "batch_dim_axis": 1, "same_time_dim_as": {"T": tag}}})
    a = RND.randn(3, 5, 2).astype("float32")
    b = RND.randn(5, 3, 3).astype("float32")  # time-major
    feed = {net.extern_data.data["a"].placeholder: a, net.extern_data.data["b"].placeholder: b,
            net.extern_data.data["a"].size_placeholder[0]: LENS}
    out = session.run(net.layers["output"].output.placeholder, feed)
    np.testing.assert_allclose(out, np.concatenate([a, b.transpose(1, 0, 2)], axis=-1))


def test_copy_concat_different_time_dims_broadcast_or_error(session):
    # reference (observed): behavior_version 0 gives a deprecation warning and [B,T_a,T_b,F(2+3)]; from version 4
    # on it is an error ("require broadcasting ... e.g. by specifying out_shape")
    from returnn.util.behavior_version import BehaviorVersion
    net = build_net({"output": {"class": "copy", "from": ["data:a", "data:b"]}}, {"a": {"dim": 2}, "b": {"dim": 3}})
    out = net.layers["output"].output
    assert [d.dimension for d in out.dims] == [None, None, None, 5]
    assert out.dims[1:3] == (net.extern_data.data["a"].dims[1], net.extern_data.data["b"].dims[1])
    state = BehaviorVersion._get_state()  # noqa: SLF001 (test)
    BehaviorVersion.set_min_behavior_version(4)
    try:
        with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="require broadcasting"):
            build_net({"output": {"class": "copy", "from": ["data:a", "data:b"]}}, {"a": {"dim": 2}, "b": {"dim": 3}})
    finally:
        BehaviorVersion._reset(state)  # noqa: SLF001


def test_softmax_over_feature_axis_when_not_last(session):
    net = build_net({"t": {"class": "transpose", "perm": {"T": "F", "F": "T"}, "from": "data"},
                     "a": {"class": "activation", "activation": "softmax", "from": "t"},
                     "output": {"class": "linear", "n_out": 3, "activation": "softmax", "from": "t"}},
                    {"data": {"dim": 4}})
    assert net.layers["output"].output.feature_dim_axis == 1
    out, (a,) = forward_and_grad_step(session, net, make_feed(net, {"data": X}, {"data": LENS}), extra=["a"])
    assert out.shape == (3, 3, 5)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(a, np.exp(X).transpose(0, 2, 1) / np.exp(X).sum(-1)[:, None, :], rtol=1e-5)
