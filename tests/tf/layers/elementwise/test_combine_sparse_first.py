"""combine of int sources keeps the first source's sparse_dim (observed from the reference)."""

import numpy as np

from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net

_C = FeatureDim("C", 7)
_T = SpatialDim("T", 2)
_EXTERN = {"s": {"dim_tags": [batch_dim], "sparse_dim": _C, "dtype": "int32"},
           "d": {"dim_tags": [batch_dim], "dtype": "int32"}}


def test_combine_sparse_first_keeps_sparse_dim(session):
    net = build_net({"output": {"class": "combine", "kind": "add", "from": ["data:s", "data:d"]}}, _EXTERN)
    out = net.get_default_output_layer().output
    assert out.sparse_dim is not None and out.sparse_dim.dimension == 7 and out.dtype == "int32"
    feed = {net.extern_data.data["s"].placeholder: np.array([1, 2]), net.extern_data.data["d"].placeholder: [3, 4]}
    np.testing.assert_array_equal(session.run(out.placeholder, feed_dict=feed), [4, 6])


def test_combine_dense_first_is_dense(session):
    net = build_net({"output": {"class": "combine", "kind": "add", "from": ["data:d", "data:s"]}}, _EXTERN)
    assert net.get_default_output_layer().output.sparse_dim is None


def test_eval_of_int_sources_keeps_the_sparse_dim_of_the_complete_source(session):
    """eval of int sources: the classes of the first source with all the output's axes (observed from the reference:
    ``tf.minimum(source(0), source(1))`` of labels ``[B,T]`` and lengths ``[B]`` stays sparse in either order)"""
    extern = {"s": {"dim_tags": [batch_dim, _T], "sparse_dim": _C, "dtype": "int32"},
              "d": {"dim_tags": [batch_dim], "dtype": "int32"}}
    for sources in (["data:s", "data:d"], ["data:d", "data:s"]):
        net = build_net({"output": {"class": "eval", "from": sources, "eval": "tf.minimum(source(0), source(1))"}},
                        extern)
        out = net.get_default_output_layer().output
        assert out.sparse_dim is not None and out.sparse_dim.dimension == 7 and out.dtype == "int32"
        feed = {net.extern_data.data["s"].placeholder: np.array([[1, 5], [6, 0]]),
                net.extern_data.data["d"].placeholder: [3, 4]}
        np.testing.assert_array_equal(session.run(out.placeholder, feed_dict=feed), [[1, 3], [4, 0]])


def test_eval_dense_first_is_dense(session):
    net = build_net({"output": {"class": "eval", "from": ["data:d", "data:s"], "eval": "source(0) + source(1)"}},
                    _EXTERN)
    assert net.get_default_output_layer().output.sparse_dim is None
