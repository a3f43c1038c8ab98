"""``rf.LSTM``, ``rf.ZoneoutLSTM``: parameter names/dims as the reference, values against a numpy LSTM (whose gate
order and forget bias were checked against the reference's ZoneoutLSTM), state kept beyond a sequence's end."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, batch_dim, single_step_dim

from tests.frontend._module_utils import make_params, param_shapes, sigmoid

IN, OUT = Dim(8, name="in"), Dim(6, name="o")
LENS = [5, 3]


def _np_lstm(x, p, h, c, lens, forget_bias=0.0, zc=0.0, zo=0.0):
    """:return: ys [T,B,O] (valid frames), h, c"""
    ys = []
    for t in range(x.shape[1]):
        z = x[:, t] @ p["ff_weight"].T + h @ p["rec_weight"].T + p["bias"]
        i, f, j, o = np.split(z, 4, axis=-1)
        cn = sigmoid(f + forget_bias) * c + sigmoid(i) * np.tanh(j)
        hn = sigmoid(o) * np.tanh(cn)
        cn, hn = (1 - zc) * cn + zc * c, (1 - zo) * hn + zo * h
        active = (t < np.asarray(lens))[:, None]
        c, h = np.where(active, cn, c), np.where(active, hn, h)
        ys.append(hn)
    return np.stack(ys), h, c


def test_param_names_as_reference():
    """Observed in the reference: ff_weight [24, 8], rec_weight [24, 6], bias [24]."""
    expected = [("ff_weight", [24, 8]), ("rec_weight", [24, 6]), ("bias", [24])]
    assert param_shapes(rf.LSTM(IN, OUT)) == expected
    z = rf.ZoneoutLSTM(IN, OUT)
    assert param_shapes(z) == expected
    assert (z.zoneout_factor_cell, z.zoneout_factor_output, z.forget_bias, z.parts_order) == (0.0, 0.0, 0.0, "ifjo")


@pytest.mark.parametrize("kind", ["lstm", "zoneout"])
def test_lstm_over_time_vs_numpy(g, kind):
    rs = np.random.RandomState(1)
    xv = rs.randn(2, 5, 8).astype("float32")
    t = g.time_dim(LENS)
    x = g.const("x", [batch_dim, t, IN], xv)
    opts = dict(forget_bias=1.0, zoneout_factor_cell=0.15, zoneout_factor_output=0.05) if kind == "zoneout" else {}
    lstm = rf.ZoneoutLSTM(IN, OUT, **opts) if kind == "zoneout" else rf.LSTM(IN, OUT)
    h0, c0 = np.full((2, 6), 0.2, "float32"), np.full((2, 6), -0.1, "float32")
    state = rf.LstmState(h=g.const("h0", [batch_dim, OUT], h0), c=g.const("c0", [batch_dim, OUT], c0))
    rf.init_forward_step_run_ctx()
    p = make_params(g, lstm)
    y, new_state = lstm(x, spatial_dim=t, state=state)
    assert y.dims == (t, batch_dim, OUT) and new_state.h.dims == (batch_dim, OUT)
    yv, hv, cv = g.run(y, new_state.h, new_state.c)
    ys, h, c = _np_lstm(xv, p, h0, c0, LENS, forget_bias=opts.get("forget_bias", 0.0),
                        zc=opts.get("zoneout_factor_cell", 0.0), zo=opts.get("zoneout_factor_output", 0.0))
    np.testing.assert_allclose(hv, h, atol=1e-5)
    np.testing.assert_allclose(cv, c, atol=1e-5)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(yv[:n, b], ys[:n, b], atol=1e-5)


def test_lstm_single_step_and_default_state(g):
    rs = np.random.RandomState(2)
    xv = rs.randn(2, 8).astype("float32")
    b = Dim(2, name="b")
    lstm = rf.LSTM(IN, OUT)
    state = lstm.default_initial_state(batch_dims=[b])
    p = make_params(g, lstm)
    y, new_state = lstm(g.const("x", [b, IN], xv), spatial_dim=single_step_dim, state=state)
    assert y.dims == (b, OUT) and new_state.c.dims == (b, OUT)
    _, h, c = _np_lstm(xv[:, None], p, np.zeros((2, 6), "float32"), np.zeros((2, 6), "float32"), [1, 1])
    yv, cv = g.run(y, new_state.c)
    np.testing.assert_allclose(yv, h, atol=1e-5)
    np.testing.assert_allclose(cv, c, atol=1e-5)


def test_zoneout_in_training_keeps_or_updates_each_entry(g):
    """In training, each entry is either the new or the previous value (never the expectation)."""
    rs = np.random.RandomState(3)
    b = Dim(50, name="b")
    lstm = rf.ZoneoutLSTM(IN, OUT, zoneout_factor_cell=0.5, zoneout_factor_output=0.5)
    ref = rf.LSTM(IN, OUT)
    x = g.const("x", [b, IN], rs.randn(50, 8).astype("float32"))
    st = rf.LstmState(h=g.const("h", [b, OUT], np.full((50, 6), 0.25, "float32")),
                      c=g.const("c", [b, OUT], np.full((50, 6), -0.5, "float32")))
    make_params(g, lstm, seed=4)
    make_params(g, ref, seed=4)
    rf.init_train_step_run_ctx(train_flag=True)
    try:
        y, new = lstm(x, spatial_dim=single_step_dim, state=st)
    finally:
        rf.init_forward_step_run_ctx()
    y_ref, new_ref = ref(x, spatial_dim=single_step_dim, state=st)
    cv, c_new = g.run(new.c, new_ref.c)
    kept = np.isclose(cv, -0.5)
    assert np.all(kept | np.isclose(cv, c_new, atol=1e-6))
    assert 0.3 < kept.mean() < 0.7


def test_lstm_errors():
    with pytest.raises(FrontendError, match="static Dim"):
        rf.LSTM(Dim(None, name="t"), OUT)
    with pytest.raises(FrontendError, match="parts_order"):
        rf.ZoneoutLSTM(IN, OUT, parts_order="abcd")


def test_zoneout_output_off_keeps_zoned_state_as_observed(g):
    """``ZoneoutLSTM(use_zoneout_output=False)`` (zeyer's LstmDecoder, parts "jifo", forget bias 0): the output is
    the new ``h``, the state's ``h`` the zoned-out one (``0.95 * new + 0.05 * old`` outside training). Two steps,
    parameter ``i`` = ``0.5 * sin(0.37 * n + i + 1)``; values observed in the reference."""
    fin, fout = Dim(5, name="in5"), Dim(3, name="out3")
    lstm = rf.ZoneoutLSTM(fin, fout, zoneout_factor_cell=0.15, zoneout_factor_output=0.05, use_zoneout_output=False,
                          parts_order="jifo", forget_bias=0.0)
    make_params(g, lstm)
    for i, (_, p) in enumerate(lstm.named_parameters()):
        shape = [d.dimension for d in p.dims]
        p.raw_tensor.load((np.sin(np.arange(int(np.prod(shape))) * 0.37 + i + 1) * 0.5).astype("float32").reshape(
            shape), g.session)
    b = Dim(2, name="b2z")
    x = g.const("x", [b, fin], (np.sin(np.arange(10) * 0.7) * 2).astype("float32").reshape(2, 5))
    rf.init_forward_step_run_ctx()
    st = lstm.default_initial_state(batch_dims=[b])
    _, st1 = lstm(x, state=st, spatial_dim=single_step_dim)
    y2, st2 = lstm(x, state=st1, spatial_dim=single_step_dim)
    yv, cv, hv = g.run(y2.copy_transpose([b, fout]), st2.c.copy_transpose([b, fout]), st2.h.copy_transpose([b, fout]))
    np.testing.assert_allclose(yv, [[0.253989, -0.596719, -0.016963], [-0.079386, 0.011457, 0.531573]], atol=1e-5)
    np.testing.assert_allclose(cv, [[1.251993, -0.694244, -0.038809], [-0.092213, 0.108226, 1.333475]], atol=1e-5)
    np.testing.assert_allclose(hv, [[0.251099, -0.585707, -0.016972], [-0.078438, 0.011343, 0.52377]], atol=1e-5)
