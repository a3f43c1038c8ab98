"""Time/feature axes: explicit vs. derived from the dims (``*_or_unspecified``), shape-based dim naming, and how the
copies keep them. Expected values observed by running the reference (``Data`` version 1)."""

import pytest

from returnn.tensor import Data, Dim, FeatureDim, NotSpecified, SpatialDim, batch_dim


def _axes(d):
    def spec(v):
        return "NS" if v is NotSpecified else v
    return d.time_dim_axis, d.feature_dim_axis, spec(d.time_dim_axis_or_unspecified), \
        spec(d.feature_dim_axis_or_unspecified)


T, S3, F5, FD = SpatialDim("T"), SpatialDim("S3", 3), FeatureDim("F5", 5), FeatureDim("FD", None)


@pytest.mark.parametrize("dims, expected", [
    # the auto feature axis: the last static non-time axis whatever its kind, else the last non-time axis
    ([batch_dim, F5, T, S3], (2, 3)), ([batch_dim, T, S3, F5], (1, 3)), ([batch_dim, F5, S3], (None, 2)),
    ([batch_dim, T], (1, None)), ([batch_dim, T, SpatialDim("T2")], (1, 2)), ([batch_dim, FD, T], (2, 1)),
    ([batch_dim, F5, FD], (2, 1)), ([F5, T], (1, 0)), ([T], (0, None)), ([S3], (None, 0)),
])
def test_auto_axes_from_dims_like_reference(dims, expected):
    d = Data("x", dims=dims)
    assert (d.time_dim_axis, d.feature_dim_axis) == expected
    assert d.time_dim_axis_or_unspecified is NotSpecified and d.feature_dim_axis_or_unspecified is NotSpecified


@pytest.mark.parametrize("kwargs, text, axes", [
    (dict(shape=(None, 11), feature_dim_axis=-1), "[B,T|'time:var-unk:x'[B],F|F'feature:x'(11)]", (1, 2, "NS", 2)),
    (dict(time_dim_axis=2, feature_dim_axis=1, dim=11), "[B,F|F'feature:x'(11),T|'time:var-unk:x'[B]]",
     (2, 1, 2, 1)),
    (dict(dim=11, feature_dim_axis=3), "[B,T|'time:var-unk:x'[B],'spatial1:var-unk:x'[B],F|F'feature:x'(11)]",
     (1, 3, "NS", 3)),
    (dict(batch_dim_axis=None, time_dim_axis=None, feature_dim_axis=None), "[]", (None, None, None, None)),
    (dict(shape=(None, 3, None)), "[B,T|'time:var-unk:x'[B],F|F'feature:x'(3),'spatial1:var-unk:x'[B]]",
     (1, 2, "NS", "NS")),
    (dict(shape=(None, 3, 5), time_dim_axis=2), "[B,'spatial0:var-unk:x'[B],T|'time:static3:x'(3),F|F'feature:x'(5)]",
     (2, 3, 2, "NS")),
    (dict(shape=(None,), feature_dim_axis=1), "[B,T|F|'time:var-unk:x'[B]]", (1, 1, "NS", 1)),
    (dict(dim=5, batch_dim_axis=None), "[F|F'feature:x'(5)]", (None, 0, "NS", "NS")),
])
def test_shape_construction_like_reference(kwargs, text, axes):
    d = Data("x", **kwargs)
    assert d.get_dims_repr().replace("[?]", "[B]") == text and _axes(d) == axes


def test_copies_keep_auto_axes_like_reference():
    a = Data("a", shape=(None, 3, 5))  # [B,T,S3,F5], both auto
    assert _axes(a.copy_move_axis(3, 1)) == (2, 1, "NS", 1)  # the feature axis moved: explicit
    assert _axes(a.copy_move_axis(2, 1)) == (2, 3, "NS", "NS")
    assert _axes(a.copy_as_time_major()) == (0, 3, "NS", "NS")
    assert _axes(a.copy_template_excluding_axis(3)) == (1, 2, 1, "NS")  # a remaining time axis: explicit
    assert _axes(a.copy_template_excluding_time_dim()) == (None, 2, "NS", "NS")
    assert _axes(a.copy_add_spatial_dim(1, auto_time_dim_axis=False)) == (2, 4, 2, "NS")
    assert _axes(a.copy_add_feature_dim()) == (1, 4, 1, "NS")
    assert _axes(a.copy_add_feature_dim(1)) == (2, 1, 2, 1)
    b = Data("b", shape=(None, 3, 5), feature_dim_axis=2)
    assert _axes(b.copy_add_feature_dim()) == (1, 3, 1, 3)  # right after the feature axis
    assert _axes(b.copy_add_dim_by_tag(FeatureDim("f6", 6), unbroadcast=True)) == (1, 2, 1, 2)
    e = Data("e", shape=(1,), time_dim_axis=None)
    assert _axes(e.copy_add_spatial_dim(2)) == (2, 1, 2, "NS")
    assert _axes(e.copy_add_spatial_dim(2, auto_time_dim_axis=False)) == (None, 2, "NS", "NS")
    d = Data("d", shape=(None,), dtype="int32", batch_dim_axis=None, time_dim_axis=None, feature_dim_axis=None)
    assert _axes(d.copy_add_dim_by_tag(FeatureDim("r", 6), unbroadcast=True)) == (None, 1, None, "NS")
    assert _axes(d.copy_add_dim_by_tag(SpatialDim("s", 6), unbroadcast=True)) == (0, None, "NS", None)


def test_default_new_axis_for_dim_tag_like_reference():
    a = Data("a", shape=(None, 3, 5))  # [B,T,S3,F5]
    assert a.get_default_new_axis_for_dim_tag(SpatialDim("s6", 6)) == 3
    assert a.get_default_new_axis_for_dim_tag(SpatialDim("dyn")) == 2  # after the last dynamic spatial axis
    assert a.get_default_new_axis_for_dim_tag(FeatureDim("f6", 6)) == 4
    b = Data("b", shape=(None, 3, 5), feature_dim_axis=2)  # [B,T,F3,S5]
    assert b.get_default_new_axis_for_dim_tag(FeatureDim("f6", 6)) == 3
    assert b.get_default_new_axis_for_dim_tag(SpatialDim("s6", 6)) == 4


def test_sparse_feature_tag_becomes_spatial_like_reference():
    f = Data("f", shape=(None,), dtype="int32", sparse=True, dim=4)
    f6 = FeatureDim("f6", 6)
    out = f.copy_add_dim_by_tag(f6, unbroadcast=True)
    assert out.dims[2] == f6 and not out.dims[2].is_feature_dim() and out.feature_dim_axis is None


def test_sparse_with_feature_axis_is_an_error():
    with pytest.raises(Exception, match="sparse"):
        Data("x", shape=(None, 3), sparse=True, dim=7, feature_dim_axis=2)


def test_positional_dims_and_raw_tensor_kwarg():
    a, b = Dim(3, name="a"), FeatureDim("b", 2)
    x = Data("x", [a, b], "int32", raw_tensor="raw")
    assert x.dims == (a, b) and x.dtype == "int32" and x.placeholder == "raw"
    assert Data("x", [None, 3]).batch_shape == (None, None, 3)  # ints/None there: a shape


@pytest.mark.parametrize("kwargs, names", [  # observed from the reference: without a batch axis, the time axis is
    # named "time" only when time_dim_axis is given
    (dict(shape=(5, 3), batch_dim_axis=None, time_dim_axis=0), ["time:static5:x", "feature:x"]),
    (dict(shape=(None, 3), batch_dim_axis=None, time_dim_axis=0), ["time:var-unk:x", "feature:x"]),
    (dict(shape=(None, 3), batch_dim_axis=None), ["spatial0:var-unk:x", "feature:x"]),
    (dict(shape=(5, 4, 3), batch_dim_axis=None, time_dim_axis=1), ["spatial0:static5:x", "time:static4:x",
                                                                   "feature:x"]),
])
def test_time_axis_name_without_batch_axis_like_reference(kwargs, names):
    assert [d.description for d in Data("x", **kwargs).dims] == names
