"""Dim internals the reference's tests read: ``undefined``, a Dim given its lengths as a Tensor, ``_extra`` after
pickling, the split of a dim made by arithmetic. Expected values observed from the reference (returnn
1.20261022)."""

import pickle

import pytest

from returnn.errors import TensorArgError
from returnn.tensor import Data, Dim, FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tensor._dim_math import split_sizes


def test_undefined_like_reference():
    data = Data(name="undefined", shape=(None, 3))
    time = data.dims[1]
    assert time.undefined and time.auto_generated  # a dynamic axis made from the shape, without lengths
    assert not SpatialDim("x").undefined and not FeatureDim("f", 3).undefined and not batch_dim.undefined
    derived = Dim(None, kind=Dim.Types.Spatial, description="der", derived_from_tag=time)
    assert derived.undefined and (time + 1).undefined
    assert not Data(name="y", dim_tags=[batch_dim, SpatialDim("z")]).dims[1].undefined
    time.dyn_size_ext = Tensor("len", dims=[batch_dim], dtype="int32")  # lengths known (as a template)
    assert not time.undefined and not derived.undefined
    with pytest.raises(AttributeError):
        time.undefined = True  # read-only, as the reference's property


def test_dim_from_size_tensor_like_reference():
    size = Tensor("time", dims=(), dtype="int32")
    time = Dim(size)
    assert time.name == "time" and time.dimension is None and time.dyn_size_ext is size and time.kind is None
    assert repr(time) == "Dim{'time'[]}" and not time.undefined
    assert repr(Dim(Tensor("t2", dims=(), dtype="int32"), name="other")) == "Dim{'other'[]}"
    with pytest.raises(TensorArgError, match="unexpected dtype for dimension: float32"):
        Dim(Tensor("x", dims=(), dtype="float32"))


def test_pickled_dim_has_its_own_extra_like_reference():
    dim = FeatureDim("feat-demo-dim", dimension=5)
    derived = dim * 2
    dim_ = pickle.loads(pickle.dumps(dim))
    assert dim_.dimension == dim.dimension and dim_ != dim and dim_._extra is not dim._extra
    assert dim * 2 is derived  # the cache of derived dims lives in _extra
    assert dim_ * 2 is not derived and dim_ * 2 != derived and dim_ * 2 is dim_ * 2
    data = Data(name="data-demo", dim_tags=[dim])
    data_ = pickle.loads(pickle.dumps(data))
    assert data_.shape == data.shape and data_.dim_tags != data.dim_tags


@pytest.mark.parametrize("make, parts", [  # observed: tf_util.get_param_axes_split_info of a variable layer
    (lambda a, b: 2 * a + b, [3, 3, 5]),
    (lambda a, b: 3 * a, [3, 3, 3]),
    (lambda a, b: a, [3]),
    (lambda a, b: a * 2, [2, 2, 2]),
    (lambda a, b: a + 2, [3, 2]),
    (lambda a, b: a - 1 + b, [3, -1, 5]),
    (lambda a, b: (a + b) * 2, [2] * 8),
    (lambda a, b: 2 * (a + b), [3, 5, 3, 5]),
    (lambda a, b: a + a, [3, 3]),
    (lambda a, b: a // 2 + b, [1, 5]),
])
def test_split_sizes_like_reference(make, parts):
    assert split_sizes(make(FeatureDim("feature1", 3), FeatureDim("feature2", 5))) == parts


def test_split_sizes_of_dynamic_dim_is_none():
    assert split_sizes(SpatialDim("time") + 1) is None


def test_batch_dim_names_a_merged_batch_axis():
    from returnn.tf.layers.shape._flat_batch import FlatBatchDim
    time = SpatialDim("time")
    flat = Tensor("flat", dims=[FlatBatchDim(time), FeatureDim("f", 2)])
    assert flat.get_axis_from_description(batch_dim) == 0
    with pytest.raises(Exception, match="matches no axis"):
        Tensor("nobatch", dims=[FeatureDim("f", 2)]).get_axis_from_description(batch_dim)
