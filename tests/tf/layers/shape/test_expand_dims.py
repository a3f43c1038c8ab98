"""expand_dims: where the new axis goes and which roles the output axes get (observed from the reference with
the same extern data), a given Dim used as is, tiling for a size > 1."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net

T = SpatialDim("time")
F = FeatureDim("f", 3)
S = SpatialDim("s", 4)


def _out(dims, axis, dim=1, **kwargs):
    net = build_net({"output": {"class": "expand_dims", "from": "data", "axis": axis, "dim": dim}},
                    {"data": dict(dim_tags=dims, **kwargs)})
    return net.layers["output"].output


def _norm(tensor):
    return tensor.get_dims_repr().replace("time:var:extern_data:data", "time")


@pytest.mark.parametrize("dims, axis, expected", [
    ([batch_dim, T, F], "spatial", "[B,T|'time'[B],'output_expand_dims'(1),F|F'f'(3)]"),
    ([T, batch_dim, F], "spatial", "[T|'time'[B],B,'output_expand_dims'(1),F|F'f'(3)]"),
    ([batch_dim, F], "T", "[B,T|'output_expand_dims'(1),F|F'f'(3)]"),
    ([batch_dim, T, S, F], "spatial", "[B,T|'time'[B],'s'(4),'output_expand_dims'(1),F|F'f'(3)]"),
    ([batch_dim, F, T], "spatial", "[B,F'f'(3),F|'output_expand_dims'(1),T|'time'[B]]"),
    ([batch_dim, F, T], "F", "[B,F'f'(3),F|F'output_expand_dims'(1),T|'time'[B]]"),
    ([batch_dim], "spatial", "[F|'output_expand_dims'(1),B]"),
    ([batch_dim, T], "spatial", "[B,F|'output_expand_dims'(1),T|'time'[B]]"),
    ([batch_dim, F], 1, "[B,F'output_expand_dims'(1),F|F'f'(3)]"),
    ([batch_dim, T, F], -1, "[B,T|'time'[B],F'f'(3),F|'output_expand_dims'(1)]"),
    ([T, batch_dim, F], 1, "[B,'output_expand_dims'(1),T|'time'[B],F|F'f'(3)]"),
    ([batch_dim, T, F], 0, "['output_expand_dims'(1),B,T|'time'[B],F|F'f'(3)]"),
])
def test_expand_dims_position_and_roles(dims, axis, expected):
    with tf.Graph().as_default():
        assert _norm(_out(dims, axis)) == expected


def test_expand_dims_sparse_spatial_appends():
    with tf.Graph().as_default():
        out = _out([batch_dim, T], "spatial", 3, sparse_dim=F)
        assert _norm(out) == "[B,T|'time'[B],'output_expand_dims'(3)]"
        assert out.sparse_dim.dimension == 3 and out.feature_dim_axis is None


def test_expand_dims_sparse_feature_refused():
    with tf.Graph().as_default(), pytest.raises(LayerArgError, match="sparse"):
        _out([batch_dim, T], "F", sparse_dim=F)


def test_expand_dims_given_dim_tiles():
    exp = SpatialDim("exp", 2)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = build_net({"output": {"class": "expand_dims", "from": "data", "axis": "spatial", "dim": exp}},
                        {"data": {"dim_tags": [batch_dim, F]}})
        out = net.layers["output"].output
        assert out.dims[1] is exp and out.time_dim_axis == 1 and out.feature_dim_axis == 2
        x = np.arange(6, dtype="float32").reshape(2, 3)
        y = session.run(out.placeholder, {net.extern_data.data["data"].placeholder: x})
        np.testing.assert_array_equal(y, np.stack([x, x], axis=1))
