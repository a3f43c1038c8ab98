"""Reductions (with masking of padded frames), top_k, moments, random ops and the initialisers."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, batch_dim

A, B = Dim(3, name="a"), Dim(4, name="b")
XV = np.random.RandomState(5).randn(3, 4).astype("float32")


@pytest.mark.parametrize("mode,fn", [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
                                     ("argmax", np.argmax), ("argmin", np.argmin)])
def test_reduce_static(g, mode, fn):
    x = g.const("x", [A, B], XV)
    out = rf.reduce(x, mode=mode, axis=B)
    assert out.dims == (A,)
    np.testing.assert_allclose(g.run(out), fn(XV, axis=1), rtol=1e-5)


def test_reduce_masked(g):
    time = g.time_dim([4, 2, 1])
    x = g.const("x", [A, time], XV)  # A is the batch here: lengths per row
    time.dyn_size_ext.dims  # noqa: B018 (the lengths are [batch]; rows of A stand for the batch entries)
    xb = g.const("xb", [batch_dim, time], XV)
    s, m, mx, lse, lme = g.run(rf.reduce_sum(xb, axis=time), rf.reduce_mean(xb, axis=time),
                               rf.reduce_max(xb, axis=time), rf.reduce_logsumexp(xb, axis=time),
                               rf.reduce_logmeanexp(xb, axis=time))
    lens = [4, 2, 1]
    for i, n in enumerate(lens):
        row = XV[i, :n]
        assert s[i] == pytest.approx(row.sum(), rel=1e-5)
        assert m[i] == pytest.approx(row.mean(), rel=1e-5)
        assert mx[i] == pytest.approx(row.max())
        assert lse[i] == pytest.approx(np.log(np.exp(row).sum()), rel=1e-5)
        assert lme[i] == pytest.approx(np.log(np.exp(row).mean()), rel=1e-5, abs=1e-6)
    del x


def test_reduce_logical_and_errors(g):
    x = g.const("x", [A, B], XV)
    a, b = g.run(rf.reduce_all(x > -10.0, axis=[A, B]), rf.reduce_any(x > 10.0, axis=B))
    assert a and not b.any()
    with pytest.raises(FrontendError, match="needs a bool tensor"):
        rf.reduce_all(x, axis=B)
    with pytest.raises(FrontendError, match=r"rf.reduce_sum: dim Dim\{'c'\(2\)\} is not a dim of 'x'"):
        rf.reduce_sum(x, axis=Dim(2, name="c"))


def test_top_k_and_moments(g):
    x = g.const("x", [A, B], XV)
    values, indices, k_dim = rf.top_k(x, axis=B, k=2)
    assert values.dims == (A, k_dim) and indices.sparse_dim == B
    mean, var = rf.moments(x, axis=B)
    v, i, vm, vv = g.run(values, indices, mean, var)
    order = np.argsort(-XV, axis=1)[:, :2]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_allclose(v, np.take_along_axis(XV, order, 1))
    np.testing.assert_allclose(vm, XV.mean(1), rtol=1e-5)
    np.testing.assert_allclose(vv, XV.var(1), rtol=1e-4)


def test_random_and_init(g):
    big = Dim(2000, name="big")
    rf.set_random_seed(1)
    u = rf.random_uniform([big], minval=-1.0, maxval=1.0)
    n = rf.random_normal([big], stddev=2.0)
    glorot = rf.init.Glorot()(dims=[Dim(30, name="in"), Dim(50, name="out")], dtype="float32")
    he = rf.init.He()(dims=[Dim(200, name="in"), Dim(50, name="out")], dtype="float32")
    vu, vn, vg, vh = g.run(u, n, glorot, he)
    assert -1 <= vu.min() and vu.max() < 1 and abs(vu.mean()) < 0.1
    assert 1.8 < vn.std() < 2.2
    limit = np.sqrt(6.0 / 80)
    assert np.abs(vg).max() <= limit and np.abs(vg).max() > 0.9 * limit
    assert np.abs(vh).max() <= 2 * np.sqrt(2.0 / 200) / 0.8796 + 1e-6  # truncated at 2 stddev
    assert 0.8 * np.sqrt(2.0 / 200) < vh.std() < 1.2 * np.sqrt(2.0 / 200)
    with pytest.raises(FrontendError, match="unknown mode"):
        rf.init.VarianceScaling(mode="fan_x")


def test_piecewise_linear_and_running_mean(g):
    """The points and expected values of the reference's test_rf_piecewise_linear.py."""
    import tensorflow as tf
    from returnn.tf.frontend_low_level import create_parameter_variables
    eps = 1e-5
    tests = np.array([(0.0, 2.0), (1.0 - eps, 2.0), (1.0, 2.0), (1.0 + eps, 2.0), (2.0, 3.0), (3.0 - eps, 4.0),
                      (3.0, 4.0), (3.0 + eps, 4.0), (4.0, 2.5), (5.0 - eps, 1.0), (5.0, 1.0), (5.0 + eps, 1.0),
                      (6.0, 1.0)], dtype="float32")
    n = Dim(13, name="n13")
    out = rf.PiecewiseLinear({1: 2.0, 3: 4.0, 5: 1.0})(rf.convert_to_tensor(tests[:, 0], dims=[n]))
    rf.init_train_step_run_ctx(train_flag=True, step=2)
    sched = rf.PiecewiseLinearStepwiseScheduler({0: 0.0, 4: 1.0})()
    feat = Dim(2, name="f2")
    rm = rf.RunningMean(feat, alpha=0.5)
    create_parameter_variables(rm, name_fn=lambda p, _: "rm/" + p)
    upd = rm(g.const("x", [A, feat], np.array([[1, 2], [3, 4], [5, 6]], "float32")))
    g.session.run(tf.compat.v1.variables_initializer([rm.mean.raw_tensor]))
    v, vs, vu = g.run(out, sched, upd)
    np.testing.assert_almost_equal(v, tests[:, 1], decimal=4)
    assert vs == pytest.approx(0.5)
    np.testing.assert_allclose(vu, [1.5, 2.0])
    np.testing.assert_allclose(g.run(rm.mean), [1.5, 2.0])
