"""``rf.Module``, ``rf.Parameter``, the containers and the TF variables of a module's parameters."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, Tensor
from returnn.tf.frontend_low_level import create_parameter_variables

IN, HID = Dim(9, name="in"), Dim(5, name="hid")


class _M(rf.Module):
    def __init__(self):
        super().__init__()
        self.lin = rf.Linear(IN, HID)
        self.p = rf.Parameter([HID], initial=1.0, auxiliary=True)
        self.ml = rf.ModuleList(rf.Linear(IN, HID), rf.Linear(HID, IN))


def test_names_as_reference():
    """Observed in the reference: own parameters first, then the sub-modules', joined with '.'."""
    m = _M()
    assert [n for n, _ in m.named_parameters()] == [
        "p", "lin.weight", "lin.bias", "ml.0.weight", "ml.0.bias", "ml.1.weight", "ml.1.bias"]
    assert [n for n, _ in m.named_modules()] == ["", "lin", "ml", "ml.0", "ml.1"]
    assert [type(x).__name__ for x in m.modules()] == ["_M", "Linear", "ModuleList", "Linear", "Linear"]
    assert len(list(m.parameters())) == 7


def test_parameter_dims_as_reference():
    conv = rf.Conv1d(IN, HID, 5, padding="same")
    assert [(n, [d.dimension for d in p.dims]) for n, p in conv.named_parameters()] == [
        ("filter", [5, 9, 5]), ("bias", [5])]
    assert conv.filter.dims[2].name == "filter-dim0"
    grouped = rf.Conv1d(IN, Dim(6, name="o6"), 3, padding="valid", strides=2, groups=3)
    assert [d.dimension for d in grouped.filter.dims] == [6, 3, 3]
    lin, emb = rf.Linear(IN, HID), rf.Embedding(IN, HID)
    assert lin.weight.dims == (IN, HID) and lin.bias.dims == (HID,) and emb.weight.dims == (IN, HID)
    assert isinstance(lin.weight.initial, rf.init.Glorot) and lin.bias.initial == 0.0
    p = rf.Parameter([HID], auxiliary=True)
    assert p.trainable is None and not p.is_trainable and p.weight_decay == 0.0


def test_containers():
    seq = rf.Sequential(rf.Linear(IN, HID), rf.Linear(HID, IN))
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    ml = rf.ModuleList(rf.Linear(IN, HID), rf.Linear(HID, IN))
    assert len(ml[:-1]) == 1 and ml[:-1][0] is ml[0]
    pl = rf.ParameterList([rf.Parameter([IN]), rf.Parameter([HID])])
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"] and len(pl) == 2
    f = rf.Functional(lambda x: x + 1)
    assert f(1) == 2
    seen = []
    seq.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "Sequential"]


def test_parameter_errors():
    with pytest.raises(FrontendError, match="needs static dims"):
        rf.Parameter([Dim(None, name="time")])
    with pytest.raises(FrontendError, match="needs dims"):
        rf.Parameter()


def test_variables_names_values_and_linear(g):
    m = _M()
    names = list(create_parameter_variables(m))
    assert names == ["p", "lin/weight", "lin/bias", "ml/0/weight", "ml/0/bias", "ml/1/weight", "ml/1/bias"]
    assert m.p.raw_tensor.name == "p:0" and not m.p.raw_tensor.trainable
    assert m.lin.weight.raw_tensor.trainable
    custom = create_parameter_variables(rf.Linear(IN, HID), name_fn=lambda path, p: "x/" + path.upper())
    assert list(custom) == ["x/WEIGHT", "x/BIAS"]
    xv = np.random.RandomState(0).randn(2, 9).astype("float32")
    b = Dim(2, name="b")
    out = m.lin(g.const("x", [b, IN], xv))
    assert out.dims == (b, HID)
    g.session.run(tf.compat.v1.variables_initializer(tf.compat.v1.global_variables()))
    w, bias, p, res = g.run(m.lin.weight, m.lin.bias, m.p, out)
    np.testing.assert_allclose(res, xv @ w + bias, rtol=1e-5)
    np.testing.assert_array_equal(p, np.ones(5))
    limit = np.sqrt(6.0 / (9 + 5))  # Glorot uniform: fan_avg
    assert np.abs(w).max() <= limit and np.abs(w).max() > limit / 3
    with pytest.raises(FrontendError, match="has no dim"):
        m.lin(g.const("y", [b, HID], np.zeros((2, 5), "float32")))


def test_weight_dropout_and_noise_keep_names(g):
    lin = rf.weight_dropout(rf.Linear(IN, HID), "weight", drop_prob=0.5)
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"] and rf.is_parametrized(lin, "weight")
    create_parameter_variables(lin, name_fn=lambda p, _: "wd/" + p)
    rf.init_train_step_run_ctx(train_flag=True)
    dropped = lin.weight
    rf.init_forward_step_run_ctx()
    plain = lin.weight
    noisy_mod = rf.weight_noise(rf.Linear(IN, HID), "weight", std=0.1)
    create_parameter_variables(noisy_mod, name_fn=lambda p, _: "wn/" + p)
    rf.init_train_step_run_ctx(train_flag=True)
    noisy = noisy_mod.weight
    rf.init_forward_step_run_ctx()
    g.session.run(tf.compat.v1.variables_initializer(tf.compat.v1.global_variables()))
    vd, vp, vn, vraw = g.run(dropped, plain, noisy, vars(noisy_mod)["weight"])
    assert set(np.unique(vd[vd != 0] / vp[vd != 0]).round(4)) == {2.0} and (vd == 0).any()
    assert 0.05 < np.std(vn - vraw) < 0.15
    with pytest.raises(FrontendError, match="has no parameter"):
        rf.weight_dropout(rf.Linear(IN, HID), "kernel", drop_prob=0.1)


def test_sequential_collected_outputs_as_observed(g):
    """Observed in the reference: ``Sequential(...)(x, extra=..., collected_outputs=d)`` passes the other arguments
    to each module but not ``collected_outputs``; ``d`` gets each module's output under its name."""
    class _Scale(rf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def __call__(self, x, *, extra):
            return x * self.k + extra

    f = Dim(2, name="f_seq")
    x = Tensor("x", [f], "float32", raw_tensor=tf.constant([1.0, 2.0]), feature_dim=f)
    for seq, names in ((rf.Sequential(_Scale(2.0), _Scale(3.0)), ["0", "1"]),
                       (rf.Sequential({"a": _Scale(2.0), "b": _Scale(3.0)}), ["a", "b"])):
        collected = {}
        y = seq(x, extra=1.0, collected_outputs=collected)
        assert list(collected) == names
        values = g.run(y, *collected.values())
        np.testing.assert_allclose(values[0], [10.0, 16.0])
        np.testing.assert_allclose(values[1], [3.0, 5.0])
        np.testing.assert_allclose(values[2], [10.0, 16.0])
        np.testing.assert_allclose(g.run(seq(x, extra=1.0, collected_outputs=None)), [10.0, 16.0])
