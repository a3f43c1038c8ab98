"""``rf.combine``/``rf.compare``, the Tensor operators and the unary functions, against numpy."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, Tensor

A, B, C = Dim(3, name="a"), Dim(2, name="b"), Dim(4, name="c")
XV = np.arange(6, dtype="float32").reshape(3, 2) - 2.5
YV = np.array([1.0, 2.0], dtype="float32")


def test_combine_broadcast_dims_and_values(g):
    x, y = g.const("x", [A, B], XV), g.const("y", [B], YV)
    out = x + y
    rev = y * x
    assert out.dims == (A, B) and out.name == "add" and out.dtype == "float32"
    assert rev.dims == (B, A)
    v_out, v_rev = g.run(out, rev)
    np.testing.assert_allclose(v_out, XV + YV)
    np.testing.assert_allclose(v_rev, (XV * YV).T)


@pytest.mark.parametrize("op,fn", [("-", np.subtract), ("/", np.true_divide), ("**", np.power),
                                   ("maximum", np.maximum), ("minimum", np.minimum)])
def test_combine_kinds(g, op, fn):
    x, y = g.const("x", [A, B], XV), g.const("y", [B], YV)
    np.testing.assert_allclose(g.run(rf.combine(x, op, y)), fn(XV, YV), rtol=1e-6)


def test_scalars_and_reflected(g):
    x = g.const("x", [A, B], XV)
    np.testing.assert_allclose(g.run(2.0 - x), 2.0 - XV)
    np.testing.assert_allclose(g.run(x * 3), XV * 3)
    np.testing.assert_allclose(g.run(-x), -XV)
    np.testing.assert_allclose(g.run(abs(x)), np.abs(XV))


def test_compare_and_logical(g):
    x, y = g.const("x", [A, B], XV), g.const("y", [B], YV)
    gt = x > y
    assert gt.dtype == "bool" and gt.name == "greater" and gt.dims == (A, B)
    ne = x != 0.5
    both = gt & ne
    either = gt | ne
    v = g.run(gt, ne, both, either, ~gt)
    np.testing.assert_array_equal(v[0], XV > YV)
    np.testing.assert_array_equal(v[1], XV != 0.5)
    np.testing.assert_array_equal(v[2], (XV > YV) & (XV != 0.5))
    np.testing.assert_array_equal(v[3], (XV > YV) | (XV != 0.5))
    np.testing.assert_array_equal(v[4], ~(XV > YV))


def test_eq_with_template_or_other_object_is_identity():
    t = Tensor("t", [A], "float32")
    assert (t == t) is True and (t == Tensor("u", [A], "float32")) is False
    assert (t != "x") is True
    assert len({t, t}) == 1


def test_numpy_compare():
    x = Tensor("x", [A, B], "float32", raw_tensor=XV)
    out = x == x
    assert out.dtype == "bool" and out.raw_tensor.all()


def test_disjoint_dims_need_allow_broadcast(g):
    x, z = g.const("x", [A, B], XV), g.const("z", [C], np.ones(4, "float32"))
    with pytest.raises(FrontendError, match="every source lacks some dim") as e:
        rf.combine(x, "add", z)
    assert "'c'" in str(e.value)
    out = rf.combine_bc(x, "add", z)
    assert out.dims == (A, B, C)
    np.testing.assert_allclose(g.run(out), XV[:, :, None] + np.ones((1, 1, 4)))


def test_dtype_mismatch(g):
    x, i = g.const("x", [A], [1.0, 2.0, 3.0], "float32"), g.const("i", [A], [1, 2, 3], "int32")
    with pytest.raises(FrontendError, match="same dtype"):
        rf.combine(x, "add", i)


@pytest.mark.parametrize("name,fn", [
    ("exp", np.exp), ("tanh", np.tanh), ("relu", lambda v: np.maximum(v, 0)),
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("relu_square", lambda v: np.maximum(v, 0) ** 2),
    ("silu", lambda v: v / (1 + np.exp(-v))), ("log_sigmoid", lambda v: -np.log1p(np.exp(-v))),
])
def test_unary(g, name, fn):
    x = g.const("x", [A, B], XV)
    out = getattr(rf, name)(x)
    assert out.dims == (A, B)
    np.testing.assert_allclose(g.run(out), fn(XV), rtol=1e-5, atol=1e-6)


def test_softmax_masks_padding(g):
    time = g.time_dim([3, 1])
    from returnn.tensor import batch_dim
    v = np.random.RandomState(1).randn(2, 3).astype("float32")
    x = g.const("x", [batch_dim, time], v)
    sm, lsm = g.run(rf.softmax(x, axis=time), rf.log_softmax(x, axis=time))
    e = np.exp(v[0] - v[0].max())
    np.testing.assert_allclose(sm[0], e / e.sum(), rtol=1e-5)
    np.testing.assert_allclose(sm[1], [1.0, 0.0, 0.0], rtol=1e-6)
    assert lsm[1, 0] == pytest.approx(0.0) and np.isneginf(lsm[1, 1])


def test_softmax_bad_axis(g):
    x = g.const("x", [A, B], XV)
    with pytest.raises(FrontendError, match=r"rf.softmax: dim Dim\{'c'\(4\)\} is not a dim of 'x'"):
        rf.softmax(x, axis=C)


def test_cast_and_clip(g):
    x = g.const("x", [A, B], XV)
    c = rf.cast(x, "int32")
    assert c.dtype == "int32"
    np.testing.assert_array_equal(g.run(c), XV.astype("int32"))
    np.testing.assert_allclose(g.run(rf.clip_by_value(x, -1.0, 1.0)), np.clip(XV, -1, 1))


@pytest.mark.parametrize("smaller", ["a", "b"])
def test_matmul_over_dynamic_dim_ignores_padded_frames_of_both(g, smaller):
    """Padded frames hold garbage (finite) in both operands: the product sums over the valid frames only, whichever
    operand is the smaller one (the one masked)."""
    from returnn.tensor import batch_dim
    time = g.time_dim([4, 2], "tm")
    feat = Dim(3, name="feat")
    rng = np.random.RandomState(2)
    small_v = rng.randn(2, 4).astype("float32")
    big_v = rng.randn(2, 4, 3).astype("float32")
    small_v[1, 2:] = 1e3
    big_v[1, 2:] = -7e2
    small = g.const("small", [batch_dim, time], small_v)
    big = g.const("big", [batch_dim, time, feat], big_v)
    out = rf.matmul(small, big, reduce=time) if smaller == "a" else rf.matmul(big, small, reduce=time)
    assert set(out.dims) == {batch_dim, feat}
    v = g.run(out)
    v = v if out.dims == (batch_dim, feat) else v.T
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], "float32")
    np.testing.assert_allclose(v, np.einsum("bt,btf->bf", small_v * mask, big_v * mask[:, :, None]), rtol=1e-5)
