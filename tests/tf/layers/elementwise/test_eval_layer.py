"""The ``eval`` layer: the namespace of its expression, ``source(i, ...)``, ``out_type`` forms, ``prev:`` inside a
rec loop. Behaviour observed with the reference (RETURNN from PyPI) noted at each test."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True},
          "tm": {"dim": 3, "time_dim_axis": 0, "batch_dim_axis": 1}, "img": {"shape": (None, None, 2)}}


def _run(session, net, layer, **values):
    feed = {}
    for key, value in values.items():
        data = net.extern_data.data[key]
        feed[data.placeholder] = value
        batch_axis = data.batch_dim_axis
        for axis, size in data.size_placeholder.items():  # full lengths
            axis_with_batch = axis + (1 if batch_axis <= axis else 0)
            feed[size] = np.full((value.shape[batch_axis],), value.shape[axis_with_batch], "int32")
    return session.run(net.layers[layer].output.placeholder, feed)


def test_string_namespace_is_tfutil_with_tf_self_source_like_reference(session):
    """Observed: the string sees TFUtil's names (``safe_log``, ``where_bc``), ``tf``, ``self`` and ``source``, but no
    ``network`` and none of the config's globals."""
    net = build_net({"output": {"class": "eval", "from": "data",
                                "eval": "where_bc(tf.less(source(0), 2.0), 0.0, safe_log(source(0))) "
                                        "* self.network.get_config().float('scale', 0)"}}, EXTERN, scale=2.0)
    x = np.array([[[1.0, 2.0, 4.0]]], "float32")
    np.testing.assert_allclose(_run(session, net, "output", data=x), [[[0.0, 2 * np.log(2.0), 2 * np.log(4.0)]]],
                               rtol=1e-6)
    with pytest.raises(LayerArgError, match="NameError: name 'network' is not defined"):
        build_net({"output": {"class": "eval", "from": "data", "eval": "network"}}, EXTERN)


def test_eval_locals_and_function_called_with_self_source_and_locals_only(session):
    """Observed: a function gets exactly ``self``, ``source`` and the ``eval_locals``."""
    seen = {}

    def fn(**kwargs):
        seen.update(kwargs)
        return kwargs["source"](0) * kwargs["factor"]

    net = build_net({"a": {"class": "eval", "from": "data", "eval": fn, "eval_locals": {"factor": 3.0}},
                     "output": {"class": "eval", "from": "a", "eval": "source(0) + offset",
                                "eval_locals": {"offset": 1.0}}}, EXTERN)
    assert sorted(seen) == ["factor", "self", "source"] and seen["self"] is net.layers["a"]
    np.testing.assert_allclose(_run(session, net, "output", data=np.ones((1, 2, 3), "float32")), np.full((1, 2, 3), 4.0))


def test_every_source_must_be_used_like_reference(session):
    """Observed: the reference rejects an eval that leaves a source unused ("not used sources: {1}")."""
    with pytest.raises(LayerArgError, match=r"does not use source\(s\) \[1\]"):
        build_net({"output": {"class": "eval", "from": ["data", "data"], "eval": "source(0)"}}, EXTERN)


def test_source_keywords_like_reference(session):
    """Observed: ``auto_convert`` aligns the source to the output's axes without casting its dtype; ``as_data`` gives
    the Tensor (aligned unless ``auto_convert=False``); ``enforce_batch_major`` makes it batch-major."""
    seen = {}

    def fn(self, source):
        seen["int"] = source(0, auto_convert=False, as_data=True)
        return tf.cast(source(0), tf.float32)

    def fn_tm(self, source):
        seen["tm"] = source(0, as_data=True)
        seen["tm_bm"] = source(0, as_data=True, enforce_batch_major=True)
        seen["tm_raw_bm"] = source(0, enforce_batch_major=True)
        return source(0)

    net = build_net({"a": {"class": "eval", "from": "data:classes", "eval": fn, "out_type": {"dtype": "float32"},
                           "is_output_layer": True},
                     "b": {"class": "eval", "from": "data:tm", "eval": fn_tm, "is_output_layer": True},
                     "output": {"class": "copy", "from": "data"}}, EXTERN)
    assert seen["int"].dtype == "int32" and seen["int"].sparse
    assert seen["tm"].time_dim_axis == 0 and seen["tm"].batch_dim_axis == 1
    assert seen["tm_bm"].batch_dim_axis == 0 and seen["tm_bm"].time_dim_axis == 1
    x = np.arange(2 * 1 * 3, dtype="float32").reshape(2, 1, 3)
    tm = net.extern_data.data["tm"]
    raw_bm = session.run(seen["tm_raw_bm"], {tm.placeholder: x, tm.size_placeholder[0]: [2]})
    np.testing.assert_array_equal(raw_bm, x.transpose(1, 0, 2))


def test_source_aligned_to_broadcast_output_with_size_one_axes(session):
    """Sources ``data:img`` ``{B, T, S, F}`` and ``data`` ``{B, T', F}``: the output spans both time axes (the
    reference's template, observed: ``[B, T, S, T', F]``; the data's time is its own axis, not the image's) and
    each ``source(i)`` gets the output's axes, size 1 where it lacks one, so ``+`` broadcasts."""
    seen = {}

    def fn(self, source):
        seen["a"], seen["b"] = source(0, as_data=True), source(1, as_data=True)
        return source(0) + source(1)

    img = np.arange(1 * 2 * 2 * 2, dtype="float32").reshape(1, 2, 2, 2)
    data = np.array([[[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]], "float32")  # T' = 3, feature dim 2 as the image's
    net = build_net({"output": {"class": "eval", "from": ["data:img", "data"], "eval": fn}},
                     {**EXTERN, "data": {"dim": 2}})
    out = net.layers["output"].output
    time_img, spatial, _ = net.extern_data.data["img"].dims[1:]
    time_data = net.extern_data.data["data"].dims[1]
    assert out.dims[1:4] == (time_img, spatial, time_data)
    assert [d.dimension for d in seen["a"].dims].count(1) == 1  # the image lacks the data's time axis
    assert [d.dimension for d in seen["b"].dims].count(1) == 2  # the data lacks both of the image's spatial axes
    res = _run(session, net, "output", img=img, data=data)
    assert res.shape == (1, 2, 2, 3, 2)
    np.testing.assert_array_equal(res, img[:, :, :, None, :] + data[:, None, None, :, :])


def test_out_type_shape_takes_the_sources_dynamic_dims_like_reference(session):
    """Observed templates: ``{"shape": (None, 1)}`` over ``{B, T, F(3)}`` is ``{B, T, F(1)}`` with the same T;
    ``(3, None)`` with ``time_dim_axis=2`` is ``{B, F(3), T}``; ``(None, None, 1)`` over an image takes both
    dynamic axes in order; ``(3,)`` without time axis is ``{B, F(3)}``."""
    net = build_net({
        "a": {"class": "eval", "from": "data", "eval": "source(0, auto_convert=False)[:, :, :1]",
              "out_type": {"dim": 1, "shape": (None, 1)}, "is_output_layer": True},
        "c": {"class": "eval", "from": "data", "eval": "source(0)",
              "out_type": {"shape": (3, None), "time_dim_axis": 2, "feature_dim_axis": 1}, "is_output_layer": True},
        "e": {"class": "eval", "from": "data:img", "eval": "source(0, auto_convert=False)[:, :, :, :1]",
              "out_type": {"shape": (None, None, 1)}, "is_output_layer": True},
        "g": {"class": "eval", "from": "data", "eval": "source(0, auto_convert=False)[:, 0]",
              "out_type": {"shape": (3,), "time_dim_axis": None}, "is_output_layer": True},
        "output": {"class": "copy", "from": "a"}}, EXTERN)
    data, img = net.extern_data.data["data"], net.extern_data.data["img"]
    layers = net.layers
    assert layers["a"].output.dims[1] is data.dims[1] and layers["a"].output.dim == 1
    assert layers["c"].output.dims[2] is data.dims[1] and layers["c"].output.feature_dim_axis == 1
    assert layers["e"].output.dims[1:3] == img.dims[1:3]
    assert layers["g"].output.batch_shape == (None, 3) and layers["g"].output.time_dim_axis is None
    x = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3)
    np.testing.assert_array_equal(_run(session, net, "c", data=x), x.transpose(0, 2, 1))


def test_out_type_function_gets_the_layer_options_like_reference(session):
    """Observed kwargs of an ``out_type`` function: the layer's options (``name``, ``network``, ``sources``,
    ``eval``, ``n_out``, ``loss``, ``target``, ...), not ``out_type`` itself."""
    seen = {}

    def out_type(sources, name, network, **kwargs):
        seen.update(kwargs, name=name)
        return sources[0].output.copy_template(name=f"{name}_output")

    build_net({"output": {"class": "eval", "from": "data", "eval": "source(0)", "out_type": out_type}}, EXTERN)
    assert seen["name"] == "output" and seen["eval"] == "source(0)" and "out_type" not in seen
    assert {"n_out", "loss", "target"} <= set(seen)


def test_prev_of_eval_without_initial_output_inside_rec_loop(session):
    """Observed template of the reference for attention-weight accumulation (``accum_att_weights``):
    ``{B, T(enc), F(1)}`` with the encoder's time dim, and ``prev:`` starts from zeros."""
    net = build_net({
        "enc": {"class": "copy", "from": "data"},
        "output": {"class": "rec", "from": [], "target": "classes", "unit": {
            "w": {"class": "eval", "from": "base:enc",
                  "eval": "source(0)[:, :, :1] * 0 + tf.cast(self.network.get_rec_step_index() + 1, tf.float32)",
                  "out_type": {"dim": 1, "shape": (None, 1)}},
            "acc": {"class": "eval", "from": ["prev:acc", "w", "prev:red"],  # prev:red: keeps red in the loop
                    "eval": "source(0) + source(1) + 0 * source(2)", "out_type": {"dim": 1, "shape": (None, 1)}},
            "red": {"class": "eval", "from": "acc", "eval": "tf.reduce_sum(source(0, auto_convert=False), axis=1)",
                    "out_type": {"shape": (1,), "time_dim_axis": None}},
            "output": {"class": "copy", "from": "red"}}}}, EXTERN, train_flag=False)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    out = session.run(net.layers["output"].output.placeholder, {
        data.placeholder: np.zeros((1, 2, 3), "float32"), data.size_placeholder[0]: [2],
        classes.placeholder: np.zeros((1, 3), "int32"), classes.size_placeholder[0]: [3]})
    # acc at step t: sum of (k+1) for k <= t over the 2 encoder frames -> 2 * (1, 3, 6)
    np.testing.assert_allclose(out[:, 0, 0], [2.0, 6.0, 12.0])


def test_out_type_sparse_with_new_dim_like_reference(session):
    """Observed: ``{"dim": 10, "dtype": "int32", "sparse": True}`` over sparse classes keeps the axes, new classes
    dim of size 10; over a dense input the reference fails (the feature axis stays): an error here."""
    net = build_net({"output": {"class": "eval", "from": "data:classes", "eval": "tf.math.floordiv(source(0), 2)",
                                "out_type": {"dim": 2, "dtype": "int32", "sparse": True}}}, EXTERN)
    out = net.layers["output"].output
    assert out.sparse and out.dim == 2 and out.batch_ndim == 2
    classes = net.extern_data.data["classes"]
    res = session.run(out.placeholder, {classes.placeholder: [[0, 1, 2, 3]], classes.size_placeholder[0]: [4]})
    np.testing.assert_array_equal(res, [[0, 0, 1, 1]])
    with pytest.raises(LayerArgError, match="sparse=True over a dense input"):
        build_net({"output": {"class": "eval", "from": "data", "eval": "source(0)",
                              "out_type": {"dim": 5, "dtype": "int32", "sparse": True}}}, EXTERN)


def test_full_out_type_without_dtype_over_sparse_labels_keeps_them(session):
    """Observed: ``{"shape": ()}`` of an eval over sparse labels (one frame of them) is int32 with their classes
    (the reference's test_trafo_search_lm: the prefix label fed back into the search); with a dtype it is that."""
    net = build_net({"frame": {"class": "eval", "from": "data:classes", "out_type": {"time_dim_axis": None, "shape": ()},
                               "eval": "source(0, auto_convert=False)[:, 0]", "is_output_layer": True},
                     "output": {"class": "eval", "from": "data:classes", "eval": "tf.cast(source(0), tf.float32)",
                                "out_type": {"shape": (None,), "dtype": "float32"}}}, EXTERN)
    frame = net.layers["frame"].output
    assert frame.dtype == "int32" and frame.sparse_dim is not None and frame.sparse_dim.dimension == 4
    assert net.layers["output"].output.sparse_dim is None and net.layers["output"].output.dtype == "float32"
    np.testing.assert_array_equal(_run(session, net, "frame", classes=np.array([[2, 1], [3, 0]])), [2, 3])
