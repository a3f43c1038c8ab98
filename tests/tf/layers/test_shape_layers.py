"""Shape layers: templates (observed from the reference where noted), forward vs numpy with variable lengths,
batch- and time-major input, one gradient step."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, forward_and_grad_step, make_feed

RND = np.random.RandomState(5)
X = RND.randn(3, 5, 4).astype("float32")
LENS = np.array([5, 2, 4])
MASK = np.arange(5)[None, :] < LENS[:, None]


def _run(session, net_dict, time_major=False, extra=(), dim=4, x=X):
    net = build_net(net_dict, {"data": {"dim": dim, **({"batch_dim_axis": 1} if time_major else {})}})
    feed = make_feed(net, {"data": x.transpose(1, 0, 2) if time_major else x}, {"data": LENS})
    out = forward_and_grad_step(session, net, feed, extra=extra)
    return net, out, feed


def _lens(session, net, feed, layer="output"):
    return session.run(net.layers[layer].output.get_sequence_lengths(), feed)


@pytest.mark.parametrize("time_major", [False, True])
def test_slice_time(session, time_major):
    net, out, feed = _run(session, {"output": {"class": "slice", "axis": "T", "slice_start": 1, "from": "data"}},
                          time_major=time_major)
    out = out.transpose(1, 0, 2) if time_major else out
    np.testing.assert_allclose(out, X[:, 1:])
    np.testing.assert_array_equal(_lens(session, net, feed), LENS - 1)
    assert net.layers["output"].output.time_dim.description == "-1+time:var:extern_data:data"


def test_slice_feature(session):
    net, out, _ = _run(session, {"output": {"class": "slice", "axis": "F", "slice_start": 1, "slice_end": 3,
                                            "from": "data"}})
    np.testing.assert_allclose(out, X[:, :, 1:3])
    assert repr(net.layers["output"].output.feature_dim) == "Dim{F'output:slice-end'(2)}"


def test_split_and_merge_dims(session):
    net, (out, (a,)), _ = _run(session, {"a": {"class": "split_dims", "axis": "F", "dims": (2, -1), "from": "data"},
                                         "output": {"class": "merge_dims", "axes": "static", "from": "a"}},
                               extra=["a"])
    np.testing.assert_allclose(a, X.reshape(3, 5, 2, 2))
    np.testing.assert_allclose(out, X)
    assert net.layers["a"].output.batch_shape == (None, None, 2, 2)
    assert net.layers["a"].output.feature_dim_axis == 3
    assert net.layers["output"].output.get_dims_repr() == (
        "[B,T|'time:var:extern_data:data'[B],F|F'a_split_dims0*a_split_dims1'(4)]")


def test_split_dims_time(session):
    net, out, feed = _run(session, {"output": {"class": "split_dims", "axis": "T", "dims": (-1, 2), "from": "data"}})
    padded = np.concatenate([X, np.zeros((3, 1, 4), "float32")], axis=1)
    np.testing.assert_allclose(out, padded.reshape(3, 3, 2, 4))
    np.testing.assert_array_equal(_lens(session, net, feed), (LENS + 1) // 2)


def test_merge_time_and_feature(session):
    net, out, feed = _run(session, {"output": {"class": "merge_dims", "axes": ["T", "F"], "from": "data"}})
    np.testing.assert_allclose(out, X.reshape(3, 20))
    assert net.layers["output"].output.feature_dim_axis == 1
    np.testing.assert_array_equal(session.run(net.layers["output"].output.dims[1].dyn_size, feed), LENS * 4)


def test_combine_dims_legacy_name(session):
    _, out, _ = _run(session, {"a": {"class": "split_dims", "axis": "F", "dims": (2, 2), "from": "data"},
                               "output": {"class": "combine_dims", "axes": "static", "from": "a"}})
    np.testing.assert_allclose(out, X)


@pytest.mark.parametrize("axis, shape, feat", [("F", (None, None, 4, 1), 3), ("T", (None, None, 1, 4), 3),
                                               ("spatial", (None, None, 1, 4), 3)])
def test_expand_dims_like_reference(session, axis, shape, feat):
    net, out, _ = _run(session, {"output": {"class": "expand_dims", "axis": axis, "from": "data"}})
    assert net.layers["output"].output.batch_shape == shape
    assert net.layers["output"].output.feature_dim_axis == feat
    np.testing.assert_allclose(out.reshape(X.shape), X)


def test_squeeze_auto(session):
    net, out, _ = _run(session, {"a": {"class": "expand_dims", "axis": "F", "from": "data"},
                                 "output": {"class": "squeeze", "axis": "auto", "from": "a"}})
    assert net.layers["output"].output.batch_shape == (None, None, 4)
    assert net.layers["output"].output.feature_dim_axis == 2
    np.testing.assert_allclose(out, X)


def test_squeeze_no_size1_axis_errors(session):
    with pytest.raises(LayerArgError, match="allow_no_op"):
        build_net({"output": {"class": "squeeze", "axis": "auto", "from": "data"}}, {"data": {"dim": 4}})


def test_squeeze_dynamic_time_axis_of_one_frame(session):
    """As published TTS/SAT configs (a speaker label stored as a one-frame sequence): ``{B,T} -> {B}`` sparse, as the
    reference's template (observed: ``[B] int32 sparse_dim=spk``); the static-size check is left to the graph."""
    net = build_net({"output": {"class": "squeeze", "axis": "T", "from": "data:spk"}},
                    {"data": {"dim": 3}, "spk": {"dim": 7, "shape": (None,), "sparse": True}})
    out_t = net.layers["output"].output
    assert out_t.batch_shape == (None,) and out_t.sparse and out_t.dim == 7
    spk = net.extern_data.data["spk"]
    feed = {spk.placeholder: [[3], [5]], spk.get_sequence_lengths(): [1, 1]}
    np.testing.assert_array_equal(session.run(out_t.placeholder, feed), [3, 5])
    with pytest.raises(LayerArgError, match="size != 1"):
        build_net({"output": {"class": "squeeze", "axis": "F", "from": "data"}}, {"data": {"dim": 4}})


def test_transpose(session):
    net, out, _ = _run(session, {"output": {"class": "transpose", "perm": {"T": "F", "F": "T"}, "from": "data"}})
    np.testing.assert_allclose(out, X.transpose(0, 2, 1))
    tmpl = net.layers["output"].output
    assert (tmpl.time_dim_axis, tmpl.feature_dim_axis) == (2, 1)


@pytest.mark.parametrize("time_major", [False, True])
def test_postfix_in_time(session, time_major):
    net, out, feed = _run(session, {"output": {"class": "postfix_in_time", "postfix": 7.0, "from": "data"}},
                          time_major=time_major)
    out = out.transpose(1, 0, 2) if time_major else out
    np.testing.assert_array_equal(_lens(session, net, feed), LENS + 1)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(out[b, :n], X[b, :n])
        np.testing.assert_allclose(out[b, n:], 7.0)  # the padding after the postfix too, as the reference


def test_postfix_in_time_fills_padding_as_reference(session):
    """Observed from the reference: sparse [[1, 1, 1], [1, 0, 0]] with lengths 3, 1, postfix 2, repeat 2."""
    from returnn.config import Config
    from returnn.tf.network import TFNetwork

    net = TFNetwork(config=Config({"extern_data": {"data": {"sparse": True, "dim": 2}}}), train_flag=False)
    net.construct_from_dict({"a": {"class": "reinterpret_data", "from": "data", "increase_sparse_dim": 1},
                             "output": {"class": "postfix_in_time", "postfix": 2, "repeat": 2, "from": "a"}})
    data = net.extern_data.get_default_input_data()
    out = net.get_default_output_layer().output.copy_as_batch_major()
    value = session.run(out.placeholder, {data.placeholder: [[1, 1, 1], [1, 0, 0]],
                                          data.get_sequence_lengths(): [3, 1]})
    np.testing.assert_array_equal(value, [[1, 1, 1, 2, 2], [1, 2, 2, 2, 2]])


@pytest.mark.parametrize("time_major", [False, True])
def test_prefix_in_time(session, time_major):
    net, out, feed = _run(session, {"output": {"class": "prefix_in_time", "prefix": -1.0, "repeat": 2,
                                               "from": "data"}}, time_major=time_major)
    out = out.transpose(1, 0, 2) if time_major else out
    np.testing.assert_array_equal(_lens(session, net, feed), LENS + 2)
    np.testing.assert_allclose(out[:, :2], -1.0)
    np.testing.assert_allclose(out[:, 2:], X)
    assert net.layers["output"].output.time_dim.description == "2+time:var:extern_data:data"


@pytest.mark.parametrize("time_major", [False, True])
def test_window_uses_padded_frames_like_reference(session, time_major):
    net, out, _ = _run(session, {"output": {"class": "window", "window_size": 3, "from": "data"}},
                       time_major=time_major)
    tmpl = net.layers["output"].output
    assert repr(tmpl.dims[tmpl.time_dim_axis + 1]) == "Dim{'output:window'(3)}"
    if time_major:
        out = out.transpose(2, 0, 1, 3)  # [T, W, B, F] -> [B, T, W, F]
    padded = np.pad(X, [(0, 0), (1, 1), (0, 0)])  # the batch's padded frames as they are, zeros outside
    expected = np.stack([padded[:, w:w + 5] for w in range(3)], axis=2)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(out[b, :n], expected[b, :n])


@pytest.mark.parametrize("opts, lens, expected", [
    # observed from the reference: input 1..8 and 9..16 (lengths 8 and 5; 14, 15, 16 are padded frames)
    ({"window_size": 3}, [8, 5],
     [[0, 9, 10], [9, 10, 11], [10, 11, 12], [11, 12, 13], [12, 13, 14]]),
    ({"window_size": 3, "window_left": 2, "window_right": 0, "stride": 3}, [3, 2],
     [[0, 0, 9], [10, 11, 12]]),
])
def test_window_values_like_reference(session, opts, lens, expected):
    net = build_net({"output": {"class": "window", "from": "data", **opts}}, {"data": {"dim": 1}})
    x = (np.arange(16).reshape(2, 8, 1) + 1).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [8, 5]})
    out = net.layers["output"].output
    y, out_lens = session.run([out.copy_as_batch_major().placeholder, out.get_sequence_lengths()], feed)
    assert out_lens.tolist() == lens
    np.testing.assert_array_equal(y[1, :lens[1], :, 0], expected)


def test_gather_feature_int(session):
    net, out, _ = _run(session, {"output": {"class": "gather", "axis": "F", "position": 1, "from": "data"}})
    np.testing.assert_allclose(out, X[:, :, 1])
    assert net.layers["output"].output.batch_shape == (None, None)


def test_gather_with_layer_positions(session):
    net = build_net({"output": {"class": "gather", "axis": "T", "position": "data:pos", "from": "data"}},
                    {"data": {"dim": 4}, "pos": {"shape": (), "dtype": "int32", "sparse": False}})
    pos = np.array([4, 1, 0], "int32")
    feed = make_feed(net, {"data": X, "pos": pos}, {"data": LENS})
    out = forward_and_grad_step(session, net, feed)
    np.testing.assert_allclose(out, X[np.arange(3), pos])
    assert net.layers["output"].output.batch_shape == (None, 4)


@pytest.mark.parametrize("time_major", [False, True])
def test_pad_time(session, time_major):
    net, out, feed = _run(session, {"output": {"class": "pad", "axes": "T", "padding": (1, 2), "value": 0.5,
                                               "from": "data"}}, time_major=time_major)
    out = out.transpose(1, 0, 2) if time_major else out
    np.testing.assert_array_equal(_lens(session, net, feed), LENS + 3)
    for b, n in enumerate(LENS):  # as the reference on a zero-padded batch: raw padding, then the pad value
        np.testing.assert_allclose(out[b, 0], 0.5)
        np.testing.assert_allclose(out[b, 1:n + 1], X[b, :n])
        np.testing.assert_allclose(out[b, n + 1:6], 0.0)
        np.testing.assert_allclose(out[b, 6:8], 0.5)
    assert net.layers["output"].output.time_dim.description == "(1+time:var:extern_data:data)+2"


def test_pad_feature(session):
    _, out, _ = _run(session, {"output": {"class": "pad", "axes": "F", "padding": 1, "from": "data"}})
    np.testing.assert_allclose(out, np.pad(X, [(0, 0), (0, 0), (1, 1)]))


def test_reinterpret_data(session):
    net, out, _ = _run(session, {"a": {"class": "linear", "n_out": 2, "from": "data"},
                                 "output": {"class": "reinterpret_data", "from": "a", "enforce_time_major": True,
                                            "size_base": "data"}})
    assert net.layers["output"].output.is_time_major
    assert net.layers["output"].output.time_dim is net.layers["data"].output.time_dim
    net2 = build_net({"output": {"class": "reinterpret_data", "from": "data:classes", "increase_sparse_dim": 1}},
                     {"data": {"dim": 4}, "classes": {"dim": 5, "sparse": True}})
    assert net2.layers["output"].output.dim == 6 and net2.layers["output"].output.sparse
    net3 = build_net({"output": {"class": "reinterpret_data", "from": "data", "set_axes": {"T": None},
                                 "switch_axes": ["T", "F"]}}, {"data": {"dim": 4}})
    assert net3.layers["output"].output.time_dim_axis is None


@pytest.mark.parametrize("time_major", [False, True])
def test_time_chunking_roundtrip_like_reference(session, time_major):
    x = (np.arange(14).reshape(2, 7, 1) + 1).astype("float32")
    net = build_net({"c": {"class": "time_chunking", "chunk_size": 3, "chunk_step": 2, "from": "data"},
                     "l": {"class": "linear", "n_out": 1, "forward_weights_init": 1.0, "from": "c"},
                     "output": {"class": "time_unchunking", "chunking_layer": "c", "from": "c"}},
                    {"data": {"dim": 1, **({"batch_dim_axis": 1} if time_major else {})}})
    feed = make_feed(net, {"data": x.transpose(1, 0, 2) if time_major else x}, {"data": [7, 4]})
    out, (chunks,) = forward_and_grad_step(session, net, feed, extra=["c"])
    # observed from the reference:
    assert chunks[:, :, 0].T.tolist() == [[1, 2, 3], [3, 4, 5], [5, 6, 7], [8, 9, 10], [10, 11, 0], [0, 0, 0]]
    lens = session.run(net.layers["c"].output.get_sequence_lengths(), feed)
    assert lens.tolist() == [3, 3, 3, 3, 2, 0]
    assert out[..., 0].tolist() == [[1, 8], [2, 9], [3, 10], [4, 11], [5, 0], [6, 0], [7, 0]]
    assert net.layers["output"].output.time_dim is net.layers["data"].output.time_dim


@pytest.mark.parametrize("layer, dims_repr", [  # observed from the reference
    ({"class": "slice", "axis": "T", "slice_start": 1, "slice_end": 4},
     "[B,'output:slice-end'(3),F|F'feature:data'(4)]"),
    ({"class": "slice", "axis": "T", "slice_step": 2},
     "[B,T|'⌈time:var:extern_data:data/2⌉'[B],F|F'feature:data'(4)]"),
    ({"class": "window", "window_size": 2, "padding": "valid"},
     "[B,T|'time:var:extern_data:data+-1'[B],'output:window'(2),F|F'feature:data'(4)]"),
    ({"class": "pool", "mode": "avg", "pool_size": (2,), "padding": "valid"},
     "[B,T|'⌈(time:var:extern_data:data+-1)/2⌉'[B],F|F'feature:data'(4)]"),
    ({"class": "split_dims", "axis": "T", "dims": (-1, 2)},
     "[B,T|'output_split_dims0_rem'[B],'output_split_dims1'(2),F|F'feature:data'(4)]"),
    ({"class": "pad", "axes": "F", "padding": 1},
     "[B,T|'time:var:extern_data:data'[B],F|F'(1+feature:data)+1'(6)]"),
])
def test_templates_like_reference(session, layer, dims_repr):
    net = build_net({"output": dict(layer, **{"from": "data"})}, {"data": {"dim": 4}})
    assert net.layers["output"].output.get_dims_repr() == dims_repr


def test_static_slice_of_dynamic_axis(session):
    net, out, _ = _run(session, {"output": {"class": "slice", "axis": "T", "slice_start": 1, "slice_end": 4,
                                            "from": "data"}})
    np.testing.assert_allclose(out, X[:, 1:4])
    assert net.layers["output"].output.time_dim_axis is None


def test_merge_dims_keeps_the_default_feature_axis_unspecified(session):
    # as the reference (observed: test_conv_window_merge_dims): [B, T, 4, F] merged to [B, T, 4*F], feature not set
    from returnn.tensor import NotSpecified
    net = build_net({"output": {"class": "merge_dims", "from": "data", "axes": ["dim:4", "F"]}},
                    {"data": {"shape": (None, 4, 3)}})
    out = net.layers["output"].output
    assert out.batch_shape == (None, None, 12) and out.feature_dim_axis == 2
    assert out.feature_dim_axis_or_unspecified is NotSpecified


def test_slice_of_time_to_static_size_keeps_explicit_time_axis():
    """Observed from the reference: slicing a derived time axis to a static size leaves no time axis
    (``[B, 's:slice-end'(1), F]``, time axis None); an explicitly set time axis (here a dot layer's output) stays on
    the sliced axis, so that ``"axis": "t"`` still finds it after the slice."""
    net = build_net({
        "s": {"class": "slice", "from": "data", "axis": "T", "slice_end": 1},
        "e": {"class": "dot", "red1": "F", "red2": "F", "from": ["data", "data:data2"], "var1": "T", "var2": "T"},
        "es": {"class": "slice", "from": "e", "axis": "T", "slice_end": 1},
        "sq": {"class": "squeeze", "from": "es", "axis": "t"},
        "output": {"class": "copy", "from": ["s", "sq"]}}, {"data": {"dim": 4}, "data2": {"dim": 4}})
    assert net.get_layer("s").output.time_dim_axis is None
    es = net.get_layer("es").output
    assert es.time_dim_axis is not None and es.batch_shape[es.time_dim_axis] == 1
    assert net.get_layer("sq").output.batch_ndim == es.batch_ndim - 1
