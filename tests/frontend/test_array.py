"""Array ops against numpy: dims and values of each result, and the errors for a dim not in the tensor."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, batch_dim

RND = np.random.RandomState(3)
A, B, F = Dim(3, name="a"), Dim(4, name="b"), Dim(2, name="f")
XV = RND.randn(3, 4).astype("float32")


def test_range_zeros_full(g):
    r = rf.range_over_dim(B)
    z = rf.zeros([A, B])
    o = rf.ones([A], dtype="int32")
    c = rf.constant(2.5, dims=[F])
    assert r.dims == (B,) and r.sparse_dim == B and r.dtype == "int32"
    assert z.dims == (A, B) and z.dtype == "float32" and o.dtype == "int32"
    vr, vz, vo, vc = g.run(r, z, o, c)
    np.testing.assert_array_equal(vr, np.arange(4))
    np.testing.assert_array_equal(vz, np.zeros((3, 4)))
    np.testing.assert_array_equal(vo, np.ones(3))
    np.testing.assert_array_equal(vc, [2.5, 2.5])
    x = g.const("x", [A, B], XV)
    np.testing.assert_array_equal(g.run(rf.zeros_like(x)), np.zeros((3, 4)))
    t = rf.convert_to_tensor(np.arange(3, dtype="int32"), dims=[A])
    assert t.dims == (A,) and t.dtype == "int32"
    with pytest.raises(FrontendError, match="1 axes, but 2 dims"):
        rf.convert_to_tensor(np.arange(3), dims=[A, B])


def test_sequence_mask_and_last_frame(g):
    time = g.time_dim([3, 1])
    m = rf.sequence_mask([batch_dim, time])
    last = rf.last_frame_position_of_dim(time)
    assert set(m.dims) == {batch_dim, time} and m.dtype == "bool"
    vm, vl = g.run(m, last)
    np.testing.assert_array_equal(vm, [[True, True, True], [True, False, False]])
    np.testing.assert_array_equal(vl, [2, 0])


def test_where_gather_scatter(g):
    x = g.const("x", [A, B], XV)
    w = rf.where(x > 0.0, x, 0.0)
    idx = g.const("idx", [F], [3, 1], "int32", sparse_dim=B)
    gat = rf.gather(x, indices=idx)
    assert gat.dims == (F, A)
    per_a = g.const("ia", [A], [0, 3, 2], "int32", sparse_dim=B)
    gat2 = rf.gather(x, indices=per_a)
    assert gat2.dims == (A,)
    vals = g.const("v", [F], [1.0, 2.0], "float32")
    sc = rf.scatter(vals, indices=idx, indices_dim=F)
    assert sc.dims == (B,)
    vw, vg, vg2, vs = g.run(w, gat, gat2, sc)
    np.testing.assert_allclose(vw, np.where(XV > 0, XV, 0))
    np.testing.assert_allclose(vg, XV[:, [3, 1]].T)
    np.testing.assert_allclose(vg2, XV[np.arange(3), [0, 3, 2]])
    np.testing.assert_allclose(vs, [0.0, 2.0, 0.0, 1.0])
    with pytest.raises(FrontendError, match=r"rf.gather: dim Dim\{'f'\(2\)\} is not a dim of 'x'"):
        rf.gather(x, indices=idx, axis=F)


def test_concat_pad_slice_shift(g):
    x = g.const("x", [A, B], XV)
    y = g.const("y", [A, F], XV[:, :2] * 2)
    cat, cat_dim = rf.concat((x, B), (y, F))
    assert cat_dim.dimension == 6 and cat.dims == (A, cat_dim)
    padded, (pdim,) = rf.pad(x, axes=[B], padding=[(1, 2)], value=7.0)
    assert pdim.dimension == 7 and padded.dims == (A, pdim)
    sl, sdim = rf.slice(x, axis=B, start=1, end=3)
    assert sdim.dimension == 2
    sh = rf.shift_right(x, axis=B, pad_value=0.0)
    assert sh.dims == (A, B)
    v = g.run(cat, padded, sl, sh)
    np.testing.assert_allclose(v[0], np.concatenate([XV, XV[:, :2] * 2], axis=1))
    np.testing.assert_allclose(v[1], np.pad(XV, [(0, 0), (1, 2)], constant_values=7.0))
    np.testing.assert_allclose(v[2], XV[:, 1:3])
    np.testing.assert_allclose(v[3], np.pad(XV, [(0, 0), (1, 0)])[:, :4])
    with pytest.raises(FrontendError, match="the other dims differ"):
        rf.concat((x, B), (g.const("z", [F, F.copy(match_priority=1)], np.zeros((2, 2), "float32")), F))


def test_concat_dynamic_and_pad_dynamic(g):
    t1, t2 = g.time_dim([2, 1], "t1"), g.time_dim([1, 3], "t2")
    xv = np.array([[1, 2, 9], [3, 9, 9]], "float32")
    yv = np.array([[4, 9, 9], [5, 6, 7]], "float32")
    x = g.const("x", [batch_dim, t1], xv[:, :2])
    y = g.const("y", [batch_dim, t2], yv)
    cat, cat_dim = rf.concat((x, t1), (y, t2))
    padded, (pdim,) = rf.pad(x, axes=[t1], padding=[(1, 1)], value=-1.0)
    vc, vlen, vp = g.run(cat, cat_dim.dyn_size_ext, padded)
    np.testing.assert_array_equal(vlen, [3, 4])
    np.testing.assert_allclose(vc[0, :3], [1, 2, 4])
    np.testing.assert_allclose(vc[1, :4], [3, 5, 6, 7])
    np.testing.assert_allclose(vp[0], [-1, 1, 2, -1])
    np.testing.assert_allclose(vp[1, :3], [-1, 3, -1])


def test_merge_split_squeeze_expand_stack(g):
    x = g.const("x", [A, B], XV)
    merged, mdim = rf.merge_dims(x, dims=[A, B])
    assert mdim.dimension == 12 and merged.dims == (mdim,)
    two, six = Dim(2, name="two"), Dim(6, name="six")
    split = rf.split_dims(merged, axis=mdim, dims=[two, six])
    assert split.dims == (two, six)
    p1, p2 = rf.split(x, axis=B, out_dims=[Dim(1, name="b1"), Dim(3, name="b3")])
    one = p1.dims[1]
    sq = rf.squeeze(p1, axis=one)
    ex = rf.expand_dim(x, F)
    st, st_dim = rf.stack([x, x * 2.0])
    assert sq.dims == (A,) and ex.dims == (F, A, B) and st.dims == (st_dim, A, B) and st_dim.dimension == 2
    v = g.run(merged, split, p2, sq, ex, st)
    np.testing.assert_allclose(v[0], XV.reshape(12))
    np.testing.assert_allclose(v[1], XV.reshape(2, 6))
    np.testing.assert_allclose(v[2], XV[:, 1:])
    np.testing.assert_allclose(v[3], XV[:, 0])
    np.testing.assert_allclose(v[4], np.broadcast_to(XV, (2, 3, 4)))
    np.testing.assert_allclose(v[5], np.stack([XV, XV * 2]))
    with pytest.raises(FrontendError, match="must have size 1"):
        rf.squeeze(x, axis=A)
    with pytest.raises(FrontendError, match="has dim"):
        rf.expand_dim(x, A)


def test_reverse_cumsum_masked_select_one_hot_window(g):
    time = g.time_dim([3, 2])
    xv = np.array([[1, 2, 3], [4, 5, 9]], "float32")
    x = g.const("x", [batch_dim, time], xv)
    rev = rf.reverse_sequence(x, axis=time)
    cs = rf.cumsum(x, spatial_dim=time)
    sel, sel_dim = rf.masked_select(x, mask=x > 1.5, dims=[batch_dim, time])
    n = Dim(3, name="n")
    labels = g.const("l", [n], [0, 2, 1], "int32", sparse_dim=A)
    oh = rf.one_hot(labels)
    win_dim = Dim(3, name="win")
    win, win_spatial = rf.window(g.const("w", [B], [1.0, 2.0, 3.0, 4.0]), spatial_dim=B, window_dim=win_dim)
    assert oh.dims == (n, A) and oh.dtype == "float32"
    v = g.run(rev, cs, sel, sel_dim.dyn_size_ext, oh, win)
    np.testing.assert_allclose(v[0][0], [3, 2, 1])
    np.testing.assert_allclose(v[0][1, :2], [5, 4])
    np.testing.assert_allclose(v[1][0], [1, 3, 6])
    np.testing.assert_allclose(v[1][1, :2], [4, 9])
    np.testing.assert_allclose(v[2], [2, 3, 4, 5, 9])
    assert v[3] == 5
    np.testing.assert_allclose(v[4], np.eye(3)[[0, 2, 1]])
    np.testing.assert_allclose(v[5], [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0]])
    assert win.dims == (win_spatial, win_dim) and win_spatial == B


def test_replace_dim_and_set_sparse_dim(g):
    x = g.const("x", [A, B], XV)
    new_b = Dim(4, name="b2")
    y, d = rf.replace_dim(x, in_dim=B, out_dim=new_b)
    assert d is new_b and y.dims == (A, new_b)
    i = g.const("i", [A], [0, 1, 2], "int32")
    assert rf.set_sparse_dim(i, B).sparse_dim == B
    bigger = Dim(6, name="b6")
    v = rf.replace_dim_v2(x, in_dim=B, out_dim=bigger)
    assert v.dims == (A, bigger)
    np.testing.assert_allclose(g.run(v), np.pad(XV, [(0, 0), (0, 2)]))


def test_cum_concat_step_and_sort(g):
    x = g.const("x", [A, B], XV)
    frame = g.const("f", [A], [7.0, 8.0, 9.0], "float32")
    acc, acc_dim = rf.cum_concat_step(frame, prev_accum=x, axis=B)
    assert acc_dim.dimension == 5 and acc.dims == (A, acc_dim)
    values, indices, s_dim = rf.sort(x, axis=B)
    assert values.dims == (A, s_dim) and indices.sparse_dim == B
    va, vv, vi = g.run(acc, values, indices)
    np.testing.assert_allclose(va, np.concatenate([XV, [[7.0], [8.0], [9.0]]], axis=1))
    np.testing.assert_allclose(vv, np.sort(XV, axis=1))
    np.testing.assert_array_equal(vi, np.argsort(XV, axis=1))


def test_scatter_argmax(g):
    n, out = Dim(5, name="n5"), Dim(3, name="o3")
    src = g.const("s", [n], [0.5, 2.0, 1.0, 2.0, -1.0], "float32")
    idx = g.const("i", [n], [0, 0, 2, 2, 0], "int32", sparse_dim=out)
    res = rf.scatter_argmax(src, indices=idx, indices_dim=n)
    assert res.dims == (out,) and res.sparse_dim == n
    np.testing.assert_array_equal(g.run(res), [1, -1, 3])


def test_split_static_parts_one_op_and_its_gradient(g):
    """``rf.split`` into static parts: the parts as numpy's, the feature dim moved to the part's dim, one ``SplitV``
    in the graph; the gradient of ``sum(part_i * w_i)`` is the ``w_i`` side by side."""
    import tensorflow as tf
    f6, p1, p5 = Dim(6, name="f6"), Dim(1, name="p1"), Dim(5, name="p5")
    xv = RND.randn(3, 6).astype("float32")
    x = rf.Tensor("x", dims=[A, f6], dtype="float32", feature_dim=f6, raw_tensor=tf.constant(xv))
    before = {op.name for op in tf.compat.v1.get_default_graph().get_operations()}
    a, b = rf.split(x, axis=f6, out_dims=[p1, p5])
    new_types = [op.type for op in tf.compat.v1.get_default_graph().get_operations() if op.name not in before]
    assert new_types.count("SplitV") == 1 and "Slice" not in new_types
    assert a.dims == (A, p1) and b.dims == (A, p5) and a.feature_dim == p1 and b.feature_dim == p5
    w1, w2 = RND.randn(3, 1).astype("float32"), RND.randn(3, 5).astype("float32")
    loss = tf.reduce_sum(a.raw_tensor * w1) + tf.reduce_sum(b.raw_tensor * w2)
    av, bv, grad = g.session.run([a.raw_tensor, b.raw_tensor, tf.gradients(loss, x.raw_tensor)[0]])
    np.testing.assert_array_equal(av, xv[:, :1])
    np.testing.assert_array_equal(bv, xv[:, 1:])
    np.testing.assert_allclose(grad, np.concatenate([w1, w2], 1))
