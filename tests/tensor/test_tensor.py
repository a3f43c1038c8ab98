"""Tests for returnn.tensor (Tensor/Dim), without TensorFlow. Expected values observed from the reference."""

import subprocess
import sys

import pytest

from returnn.errors import AxisDescriptionError
from returnn.tensor import Data, Dim, DimensionTag, SpatialDim, Tensor, batch_dim


@pytest.mark.parametrize("kwargs, batch_shape, time_axis, feature_axis, dim, dtype", [
    (dict(dim=9), (None, None, 9), 1, 2, 9, "float32"),
    (dict(dim=5, sparse=True), (None, None), 1, None, 5, "int32"),
    (dict(shape=(None,)), (None, None), 1, None, None, "float32"),
    (dict(shape=(None, None, 3)), (None, None, None, 3), 1, 3, 3, "float32"),
    (dict(shape=(None, None, 3), time_dim_axis=2), (None, None, None, 3), 2, 3, 3, "float32"),
    (dict(shape=(3,)), (None, 3), None, 1, 3, "float32"),
    (dict(shape=(None, 4, 5)), (None, None, 4, 5), 1, 3, 5, "float32"),
    (dict(shape=(), dtype="int32"), (None,), None, None, None, "int32"),
    (dict(dim=None), (None, None, None), 1, 2, None, "float32"),
    (dict(shape=(7, None)), (None, 7, None), 2, 1, 7, "float32"),
    (dict(dim=9, batch_dim_axis=1), (None, None, 9), 0, 2, 9, "float32"),
    (dict(shape=(None, 3), time_dim_axis=None), (None, None, 3), None, 2, 3, "float32"),
    (dict(shape=(None, 3), batch_dim_axis=None), (None, 3), 0, 1, 3, "float32"),
])
def test_constructor_defaults_like_reference(kwargs, batch_shape, time_axis, feature_axis, dim, dtype):
    data = Data("x", **kwargs)
    assert data.batch_shape == batch_shape
    assert (data.time_dim_axis, data.feature_dim_axis, data.dim, data.dtype) == (time_axis, feature_axis, dim, dtype)


def test_repr_like_reference():
    assert repr(Data("x", dim=9)) == "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(9)]}"
    assert repr(Data("x", dim=5, sparse=True)) == (
        "Tensor{'x', [B,T|'time:var-unk:x'[B]], dtype='int32', sparse_dim=Dim{F'x:sparse-dim'(5)}}")


def test_dim_with_shape_is_ignored_like_reference():
    # the reference does not check dim against an explicit shape: Data("a", shape=(None, 3), dim=4) has dim 3
    assert Data("x", shape=(None, 3), dim=4).dim == 3
    assert Data("x", shape=(None,), dim=3).batch_shape == (None, None) and Data("x", shape=(None,), dim=3).dim is None
    assert Data("x", shape=(None, 3), sparse=True, dim=4).sparse_dim.dimension == 4


AXES_CASES = [
    ("*", [0, 1, 2, 3, 4]), ("B", [0]), ("batch", [0]), ("T", [1]), ("time", [1]), ("F", [4]), ("feature", [4]),
    ("spatial", [1, 2, 3]), ("S:0", [1]), ("S:1", [2]), ("S:-1", [3]), ("spatial:1", [2]), ("dyn", [1, 3]),
    ("dynamic", [1, 3]), ("D:0", [1]), ("D:1", [3]), ("dyn:-1", [3]), ("dynamic:0", [1]), ("static", [2, 4]),
    ("static:0", [2]), ("static:-1", [4]), ("T?", [1]), ("spatial_except_time", [2, 3]), ("except_time", [2, 3, 4]),
    ("except_batch", [1, 2, 3, 4]), (["T", "F"], [1, 4]), (("B", "f"), [0, 4]), ("t", [1]), ("Spatial", [1, 2, 3]),
    ("STATIC:1", [4]), (2, [2]), (-1, [4]), ("stag:time", [1]), ("dim:4", [2]), (["F", "f", "T"], [4, 1]),
]


@pytest.mark.parametrize("desc, expected", AXES_CASES)
def test_get_axes_from_description(desc, expected):
    data = Data("x", shape=(None, 4, None, 5), time_dim_axis=1)
    assert data.get_axes_from_description(desc) == expected


def test_axes_sparse_and_no_time():
    sparse = Data("s", dim=5, sparse=True)
    assert sparse.get_axes_from_description("F") == []
    assert sparse.get_axes_from_description("T?") == [1]
    assert sparse.get_axes_from_description("static") == []
    no_time = Data("n", shape=(3,))
    assert no_time.get_axes_from_description("T?") == []
    assert no_time.get_axes_from_description("spatial") == []
    with pytest.raises(AxisDescriptionError, match="no time axis"):
        no_time.get_axes_from_description("T")


@pytest.mark.parametrize("desc", ["foo", "S:5", "static:9", 7, "dyn:x"])
def test_invalid_axis_description(desc):
    data = Data("x", shape=(None, 4, None, 5), time_dim_axis=1)
    with pytest.raises(AxisDescriptionError) as info:
        data.get_axes_from_description(desc)
    assert repr(desc) in str(info.value)


def test_get_axis_from_description_needs_exactly_one():
    data = Data("x", shape=(None, 4, None, 5), time_dim_axis=1)
    assert data.get_axis_from_description("F") == 4
    with pytest.raises(AxisDescriptionError, match="matches 2 axes"):
        data.get_axis_from_description("dyn")


def test_copy_as_time_major_and_back():
    data = Data("x", shape=(None, 4, None, 5), time_dim_axis=1)
    tm = data.copy_as_time_major()
    assert (tm.batch_dim_axis, tm.time_dim_axis, tm.feature_dim_axis) == (1, 0, 4)
    assert tm.dims[0] is data.dims[1] and tm.dims[1] is batch_dim
    bm = tm.copy_as_batch_major()
    assert bm.dims == data.dims and (bm.time_dim_axis, bm.feature_dim_axis) == (1, 4)
    tmpl = data.copy_template(name="y")
    assert tmpl.name == "y" and tmpl.dims == data.dims and tmpl.placeholder is None


def test_same_time_dim_as_unifies_and_shares_sizes():
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="dynamic_time", dimension=None)
    a = Data("a", shape=(None, 3), same_time_dim_as={"T": tag})
    b = Data("b", shape=(None, 4), time_dim_axis=1, same_dim_tags_as={1: tag})
    assert a.dims[1] == b.dims[1] and a.dims[1] != Data("c", dim=3).dims[1]
    a.size_placeholder = {0: "sizes-a"}
    assert b.size_placeholder == {0: "sizes-a"}
    assert b.get_sequence_lengths() == "sizes-a"


def test_copy_template_excluding_and_add_dim():
    data = Data("x", shape=(None, 4, 5))
    ex = data.copy_template_excluding_axis(1)
    assert ex.batch_shape == (None, 4, 5) and ex.time_dim_axis is None and ex.feature_dim_axis == 2
    new = ex.copy_add_dim(1, SpatialDim("new", None), as_time=True)
    assert new.batch_shape == (None, None, 4, 5) and new.time_dim_axis == 1 and new.feature_dim_axis == 3


def test_dim_static_dynamic():
    assert Dim(3, name="a").is_static() and not Dim(3, name="a").is_dynamic()
    assert Dim(None, name="a").is_dynamic() and not batch_dim.is_dynamic()
    with pytest.raises(ValueError, match="different sizes"):
        Dim(3, name="a").declare_same_as(Dim(4, name="b"))


def test_tensor_package_does_not_import_tensorflow():
    code = "import sys; sys.modules['tensorflow'] = None; import returnn.tensor; from returnn.tensor import Tensor; Tensor('x', dim=3)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dense_template_of_sparse():
    sparse = Tensor("s", dim=5, sparse=True)
    dense = sparse.copy_as_dense_template()
    assert dense.batch_shape == (None, None, 5) and dense.feature_dim_axis == 2 and not dense.sparse


def test_axis_error_pickles():
    import pickle
    data = Data("x", dim=3)
    with pytest.raises(AxisDescriptionError) as info:
        data.get_axes_from_description("foo")
    copy = pickle.loads(pickle.dumps(info.value.with_layer("out")))
    assert str(copy) == str(info.value.with_layer("out")) and copy.layer == "out"


def test_pickle_and_copy_keep_a_numpy_raw_tensor_drop_others():
    # observed on the reference: a numpy raw tensor survives pickle (equal values) and copy.copy (same object);
    # a raw tensor of another backend (here a stand-in object) is dropped
    import copy
    import pickle
    import numpy
    from returnn.tensor import Dim, Tensor
    t = Tensor("data", dims=[Dim(10)], dtype="int32", raw_tensor=numpy.arange(10, dtype="int32"))
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.name == "data" and t2.dtype == "int32"
    numpy.testing.assert_array_equal(t2.raw_tensor, numpy.arange(10))
    assert copy.copy(t).raw_tensor is t.raw_tensor
    t3 = Tensor("x", dims=[Dim(3)], dtype="float32")
    t3.placeholder = object()
    assert copy.copy(t3).placeholder is None
