"""Axis lookup by ``stag:<name>`` and by Dim. ``stag:<name>``: the reference's looser matches (observed with
``Data.get_axes_from_description``): a substring of the description of exactly one spatial axis; several matches
are an error. A Dim that occurs twice: the higher ``match_priority`` wins, else it is an error."""

import pytest

from returnn.errors import AxisDescriptionError
from returnn.tensor import Tensor
from returnn.tensor.axes import mark_dims_created_by
from returnn.tensor.dim import FeatureDim, SpatialDim, batch_dim


def _y():
    dims = [batch_dim, SpatialDim("time:var:extern_data:data2", None), SpatialDim("time:var:extern_data:data", None),
            SpatialDim("heads", 3), FeatureDim("feat", 4)]
    return Tensor("y", dims=dims, time_dim_axis=1, feature_dim_axis=4)


@pytest.mark.parametrize("desc, expected", [
    # observed from the reference for [B, T 'time:var:extern_data:data2', 'time:var:extern_data:data', 'heads'(3), F]
    ("stag:heads", [3]), ("stag:head", [3]), ("stag:eads", [3]), ("stag:data2", [1]),
    ("stag:time:var:extern_data:data2", [1]),
])
def test_stag_substring_of_one_spatial_axis(desc, expected):
    assert _y().get_axes_from_description(desc) == expected


def test_stag_substring_of_several_axes_is_an_error():
    # the reference: "tag name 'var' is not unique"
    with pytest.raises(AxisDescriptionError, match="not unique"):
        _y().get_axes_from_description("stag:var")
    with pytest.raises(AxisDescriptionError, match="no dim with that name"):
        _y().get_axes_from_description("stag:lstm")


def test_stag_by_the_name_of_the_layer_that_created_the_dim():
    t = SpatialDim("⌈time:var:extern_data:data/3⌉", None)
    data_time = SpatialDim("time:var:extern_data:data", None)
    src = Tensor("src", dims=[batch_dim, data_time, FeatureDim("f", 4)])
    out = Tensor("pool", dims=[batch_dim, t, FeatureDim("f2", 4)])
    mark_dims_created_by("lstm0_pool", out, src.dims)
    mark_dims_created_by("later_copy", out, src.dims)  # the first creator stays
    mark_dims_created_by("lstm_copy", out, out.dims)  # all dims known: nothing is marked
    r = Tensor("r", dims=[batch_dim, t])
    assert r.get_axes_from_description("stag:lstm") == [1] and r.get_axes_from_description("stag:pool") == [1]
    assert r.get_axes_from_description("stag:data/3") == [1]
    with pytest.raises(AxisDescriptionError):
        r.get_axes_from_description("stag:later")


def test_dim_twice_picks_the_higher_match_priority_else_is_ambiguous():
    # observed from the reference: [F, F] -> error "must be unique"; [F(prio 1), F] -> 0; [F, F(prio 1)] -> 1;
    # [F(prio -1), F] -> 1 (also when asking with the priority-1 copy)
    feat = FeatureDim("feat", 3)
    with pytest.raises(AxisDescriptionError, match="must be unique"):
        Tensor("x", dims=[feat, feat]).get_axes_from_description(feat)
    assert Tensor("x", dims=[feat.copy(match_priority=1), feat]).get_axes_from_description(feat) == [0]
    assert Tensor("x", dims=[feat, feat.copy(match_priority=1)]).get_axis_from_description(feat) == 1
    x = Tensor("x", dims=[feat.copy(match_priority=-1), feat])
    assert x.get_axis_from_description(feat.copy(match_priority=1)) == 1


def test_stag_single_picks_one_of_several_matches():
    """``stag-single:<i>:<name>``: the i-th of the axes ``stag:<name>`` finds (the reference's form, used e.g. on
    attention energies moved out of a rec loop with the same time Dim twice)."""
    time = SpatialDim("time", None)
    y = Tensor("y", dims=[batch_dim, time, FeatureDim("heads", 2), time], time_dim_axis=1, feature_dim_axis=2)
    assert y.get_axes_from_description("stag:time") == [1, 3]
    assert y.get_axes_from_description("stag-single:-1:time") == [3]
    assert y.get_axes_from_description("stag-single:0:time") == [1]
    with pytest.raises(AxisDescriptionError, match="out of range"):
        y.get_axes_from_description("stag-single:2:time")
    with pytest.raises(AxisDescriptionError, match="stag-single"):
        y.get_axes_from_description("stag-single:x:time")


def test_stag_substring_also_of_a_dynamic_feature_axis():
    # observed from the reference: [B, T 'expand'(1), F 'time:var:extern_data:data+1'] (a dynamic axis as the feature
    # axis, e.g. after squeezing the feature axis of a layer moved out of a rec loop): "stag:extern_data:data" finds
    # it (the reference counts a dynamic feature axis as spatial); a static feature axis does not count
    dims = [batch_dim, SpatialDim("expand", 1), SpatialDim("time:var:extern_data:data+1", None)]
    y = Tensor("y", dims=dims, time_dim_axis=1, feature_dim_axis=2)
    assert y.get_axes_from_description("stag:extern_data:data") == [2]
    with pytest.raises(AxisDescriptionError, match="no dim with that name"):
        _y().get_axes_from_description("stag:eat")
