"""A ``conv`` / ``transposed_conv`` layer in a rec unit without ``in_spatial_dims``, over the one spatial axis a
frame has (a ``split_dims`` of the feature axis): moved out of the loop (training), the input also has the loop's
time axis, which is not a spatial axis of the layer (as the reference, observed: the same values as in the loop).
Values checked against numpy, with and without moving out."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.network import TFNetwork


def _conv_np(x, w, b):
    """x [N, S, C_in] 'same' 1-d convolution with filter w [K, C_in, C_out] (K odd), bias b"""
    k = w.shape[0]
    pad = np.pad(x, [(0, 0), ((k - 1) // 2, k // 2), (0, 0)])
    return np.stack([np.einsum("nkc,kco->no", pad[:, s:s + k], w) for s in range(x.shape[1])], axis=1) + b


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("layer_class", ["conv", "transposed_conv"])
def test_conv_over_split_axis_in_rec_unit(session, optimize, layer_class):
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("in", 15)
    unit = {"split": {"class": "split_dims", "from": "data:source", "axis": "F", "dims": (5, 3)},
            "output": {"class": layer_class, "from": "split", "filter_size": [3], "padding": "same", "n_out": 4}}
    if layer_class == "transposed_conv":
        unit["output"]["strides"] = [1]
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]}}}),
                    train_flag=True)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": unit,
                                        "optimize_move_layers_out": optimize}})
    rec = net.get_layer("output")
    assert rec.cell.layers_in_loop == ([] if optimize else ["output", "split"])
    out = rec.output.copy_as_batch_major()
    assert out.batch_shape == (None, None, 5, 4)
    session.run(tf.compat.v1.global_variables_initializer())
    params = {key.split("/")[-1]: session.run(var) for key, var in rec.params.items()}
    w = params["W"] if "W" in params else params["W_native_transposed_conv"]
    if layer_class == "transposed_conv":  # [K, 1, C_out, C_in]: with stride 1 a correlation with the flipped kernel
        w = np.transpose(w[::-1, 0], [0, 2, 1])
    rs = np.random.RandomState(4)
    x = rs.uniform(-1, 1, (2, 3, 15)).astype("float32")
    data = net.extern_data.data["data"]
    y = session.run(out.placeholder, {data.placeholder: x, data.size_placeholder[0]: [3, 3]})
    expected = _conv_np(x.reshape(6, 5, 3), w, params.get("bias", 0.0)).reshape(2, 3, 5, 4)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
