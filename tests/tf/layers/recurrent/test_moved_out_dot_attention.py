"""Multi-head dot attention inside a rec unit whose query is read from the loop's input: moved out of the loop in
training, the query gets the loop's time axis, which the ``dot`` layer (explicit ``var1``/``var2``) makes a free
axis of the query (as the reference, observed: energies ``[B, H, T_enc, T_dec]``), also when the encoder's time is
the loop's own time (the same Dim on both axes). The values are checked against numpy, with and without moving out.
"""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import Dim, FeatureDim, SpatialDim, batch_dim
from returnn.tf.network import TFNetwork

N_HEADS, N_KEY, N_VALUE, N_IN = 2, 3, 4, 5


def _net_dict(optimize: bool):
    unit = {
        "s": {"class": "linear", "activation": None, "with_bias": False, "from": "data:source",
              "n_out": N_HEADS * N_KEY},
        "att_query": {"class": "split_dims", "axis": "F", "dims": (N_HEADS, N_KEY), "from": "s"},
        "energy": {"class": "dot", "red1": f"dim:{N_KEY}", "red2": f"dim:{N_KEY}", "var1": "T", "var2": None,
                   "add_var2_if_empty": False, "from": ["base:enc_ctx", "att_query"]},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy"},
        "att0": {"class": "generic_attention", "weights": "att_weights", "base": "base:enc_value"},
        "output": {"class": "merge_dims", "axes": [f"dim:{N_HEADS}", f"dim:{N_VALUE}"], "from": "att0"},
    }
    return {
        "enc_ctx0": {"class": "linear", "activation": None, "with_bias": False, "from": "data",
                     "n_out": N_HEADS * N_KEY},
        "enc_ctx": {"class": "split_dims", "axis": "F", "dims": (N_HEADS, N_KEY), "from": "enc_ctx0"},
        "enc_value0": {"class": "linear", "activation": None, "with_bias": False, "from": "data",
                       "n_out": N_HEADS * N_VALUE},
        "enc_value": {"class": "split_dims", "axis": "F", "dims": (N_HEADS, N_VALUE), "from": "enc_value0"},
        "output": {"class": "rec", "from": "data", "unit": unit, "optimize_move_layers_out": optimize},
    }


def _softmax_masked(x, lengths, axis):
    mask = np.arange(x.shape[axis]) < lengths
    x = np.where(mask, x, -np.inf)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("optimize", [True, False])
def test_dot_attention_query_from_loop_input_moved_out(session, optimize):
    time_dim = SpatialDim("time")
    feat_dim = FeatureDim("in", N_IN)
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]}}}),
                    train_flag=True)
    net.construct_from_dict(_net_dict(optimize))
    rec = net.get_layer("output")
    assert ("energy" in rec.cell.layers_in_loop) is not optimize
    if optimize:
        energy = rec.cell.output_layers_net.layers["energy"].output
        # as the reference: the common axes, var1 (the encoder's time), then the loop's time, the same Dim
        assert [d.dimension for d in energy.dims] == [None, N_HEADS, None, None]
        assert energy.dims[2] == energy.dims[3] == time_dim
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(1)
    params = {}
    for name in ["enc_ctx0", "enc_value0", "output"]:
        for key, var in sorted(net.get_layer(name).params.items()):
            value = rs.uniform(-1, 1, var.shape.as_list()).astype("float32")
            var.load(value, session)
            params[f"{name}/{key}"] = value
    w_s = next(v for k, v in params.items() if k.startswith("output/") and k.endswith("W"))
    lengths = np.array([4, 2, 3])
    x = rs.uniform(-1, 1, (3, 4, N_IN)).astype("float32")
    data = net.extern_data.data["data"]
    out = rec.output.copy_as_batch_major()
    y = session.run(out.placeholder, {data.placeholder: x, data.size_placeholder[0]: lengths})
    enc = (x @ params["enc_ctx0/W"]).reshape(3, 4, N_HEADS, N_KEY)
    val = (x @ params["enc_value0/W"]).reshape(3, 4, N_HEADS, N_VALUE)
    query = (x @ w_s).reshape(3, 4, N_HEADS, N_KEY)
    energy = np.einsum("behk,bdhk->bhde", enc, query)  # [B, H, T_dec, T_enc]
    weights = _softmax_masked(energy, lengths[:, None, None, None], axis=-1)
    expected = np.einsum("bhde,behv->bdhv", weights, val).reshape(3, 4, N_HEADS * N_VALUE)
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(y[b, :n], expected[b, :n], rtol=1e-4, atol=1e-5)


def test_inside_rec_time_dim_of_the_unit_networks():
    time_dim = SpatialDim("time")
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim_tags": [batch_dim, time_dim,
                                                                             FeatureDim("in", N_IN)]}}}),
                        train_flag=True)
        net.construct_from_dict(_net_dict(True))
        cell = net.get_layer("output").cell
        assert net.get_inside_rec_time_dim(inside_loop=False) is None
        moved_out = cell.output_layers_net
        assert moved_out.get_inside_rec_time_dim(inside_loop=False) == time_dim
        assert moved_out.get_inside_rec_time_dim() is None  # not a loop step
        assert cell.sub_net.get_inside_rec_time_dim() == time_dim


def test_dot_plan_loop_dim_is_free_axis_of_the_input_that_has_it():
    from returnn.errors import LayerShapeError
    from returnn.tensor import Tensor
    from returnn.tf.layers.linear.dot_plan import make_plan, resolve_args
    from returnn.util.values import NotSpecified

    loop, enc, heads, key = SpatialDim("dec"), SpatialDim("enc"), FeatureDim("heads", 2), FeatureDim("key", 3)
    a = Tensor("a", dims=[batch_dim, enc, heads, key])
    b = Tensor("b", dims=[loop, batch_dim, heads, key])
    args = resolve_args("energy", NotSpecified, key, key, enc, None, False)
    plan = make_plan(a, b, args, "energy", loop_dim=loop)
    assert plan.out_dims(a, b) == [batch_dim, heads, enc, loop]
    with pytest.raises(LayerShapeError):  # not moved out of a loop: an unmatched axis
        make_plan(a, b, args, "energy")


def test_output_layer_of_the_unit_moves_out():
    """A unit layer with ``"is_output_layer": True`` is computed outside the loop when nothing forces it in, as the
    reference (observed: all layers of ``test_reclayer_optimize_out_dot_kv_in_rec`` moved out)."""
    net_dict = _net_dict(True)
    net_dict["output"]["unit"]["extra"] = {"class": "linear", "from": "base:enc_ctx0", "n_out": 2,
                                           "is_output_layer": True}
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": N_IN}}}), train_flag=True)
        net.construct_from_dict(net_dict)
        cell = net.get_layer("output").cell
        assert cell.layers_in_loop == []
        assert "extra" in cell.output_layers_moved_out
