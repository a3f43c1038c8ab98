"""random, rand_int: output templates as observed from the reference, values checked with numpy."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net, make_feed


def _run(session, net, names, n_batch=2, n_time=5):
    feed = make_feed(net, {"data": np.zeros((n_batch, n_time, 3), "float32")}, {"data": [n_time, n_time - 1]})
    return session.run([net.get_layer(n).output.placeholder for n in names], feed_dict=feed)


def test_random_layer_templates_and_values(session):
    feat = FeatureDim("feat", 3)
    net = build_net({
        "r1": {"class": "random", "shape": [batch_dim, feat], "distribution": "normal", "mean": 0.0, "stddev": 1.0,
               "is_output_layer": True},
        "r2": {"class": "random", "shape": [feat], "distribution": "uniform", "minval": 0.1, "maxval": 1.5,
               "seed": 3, "is_output_layer": True},
        "r3": {"class": "random", "shape": [feat, 4], "distribution": "truncated_normal", "stddev": 2.0,
               "is_output_layer": True},
        "r4": {"class": "random", "shape": [feat, 1000], "distribution": "uniform", "bound": 0.5,
               "is_output_layer": True},
    }, {"data": {"dim": 3}}, train_flag=False)
    # observed from the reference: [B,F|F'input'(3)]; [F'input'(3),F|'r3:dim1'(4)] (the int entry a spatial dim)
    out1 = net.get_layer("r1").output
    assert out1.dims == (batch_dim, feat) and out1.feature_dim_axis == 1 and out1.dtype == "float32"
    out3 = net.get_layer("r3").output
    assert out3.dims[1].description == "r3:dim1" and out3.dims[1].dimension == 4
    assert not out3.dims[1].is_feature_dim() and out3.feature_dim_axis == 1
    r1, r2, r3, r4 = _run(session, net, ["r1", "r2", "r3", "r4"])
    assert r1.shape == (2, 3) and r2.shape == (3,) and r3.shape == (3, 4)
    assert ((r2 >= 0.1) & (r2 < 1.5)).all()
    assert (np.abs(r3) <= 4.0).all()  # truncated at 2 stddev
    assert ((r4 >= -0.5) & (r4 < 0.5)).all() and r4.min() < -0.4 and r4.max() > 0.4


def test_random_layer_dynamic_dim_from_shape_deps(session):
    time_dim, in_dim = SpatialDim("time"), FeatureDim("in", 3)
    net = build_net({
        "r": {"class": "random", "shape": [batch_dim, time_dim, FeatureDim("zero", 0)], "shape_deps": ["data"],
              "distribution": "normal", "is_output_layer": True},
    }, {"data": {"dim_tags": (batch_dim, time_dim, in_dim)}})
    layer = net.get_layer("r")
    assert layer.output.time_dim_axis == 1 and layer.output.feature_dim_axis == 2
    assert net.get_layer("data") in layer.get_dep_layers()
    (r,) = _run(session, net, ["r"], n_batch=2, n_time=5)
    assert r.shape == (2, 5, 0)


def test_rand_int_layer(session):
    feat = FeatureDim("feature", 5)
    net = build_net({
        "i1": {"class": "rand_int", "shape": [feat, batch_dim, 4], "minval": 3, "maxval": 10, "seed": 42,
               "is_output_layer": True},
        "len": {"class": "length", "from": "data"},
        "maxlen": {"class": "reduce", "mode": "max", "axis": "B", "from": "len"},
        "i2": {"class": "rand_int", "shape": [batch_dim, 50], "maxval": "maxlen", "dtype": "int64",
               "is_output_layer": True},
    }, {"data": {"dim": 3}})
    out1 = net.get_layer("i1").output
    # observed from the reference: [F'feature'(5),B,F|F'i1:static:2'(4)] int32
    assert out1.dtype == "int32" and out1.batch_dim_axis == 1 and out1.feature_dim_axis == 2
    assert out1.dims[2].description == "i1:static:2" and out1.dims[2].is_feature_dim()
    assert net.get_layer("i2").output.dtype == "int64"
    assert net.get_layer("maxlen") in net.get_layer("i2").get_dep_layers()
    i1, i2 = _run(session, net, ["i1", "i2"], n_batch=2, n_time=5)
    assert i1.shape == (5, 2, 4) and ((i1 >= 3) & (i1 < 10)).all()
    assert i2.shape == (2, 50) and ((i2 >= 0) & (i2 < 5)).all() and i2.max() == 4


@pytest.mark.parametrize("layer,expected_arg", [
    ({"class": "random", "shape": [3], "distribution": "poisson"}, "distribution"),
    ({"class": "random", "shape": "3", "distribution": "normal"}, "shape"),
    ({"class": "rand_int", "shape": [3], "maxval": 5, "dtype": "float32"}, "dtype"),
    ({"class": "random", "shape": [3], "distribution": "normal", "explicit_state": "data",
      "auto_update_state": True}, "explicit_state"),
    ({"class": "random", "shape": [3], "distribution": "normal", "static": True, "explicit_state": "data",
      "auto_update_state": True}, "static"),
    ({"class": "random_state_init", "out_dim": FeatureDim("s", 4)}, "out_dim"),
])
def test_random_layers_bad_args(session, layer, expected_arg):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": layer}, {"data": {"dim": 3}})
    assert info.value.arg == expected_arg


def test_random_state_init_and_explicit_state(session):
    state_dim, feat = FeatureDim("random-state", 3), FeatureDim("feat", 4)
    net = build_net({
        "init": {"class": "random_state_init", "out_dim": state_dim, "seed": 5, "is_output_layer": True},
        "state": {"class": "variable", "shape": [state_dim], "dtype": "int64", "init_by_layer": "init",
                  "trainable": False},
        "r": {"class": "random", "shape": [feat], "distribution": "normal", "explicit_state": "state",
              "auto_update_state": True, "is_output_layer": True},
    }, {"data": {"dim": 3}})
    # observed from the reference: [F|F'random-state'(3)] int64, value [5, 0, 0] for seed 5
    init = net.get_layer("init").output
    assert init.dims == (state_dim,) and init.dtype == "int64"
    assert net.get_layer("state") in net.get_layer("r").get_dep_layers()
    session.run(tf.compat.v1.global_variables_initializer())
    assert session.run(init.placeholder).tolist() == [5, 0, 0]
    state_var = next(iter(net.get_layer("state").params.values()))
    r = net.get_layer("r").output.placeholder
    first, second = session.run(r), session.run(r)
    assert first.shape == (4,) and not np.allclose(first, second)  # the draw advances the state
    assert session.run(state_var).tolist() != [5, 0, 0]
    session.run(state_var.assign([5, 0, 0]))
    np.testing.assert_allclose(session.run(r), first)  # same state -> same values


def test_explicit_state_needs_auto_update(session):
    state_dim = FeatureDim("random-state", 3)
    with pytest.raises(LayerArgError) as info:
        build_net({
            "init": {"class": "random_state_init", "out_dim": state_dim},
            "state": {"class": "variable", "shape": [state_dim], "dtype": "int64", "init_by_layer": "init"},
            "output": {"class": "random", "shape": [3], "distribution": "normal", "explicit_state": "state"},
        }, {"data": {"dim": 3}})
    assert info.value.arg == "explicit_state"


@pytest.mark.parametrize("distribution", ["uniform", "normal", "truncated_normal"])
def test_random_static_same_values_each_run(session, distribution):
    # as the reference: static=True draws the same values in every run and has no params (no RNG state);
    # without it each run draws new values
    opts = {"minval": 2.0, "maxval": 3.0} if distribution == "uniform" else {"mean": 5.0, "stddev": 0.5}
    net = build_net({"static": {"class": "random", "shape": (2, 3), "distribution": distribution, "static": True,
                                "is_output_layer": True, **opts},
                     "output": {"class": "random", "shape": (2, 3), "distribution": distribution, **opts}},
                    {"data": {"dim": 3}})
    assert net.get_layer("static").params == {}
    static, fresh = net.get_layer("static").output.placeholder, net.get_layer("output").output.placeholder
    s1, f1 = session.run([static, fresh])
    s2, f2 = session.run([static, fresh])
    np.testing.assert_array_equal(s1, s2)
    assert not np.array_equal(f1, f2)
    if distribution == "uniform":
        assert ((s1 >= 2) & (s1 < 3)).all()
    elif distribution == "truncated_normal":
        assert (np.abs(s1 - 5.0) <= 1.0).all()  # within 2 stddev


def test_variable_init_by_static_random(session):
    net = build_net({"random": {"class": "random", "shape": (3, 4), "distribution": "truncated_normal",
                                "static": True},
                     "output": {"class": "variable", "shape": (3, 4), "init_by_layer": "random"}},
                    {"data": {"dim": 3}})
    assert net.get_params_list() == list(net.get_layer("output").params.values())
    net.initialize_params(session)
    value = session.run(net.get_layer("output").output.placeholder)
    np.testing.assert_array_equal(value, session.run(net.get_layer("random").output.placeholder))
