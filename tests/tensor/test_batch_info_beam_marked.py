"""``BatchInfo``, ``SearchBeam``, marked dims, ``ControlFlowContext``, ``single_step_dim``: expectations observed by
running the reference (``returnn.tf.util.data``)."""

import pickle

import pytest

from returnn.tensor import (BatchInfo, ControlFlowContext, Dim, FeatureDim, ImplicitDynSizeDim, ImplicitSparseDim,
                            OptionalDim, SearchBeam, SpatialDim, VerifyOutShapeException, batch_dim, single_step_dim)


def test_search_beam_repr_and_equality():
    assert repr(SearchBeam(3)) == "SearchBeam(name=None, beam_size=3)"
    x = SearchBeam(3, name="x")
    y = SearchBeam(4, dependency=x, name="y")
    assert repr(y) == "SearchBeam(name='y', beam_size=4, dependency=SearchBeam(name='x', beam_size=3))"
    assert SearchBeam(3) != SearchBeam(3)  # unnamed: identity
    assert SearchBeam(3, name="x") == SearchBeam(4, name="x")  # named: by name only
    assert hash(SearchBeam(3)) == hash(SearchBeam(3))


def test_search_beam_combined_and_prev_frame():
    a, b = SearchBeam(3, name="a"), SearchBeam(3, name="b")
    c = SearchBeam(4, dependency=a, name="c")
    assert SearchBeam.get_combined_beam(a, c) is c and SearchBeam.get_combined_beam(c, a) is c
    assert SearchBeam.get_combined_beam(None, None) is None and SearchBeam.get_combined_beam(a, None) is a
    assert SearchBeam.get_combined_beam(a, None, c) is c
    with pytest.raises(Exception):
        SearchBeam.get_combined_beam(a, b)
    prev = a.copy_as_prev_frame()
    assert repr(prev) == "SearchBeam(name='/prev:a', beam_size=3)"
    assert SearchBeam.get_combined_beam(prev, a) is a and SearchBeam.get_combined_beam(a, prev) is a
    assert prev.copy_as_prev_frame() is prev


def test_batch_info_global_and_beam():
    bi = BatchInfo.make_global_batch_info(-1)
    assert repr(bi) == "BatchInfo{B}" and bi.dim == -1 and bi.static_dim == -1 and bi.beam is None
    assert bi.is_global_batch() and not bi.is_broadcast() and bi.get_global_base() is bi
    assert isinstance(bi.virtual_dims[0], BatchInfo.GlobalBatchDim) and repr(bi.virtual_dims[0]) == "GlobalBatchDim{B}"
    assert BatchInfo.make_global_batch_info(-1) is not bi
    beam = SearchBeam(3)
    bb = bi.copy_extend_with_beam(beam)
    assert repr(bb) == "BatchInfo{B, Beam{None}(3)}" and bb.short_repr() == "B&Beam{None}(3)"
    assert bb.dim == -3 and bb.static_dim == -3 and bb.beam is beam and not bb.is_global_batch()
    assert bi.copy_extend_with_beam(beam) is bb and bb.copy_remove_beam() is bi and bb.base is bi
    assert bi.copy_set_beam(beam) is bb and bi.copy_set_beam(None) is bi


def test_batch_info_fixed_padded_packed():
    bi = BatchInfo.make_global_batch_info(-1)
    x = bi.copy_extend_with_padded_or_fixed_dim_tag(FeatureDim("f", 5), batch_major=True)
    assert repr(x) == "BatchInfo{B, F(5)}" and x.dim == -5 and x.get_base_chain() == [bi]
    assert isinstance(x.virtual_dims[1], BatchInfo.FixedDim)
    y = bi.copy_extend_with_padded_or_fixed_dim_tag(FeatureDim("f", 5), batch_major=False)
    assert repr(y) == "BatchInfo{F(5), B}"
    assert x.copy_remove_dim(x.virtual_dims[1]) is bi
    xb = x.copy_extend_with_beam(SearchBeam(3, name="x"))
    assert repr(xb) == "BatchInfo{B, Beam{'x'}(3), F(5)}" and xb.get_base_chain() == [x, bi]
    assert BatchInfo.get_common_batch_info([bi, x]) is x and BatchInfo.get_common_batch_info([x, bi]) is x
    assert BatchInfo.get_common_batch_info([None, bi]) is bi and BatchInfo.get_common_batch_info([]) is None
    bc = BatchInfo.make_global_broadcast_batch_info()
    assert repr(bc) == "BatchInfo{}" and bc.is_broadcast() and bc.dim == 1
    assert BatchInfo.make_global_broadcast_batch_info() is bc and BatchInfo.get_common_batch_info([bi, bc]) is bi
    t = SpatialDim("t")
    t.dyn_size = [3, 2]  # any object as lengths: the packed dim only refers to it
    p = bi.copy_extend_with_packed_dim_tag(t, batch_major=True)
    assert repr(p) == "BatchInfo{B, Packed{'t'}}" and p.virtual_dims[1].sizes == [3, 2]
    assert isinstance(p.virtual_dims[1], BatchInfo.PackedDim) and p.static_dim is None


def test_marked_dims():
    a, b = SpatialDim("a"), SpatialDim("b", 2)
    sa, da, sb, oa = ImplicitSparseDim(a), ImplicitDynSizeDim(a), ImplicitSparseDim(b), OptionalDim(a)
    assert repr(sa) == "ImplicitSparseDim(Dim{'a'[?]})" and repr(oa) == "OptionalDim(Dim{'a'[?]})"
    assert sa == ImplicitSparseDim(a) and hash(sa) == hash(ImplicitSparseDim(a)) and sa != da and sa != a
    assert sorted([sb, sa, oa, da, b, a]) == [a, b, da, sa, sb, oa]
    with pytest.raises(TypeError):
        sa < 3  # noqa: B015
    assert pickle.loads(pickle.dumps(sa)).tag is not a  # a pickled dim is a new dim


def test_dim_sorted_by_creation():
    a, b, c = SpatialDim("a"), SpatialDim("b", 2), FeatureDim("c", 3)
    assert sorted((c, a, c, b)) == [a, b, c, c]
    with pytest.raises(TypeError):
        a < 3  # noqa: B015


def test_single_step_dim_and_pickle():
    assert repr(single_step_dim) == "Dim{'single-step'!}" and single_step_dim.dimension == 1
    assert single_step_dim.is_spatial_dim()
    assert pickle.loads(pickle.dumps(single_step_dim)) is single_step_dim
    assert pickle.loads(pickle.dumps(batch_dim)) is batch_dim
    assert repr(Dim(None, name="y", kind=Dim.Types.Feature, special=True)) == "Dim{F'y'!}"


def test_control_flow_ctx():
    outer = ControlFlowContext(kind=ControlFlowContext.Types.Loop, identifier="rec")
    inner = ControlFlowContext(kind="loop", identifier="rec/inner", outer_ctx=outer)
    assert repr(outer) == "ControlFlowContext{loop}" and repr(inner) == "ControlFlowContext{loop/loop}"
    assert inner.is_loop() and not inner.is_cond() and inner.outer_ctx is outer
    assert ControlFlowContext.abs_ctx_stack(inner) == [outer, inner]
    assert ControlFlowContext.abs_ctx_stack_with_root(inner) == [None, outer, inner]
    assert ControlFlowContext.is_parent_or_same(outer, inner) and not ControlFlowContext.is_parent_or_same(inner, outer)
    assert ControlFlowContext.Types.CondTrue == "cond-true"


def test_verify_out_shape_exception_is_exception():
    assert issubclass(VerifyOutShapeException, Exception)
