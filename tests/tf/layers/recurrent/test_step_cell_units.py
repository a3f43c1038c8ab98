"""Tests of the step-cell units ``zoneoutlstm`` and ``layernormvariantslstm`` (``rec`` over time and ``rnn_cell``
in a loop), ``lstmp``, unit-name case-insensitivity and the initializers of the units' parameters.

Parameter names, shapes and initial values are those observed from the reference (n_in 3, n_out 5); numerics are
checked against plain numpy implementations of the formulas in the modules' docstrings (which were matched to the
reference's outputs on fixed parameter values)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, load_random_params, make_feed

from returnn.errors import LayerArgError, UnknownNameError

tf.compat.v1.disable_eager_execution()

N_IN, N = 3, 5
LN = "layernormvariantslstm"

# observed from the reference: {"class": "rec", "unit": "layernormvariantslstm", "n_out": 5} on a 3-dim input
REF_LN_PARAMS = [
    ({}, {"W_ff": [3, 20], "gamma_input_below": [20], "beta_input_below": [20], "W_re": [5, 20],
          "gamma_state_below": [20], "gamma_new_c": [5], "beta_new_c": [5]}),
    ({"global_norm": False}, {"W_ff": [3, 20], "bias_ff": [20], "W_re": [5, 20], "gamma_new_c": [5],
                              "beta_new_c": [5]}),
    ({"global_norm": False, "global_norm_joined": True},
     {"W_ff": [3, 20], "W_re": [5, 20], "gamma_lstm_in": [20], "beta_lstm_in": [20], "gamma_new_c": [5],
      "beta_new_c": [5]}),
    ({"global_norm": False, "per_gate_norm": True},
     dict({"W_ff": [3, 20], "W_re": [5, 20], "gamma_new_c": [5], "beta_new_c": [5]},
          **{f"{p}_{g}_gate": [5] for p in ("gamma", "beta") for g in "ijfo"})),
    ({"cell_norm": False}, {"W_ff": [3, 20], "gamma_input_below": [20], "beta_input_below": [20], "W_re": [5, 20],
                            "gamma_state_below": [20]}),
    ({"hidden_norm": True}, {"W_ff": [3, 20], "gamma_input_below": [20], "beta_input_below": [20],
                             "W_re": [5, 20], "gamma_state_below": [20], "gamma_new_c": [5], "beta_new_c": [5],
                             "gamma_new_h": [5], "beta_new_h": [5]}),
    ({"with_concat": True, "global_norm": False}, {"W_ff_re": [8, 20], "bias_ff_re": [20], "gamma_new_c": [5],
                                                   "beta_new_c": [5]}),
    ({"with_concat": True, "global_norm": False, "global_norm_joined": True},
     {"W_ff_re": [8, 20], "gamma_lstm_in": [20], "beta_lstm_in": [20], "gamma_new_c": [5], "beta_new_c": [5]}),
]


def _sigmoid(x):
    return 1. / (1. + np.exp(-x))


def _ln(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    y = (x - m) / np.sqrt(v + eps) * g
    return y if b is None else y + b


def np_ln_lstm(p, x, lens, opts, direction=1):
    """numpy reference of layernormvariantslstm; ``p``: param name (without scope) -> value; x [B, T, n_in]"""
    gn, gnj = opts.get("global_norm", True), opts.get("global_norm_joined", False)
    pg, wc = opts.get("per_gate_norm", False), opts.get("with_concat", False)
    cn, cno, hn = opts.get("cell_norm", True), opts.get("cell_norm_in_output", True), opts.get("hidden_norm", False)
    eps = opts.get("variance_epsilon", 1e-12)
    batch, num_frames, _ = x.shape
    y = np.zeros((batch, num_frames, N))
    for b in range(batch):
        c, h = np.zeros(N), np.zeros(N)
        frames = list(range(lens[b]))[::direction]
        for t in frames:
            xt = x[b, t]
            if wc:
                z = np.concatenate([xt, h]) @ p["W_ff_re"]
            elif gn:
                z = _ln(xt @ p["W_ff"], p["gamma_input_below"], p["beta_input_below"], eps) + _ln(
                    h @ p["W_re"], p["gamma_state_below"], None, eps)
            else:
                z = xt @ p["W_ff"] + h @ p["W_re"]
            if gnj:
                z = _ln(z, p["gamma_lstm_in"], p["beta_lstm_in"], eps)
            elif not gn and not pg:
                z = z + p["bias_ff_re" if wc else "bias_ff"]
            gates = dict(zip("ijfo", np.split(z, 4)))
            if pg:
                gates = {k: _ln(v, p[f"gamma_{k}_gate"], p[f"beta_{k}_gate"], eps) for k, v in gates.items()}
            new_c = _sigmoid(gates["f"]) * c + _sigmoid(gates["i"]) * np.tanh(gates["j"])
            normed = _ln(new_c, p["gamma_new_c"], p["beta_new_c"], eps) if cn else new_c
            h = _sigmoid(gates["o"]) * np.tanh(normed if cno else new_c)
            if hn:
                h = _ln(h, p["gamma_new_h"], p["beta_new_h"], eps)
            c = normed
            y[b, t] = h
    return y


def np_zoneout_lstm(p, x, lens, zc, zh, use_zoneout_output=False, direction=1):
    """numpy reference of zoneoutlstm outside training (expectation of the zoneout masks)"""
    kernel, bias = p["lstm_cell/kernel"], p["lstm_cell/bias"]
    batch, num_frames, _ = x.shape
    y = np.zeros((batch, num_frames, N))
    for b in range(batch):
        c, h = np.zeros(N), np.zeros(N)
        for t in list(range(lens[b]))[::direction]:
            i, j, f, o = np.split(np.concatenate([x[b, t], h]) @ kernel + bias, 4)
            new_c = _sigmoid(f + 1.) * c + _sigmoid(i) * np.tanh(j)
            new_h = _sigmoid(o) * np.tanh(new_c)
            c, h = (1 - zc) * new_c + zc * c, (1 - zh) * new_h + zh * h
            y[b, t] = h if use_zoneout_output else new_h
    return y


def _inputs(seed=3):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (3, 6, N_IN)).astype("float32")
    lens = np.array([6, 2, 4], "int32")
    x[1, 2:] = 5.  # padding garbage
    return x, lens


@pytest.mark.parametrize("opts,expected", REF_LN_PARAMS)
def test_ln_lstm_param_names_as_reference(session, opts, expected):
    net = build_net({"output": {"class": "rec", "unit": LN, "unit_opts": opts, "n_out": N, "from": "data"}})
    got = {p.name[len("output/rec/"):-2]: p.shape.as_list() for p in net.get_params_list()}
    assert got == expected


LN_NUMERICS = [
    ({}, 1), ({}, -1), ({"global_norm": False}, 1), ({"global_norm": False, "global_norm_joined": True}, -1),
    ({"global_norm": False, "global_norm_joined": True, "cell_norm": False}, 1),
    ({"global_norm": False, "per_gate_norm": True}, 1), ({"global_norm": False, "per_gate_norm": True,
                                                          "cell_norm": False}, -1),
    ({"cell_norm_in_output": False, "hidden_norm": True, "variance_epsilon": 0.5}, 1),
    ({"with_concat": True, "global_norm": False, "forget_bias": 1.0}, 1),
    ({"with_concat": True, "global_norm": False, "global_norm_joined": True}, 1),
]


@pytest.mark.parametrize("opts,direction", LN_NUMERICS)
def test_ln_lstm_numerics(session, opts, direction):
    net = build_net({"output": {"class": "rec", "unit": LN, "unit_opts": opts, "n_out": N, "from": "data",
                                "direction": direction}}, train_flag=False)
    p = load_random_params(session, net, "output/rec/")
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    np.testing.assert_allclose(y, np_ln_lstm(p, x.astype("float64"), lens, opts, direction), atol=2e-5)


# observed initial values (reference, n_out 8): forget_bias is an initial value only, norm_gain/norm_shift too
@pytest.mark.parametrize("opts,expected", [
    ({"forget_bias": 1.0, "norm_shift": 0.5},
     {"beta_input_below": 1.5, "gamma_input_below": 1.0, "gamma_state_below": 1.0, "beta_new_c": 0.5,
      "gamma_new_c": 1.0}),
    ({"forget_bias": 1.0, "norm_shift": 0.5, "global_norm": False, "global_norm_joined": True},
     {"beta_lstm_in": 1.5, "gamma_lstm_in": 1.0, "beta_new_c": 0.5}),
    ({"forget_bias": 1.0, "norm_shift": 0.5, "norm_gain": 2.0, "global_norm": False, "per_gate_norm": True},
     {"beta_f_gate": 1.5, "beta_i_gate": 0.5, "beta_j_gate": 0.5, "beta_o_gate": 0.5, "gamma_f_gate": 2.0,
      "gamma_new_c": 2.0}),
    ({"forget_bias": 1.0, "global_norm": False}, {"bias_ff": [0.] * 16 + [1.] * 8 + [0.] * 8}),
    ({"forget_bias": 1.0, "global_norm": False, "with_concat": True}, {"bias_ff_re": [0.] * 16 + [1.] * 8 + [0.] * 8}),
])
def test_ln_lstm_initial_values_as_reference(session, opts, expected):
    net = build_net({"output": {"class": "rec", "unit": LN, "unit_opts": opts, "n_out": 8, "from": "data",
                                "bias_init": 0.1}})
    session.run(tf.compat.v1.global_variables_initializer())
    values = session.run({p.name[len("output/rec/"):-2]: p for p in net.get_params_list()})
    for name, value in expected.items():
        np.testing.assert_array_equal(values[name], np.broadcast_to(np.array(value, "float32"), values[name].shape))


def test_weights_initializers_as_reference(session):
    """Observed: W_ff gets forward_weights_init, W_re and combined kernels recurrent_weights_init; the biases of
    TF-cell units and step cells ignore bias_init; only the native units' b uses it."""
    inits = {"forward_weights_init": 0.3, "recurrent_weights_init": 0.2, "bias_init": 0.1}
    net = build_net({
        "ln": {"class": "rec", "unit": LN, "unit_opts": {"global_norm": False}, "n_out": 4, "from": "data",
               "is_output_layer": True, **inits},
        "zo": {"class": "rec", "unit": "zoneoutlstm", "n_out": 4, "from": "data", "is_output_layer": True, **inits},
        "std": {"class": "rec", "unit": "standardlstm", "n_out": 4, "from": "data", "is_output_layer": True, **inits},
        "gru": {"class": "rec", "unit": "gru", "n_out": 4, "from": "data", "is_output_layer": True, **inits},
        "low": {"class": "rec", "unit": "nativelstmlowmem", "n_out": 4, "from": "data", "is_output_layer": True,
                **inits},
        "output": {"class": "rec", "unit": "lstmp", "n_out": 4, "from": "data", **inits}})
    session.run(tf.compat.v1.global_variables_initializer())
    v = session.run({p.name[:-2]: p for p in net.get_params_list()})
    expected = {"ln/rec/W_ff": 0.3, "ln/rec/W_re": 0.2, "ln/rec/bias_ff": 0.0, "zo/rec/lstm_cell/kernel": 0.2,
                "zo/rec/lstm_cell/bias": 0.0, "std/rec/lstm_cell/kernel": 0.2, "std/rec/lstm_cell/bias": 0.0,
                "gru/rec/gru_cell/gates/kernel": 0.2, "gru/rec/gru_cell/gates/bias": 1.0,
                "gru/rec/gru_cell/candidate/kernel": 0.2, "gru/rec/gru_cell/candidate/bias": 0.0,
                "low/rec/W": 0.2, "low/rec/b": 0.0, "output/rec/W": 0.3, "output/rec/W_re": 0.2, "output/rec/b": 0.1}
    assert {k: float(v[k].mean()) for k in expected} == pytest.approx(expected)
    assert all(np.all(v[k] == v[k].flat[0]) for k in expected)


@pytest.mark.parametrize("unit", ["zoneoutlstm", "ZoneoutLSTM"])
@pytest.mark.parametrize("opts,direction", [({}, 1), ({"zoneout_factor_cell": 0.3, "zoneout_factor_output": 0.2}, 1),
                                            ({"zoneout_factor_cell": 0.15, "zoneout_factor_output": 0.05,
                                              "use_zoneout_output": True}, -1)])
def test_zoneout_lstm_params_and_numerics(session, unit, opts, direction):
    net = build_net({"output": {"class": "rec", "unit": unit, "unit_opts": opts, "n_out": N, "from": "data",
                                "direction": direction}}, train_flag=False)
    assert {p.name[:-2]: p.shape.as_list() for p in net.get_params_list()} == {
        "output/rec/lstm_cell/kernel": [8, 20], "output/rec/lstm_cell/bias": [20]}  # observed
    p = load_random_params(session, net, "output/rec/")
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected = np_zoneout_lstm(p, x.astype("float64"), lens, opts.get("zoneout_factor_cell", 0.),
                               opts.get("zoneout_factor_output", 0.), opts.get("use_zoneout_output", False), direction)
    np.testing.assert_allclose(y, expected, atol=2e-5)


def test_zoneout_in_training_keeps_previous_or_takes_new(session):
    """Training (as observed from the reference): every element of the zoned-out output is either the new value
    or the previous one, with a new random mask every step."""
    net = build_net({"output": {"class": "rec", "unit": "zoneoutlstm", "n_out": N, "from": "data",
                                "unit_opts": {"zoneout_factor_output": 0.5, "use_zoneout_output": True}}},
                    train_flag=True)
    p = load_random_params(session, net, "output/rec/")
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    kernel, bias = p["lstm_cell/kernel"], p["lstm_cell/bias"]
    n_prev = n_new = 0
    c, h = np.zeros(N), np.zeros(N)
    for t in range(6):  # sequence 0, full length; no cell zoneout, so c is deterministic
        i, j, f, o = np.split(np.concatenate([x[0, t], h]) @ kernel + bias, 4)
        c = _sigmoid(f + 1.) * c + _sigmoid(i) * np.tanh(j)
        new_h = _sigmoid(o) * np.tanh(c)
        is_new, is_prev = np.abs(y[0, t] - new_h) < 1e-5, np.abs(y[0, t] - h) < 1e-5
        assert np.all(is_new | is_prev)
        n_new, n_prev = n_new + (is_new & ~is_prev).sum(), n_prev + (is_prev & ~is_new).sum()
        h = y[0, t]
    assert n_new > 0 and n_prev > 0


@pytest.mark.parametrize("unit,opts,expected_params", [
    ("zoneoutlstm", {"zoneout_factor_cell": 0.15, "zoneout_factor_output": 0.05},
     {"lstm_cell/kernel": [13, 20], "lstm_cell/bias": [20]}),
    (LN, {"global_norm": False, "global_norm_joined": True, "cell_norm": False},
     {"W_ff": [8, 20], "W_re": [5, 20], "gamma_lstm_in": [20], "beta_lstm_in": [20]}),
    (LN, {}, {"W_ff": [8, 20], "gamma_input_below": [20], "beta_input_below": [20], "W_re": [5, 20],
              "gamma_state_below": [20], "gamma_new_c": [5], "beta_new_c": [5]})])
def test_rnn_cell_step_cells_in_loop(session, unit, opts, expected_params):
    """``rnn_cell`` with a step cell inside a rec loop: the reference's param names (observed), and the same
    numerics as the ``rec`` unit over the sequence."""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "s": {"class": "rnn_cell", "unit": unit, "unit_opts": opts, "n_out": N, "from": ["data:source", "prev:s"]},
        "output": {"class": "copy", "from": "s"}}}}, train_flag=False)
    assert {p.name[len("output/rec/s/rec/"):-2]: p.shape.as_list() for p in net.get_params_list()} == expected_params
    p = load_random_params(session, net, "output/rec/s/rec/")
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    # the cell's input is [x_t, h_{t-1}]: run the numpy reference step by step on that input
    expected = np.zeros((3, 6, N))
    for b in range(3):
        prev, state_seq = np.zeros(N), []
        for t in range(lens[b]):
            inp = np.concatenate([x[b, t], prev])[None, None]
            state_seq.append(inp[0, 0])
            full = np.array(state_seq)[None]
            if unit == LN:
                out = np_ln_lstm(p, full.astype("float64"), [len(state_seq)], opts)
            else:
                out = np_zoneout_lstm(p, full.astype("float64"), [len(state_seq)], 0.15, 0.05)
            prev = expected[b, t] = out[0, -1]
    real = np.arange(6)[None, :] < lens[:, None]
    np.testing.assert_allclose(y[real], expected[real], atol=2e-5)


def test_unit_names_case_insensitive_and_lstmp(session):
    net = build_net({"a": {"class": "rec", "unit": "LSTMP", "n_out": 4, "from": "data", "is_output_layer": True},
                     "b": {"class": "rec", "unit": "LSTMBlock", "n_out": 4, "from": "data", "is_output_layer": True},
                     "output": {"class": "rec", "unit": "ZoneoutLSTM", "n_out": 4, "from": "data"}})
    got = sorted((p.name[:-2], p.shape.as_list()) for p in net.get_params_list())
    assert got == [("a/rec/W", [3, 16]), ("a/rec/W_re", [4, 16]), ("a/rec/b", [16]),
                   ("b/rec/W", [3, 16]), ("b/rec/W_re", [4, 16]), ("b/rec/b", [16]),
                   ("output/rec/lstm_cell/bias", [16]), ("output/rec/lstm_cell/kernel", [7, 16])]


@pytest.mark.parametrize("opts,words", [
    ({"global_norm_joined": True}, "global_norm and global_norm_joined"),
    ({"per_gate_norm": True}, "per_gate_norm can not be enabled with global_norm"),
    ({"with_concat": True}, "global_norm and with_concat"),
    ({"global_norm": False, "global_norm_joined": True, "per_gate_norm": True}, "global_norm_joined"),
    ({"global_norm": False, "cel_norm": False}, "unknown option 'cel_norm'"),
])
def test_ln_lstm_invalid_unit_opts(session, opts, words):
    """The reference rejects these combinations too (AssertionError there)."""
    with pytest.raises(LayerArgError, match=words):
        build_net({"output": {"class": "rec", "unit": LN, "unit_opts": opts, "n_out": 4, "from": "data"}})


def test_native_lstm2_store_states_is_unknown_as_in_reference(session):
    """The reference has no unit 'NativeLstm2StoreStates' (it fails with 'unknown cell')."""
    with pytest.raises(UnknownNameError, match="NativeLstm2StoreStates"):
        build_net({"output": {"class": "rec", "unit": "NativeLstm2StoreStates", "n_out": 4, "from": "data"}})


def test_backward_direction_projects_the_reversed_input_like_reference(session):
    """``direction: -1``: the input is reversed within each sequence before its projection (the reference's order of
    operations, so its rounding: a layer-norm BLSTM stack computed other values by up to 2e-2 after 8 layers when the
    projection came first). The output is exactly the forward unit's over the reversed input, reversed back."""
    def rev(source, **_kwargs):
        x = source(0, as_data=True)
        return tf.reverse_sequence(x.placeholder, x.get_sequence_lengths(), seq_axis=x.time_dim_axis,
                                   batch_axis=x.batch_dim_axis)

    net = build_net({
        "bw": {"class": "rec", "unit": LN, "unit_opts": {"cell_norm": True}, "n_out": 1024, "direction": -1,
               "from": "data"},
        "data_rev": {"class": "eval", "from": "data", "eval": rev},
        "fw_rev": {"class": "rec", "unit": LN, "unit_opts": {"cell_norm": True}, "n_out": 1024, "direction": 1,
                   "from": "data_rev", "reuse_params": "bw"},
        "output": {"class": "eval", "from": "fw_rev", "eval": rev}},
        extern_data={"data": {"dim": 40}})
    session.run(tf.compat.v1.global_variables_initializer())
    rng = np.random.RandomState(1)
    feed = make_feed(net, {"data": rng.randn(3, 29, 40).astype("float32")}, {"data": [29, 16, 9]})
    bw, fw_rev = session.run([net.get_layer("bw").output.copy_as_batch_major().placeholder,
                              net.get_layer("output").output.copy_as_batch_major().placeholder], feed_dict=feed)
    for b, length in enumerate([29, 16, 9]):
        assert np.array_equal(bw[b, :length], fw_rev[b, :length])
