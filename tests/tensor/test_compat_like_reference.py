"""``copy_compatible_to``, ``get_common_data``, ``Dim.is_equal`` options, ``find_matching_dims``,
``get_all_dimension_tags``, ``verify_out_shape``: expectations observed by running the reference (with the latest
behavior version where it matters, as its tests run)."""

import pytest

from returnn.tensor import (Data, Dim, FeatureDim, ImplicitDynSizeDim, ImplicitSparseDim, NotSpecified, OptionalDim,
                            SpatialDim, VerifyOutShapeException, batch_dim)
from returnn.util.behavior_version import BehaviorVersion


def test_copy_compatible_to_adds_broadcast_batch_like_reference():
    d1 = Data("d1", shape=(None, 1), time_dim_axis=None)
    d2 = Data("d2", shape=(), batch_dim_axis=None, time_dim_axis=None)
    d3 = d2.copy_compatible_to(d1)
    assert d3.batch_shape == (1, 1, 1) and d3.get_static_batch_dim() == 1
    assert d3.get_dims_repr() == "[B|B'batch-broadcast'(1),'spatial0:var-unk:d1_dummy_dim1'(1),F|F'feature:d1'(1)]"
    x = Data("input", dims=[batch_dim, SpatialDim("time"), FeatureDim("feature-spatial", 10), FeatureDim("f", 14)])
    bias = Data("bias", dims=[x.dims[3]])
    b_ = bias.copy_compatible_to(x)
    assert b_.batch_shape == (1, 1, 1, 14) and b_.time_dim_axis == 1 and b_.feature_dim_axis == 3
    assert b_.time_dim_axis_or_unspecified == 1 and b_.feature_dim_axis_or_unspecified is NotSpecified


def test_copy_compatible_to_prefers_the_same_dim_object():
    feat = FeatureDim("feature", 2)
    in_dim = feat.copy(match_priority=1)
    x = Data("x", [in_dim, feat], "float32")
    y = x.copy_compatible_to(Data("y", [feat, in_dim], "float32"))
    assert y.dims[0] is feat and y.dims[1] is in_dim
    assert x.copy_transpose([feat, in_dim]).dims[0] is feat
    assert x.copy_compatible_to_dims([feat, in_dim]).dims[1] is in_dim


def test_get_common_data_like_reference(latest_behavior):
    a = Data("a", dims=[batch_dim, SpatialDim("T"), FeatureDim("in", 3)])
    feat = FeatureDim("feat", 3)
    out = Data.get_common_data([a, Data("b", dims=[feat])], allow_broadcast_all_sources=True)
    assert out.dims == a.dims + (feat,) and out.time_dim_axis_or_unspecified == 1
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="require broadcasting"):
        Data.get_common_data([a, Data("b", dims=[feat])])
    # auto-generated dims of the same static size match (feature counts as spatial)
    x = Data("x", shape=(5, 5, 3), batch_dim_axis=None)
    assert Data.get_common_data([x, Data("y", shape=(5,), batch_dim_axis=None)]).dims == x.dims
    tb = Data.get_common_data([Data("a", shape=(None,), time_dim_axis=0, batch_dim_axis=1),
                               Data("b", shape=(5,), batch_dim_axis=0)], allow_broadcast_all_sources=True)
    assert tb.get_dims_repr().replace("[?]", "[B]") == "[T|'time:var-unk:a'[B],B,F|F'feature:b'(5)]"


def test_is_equal_options_like_reference(latest_behavior):
    s5a, s5b = SpatialDim("s5a", 5), SpatialDim("s5b", 5)
    g1, g5 = SpatialDim("g1", 1, auto_generated=True), SpatialDim("g5", 5, auto_generated=True)
    g5b = FeatureDim("g5b", 5, auto_generated=True)
    t = SpatialDim("t")
    loose = dict(allow_same_feature_dim=True, allow_same_spatial_dim=True, treat_feature_as_spatial=True)
    assert not s5a.is_equal(s5b, **loose)  # behavior version 16: user dims do not match loosely
    assert g5.is_equal(g5b, **loose) and not g5.is_equal(g5b)
    assert g1.is_equal(t, broadcast_matches=True, **loose) and not g1.is_equal(t, **loose)
    assert t.is_equal(t * 2, derived_matches=True) and not t.is_equal(t * 2)
    assert FeatureDim("a", 3).is_equal(FeatureDim("b", 4), ignore_feature_dim=True)


def test_is_equal_before_behavior_version_16():
    s5a, s5b = SpatialDim("s5a", 5), SpatialDim("s5b", 5)
    assert s5a.is_equal(s5b, allow_same_spatial_dim=True)
    assert s5a.is_equal(FeatureDim("f", 5), allow_same_spatial_dim=True, treat_feature_as_spatial=True)
    assert SpatialDim("a").is_equal(SpatialDim("b"), unknown_spatial_matches=True)


def test_find_matching_dims_and_map_like_reference():
    d1 = Data("p1", shape=(5, 5, 3), batch_dim_axis=None, time_dim_axis=None)
    d2 = Data("p2", shape=(5, 1, 1), batch_dim_axis=None, time_dim_axis=None)
    opts = dict(allow_same_feature_dim=True, allow_same_spatial_dim=True, treat_feature_as_spatial=True)
    assert d1.find_matching_dims(d2.dims[0], is_equal_opts=opts) == [0, 1]
    assert d1.find_matching_dims(d2.dims[1], is_equal_opts=opts) == []
    assert d1.find_matching_dims(d2.dims[1], is_equal_opts=dict(opts, broadcast_matches=True)) == [0, 1, 2]
    assert d1.find_matching_dim_map(d2, [0, 1, 2]) == {0: 0, 1: 1, 2: 2}
    in_dim = Dim(7, name="in")
    filter_in = in_dim.copy(match_priority=1)
    f = Data("filter", [in_dim, filter_in, Dim(4, name="size")], "float32")
    assert f.find_matching_dim_map(Data("o", [filter_in, in_dim], "float32"), [0, 1]) == {0: 1, 1: 0}


def test_get_all_dimension_tags_like_reference():
    t, in_dim, out_dim = SpatialDim("time"), FeatureDim("input", 13), FeatureDim("output", 13)
    a, b = Data("a", dims=(batch_dim, t, in_dim)), Data("b", dims=(in_dim, out_dim))
    dims, per_data = Dim.get_all_dimension_tags([a, b])
    assert dims == [batch_dim, t, in_dim, out_dim] and per_data[b] == [in_dim, out_dim]
    derived = SpatialDim("derived", derived_from_tag=t)
    c = Data("c", dims=[batch_dim, derived, in_dim])
    dims, _ = Dim.get_all_dimension_tags([c, a], is_equal_opts=dict(derived_matches=True))
    assert dims == [batch_dim, derived, in_dim]


def test_verify_out_shape_like_reference():
    t, f, c = SpatialDim("T"), FeatureDim("F", 3), FeatureDim("C", 5)
    x = Data("x", dims=[batch_dim, t, f])
    x.verify_out_shape({batch_dim, t, f})
    x.verify_out_shape({batch_dim, t, f, OptionalDim(c)})
    with pytest.raises(VerifyOutShapeException, match="Missing dims: Dim{B}"):
        x.verify_out_shape({t, f})
    with pytest.raises(VerifyOutShapeException, match="not in self"):
        x.verify_out_shape({batch_dim, t, f, c})
    with pytest.raises(TypeError, match="expects a set"):
        x.verify_out_shape([batch_dim, t, f])
    with pytest.raises(VerifyOutShapeException, match="Missing dims"):  # an empty tuple: the empty set
        x.verify_out_shape(())
    Data("scalar", dims=[]).verify_out_shape(())
    Data("scalar", dims=[]).verify_out_shape([])
    s = Data("s", dims=[batch_dim, t], sparse_dim=c)
    assert s.dim_tags_set_implicit_only_wrapped == {ImplicitSparseDim(c)}
    s.verify_out_shape({batch_dim, t, ImplicitSparseDim(c)})
    s.verify_out_shape({batch_dim, t, c})
    s.verify_out_shape({batch_dim, t}, allow_missing_implicit_dims=True)
    with pytest.raises(VerifyOutShapeException, match="Missing dims"):
        s.verify_out_shape({batch_dim, t})
    time = SpatialDim("time")
    time.dyn_size_ext = Data("size", dims=[batch_dim], dtype="int32")  # a template: lengths [B]
    y = Data("y", dims=[time, f])
    assert y.dim_tags_set_implicit_only_wrapped == {ImplicitDynSizeDim(batch_dim)}
    y.verify_out_shape({time, f, ImplicitDynSizeDim(batch_dim)})


def test_vocab_from_the_feature_dim():
    feat = FeatureDim("feat", 3)
    feat.vocab = vocab = object()
    data = Data("data", dims=[batch_dim, SpatialDim("time"), feat])
    assert data.vocab is vocab and data.copy().vocab is vocab
