"""``layernormvariantslstm``: an LSTM with layer normalization at selectable places (the reference's
``LayerNormVariantsLSTMCell``; parameter names, initial values and numerics observed from it).

Params (under ``<layer>/rec/``; ``n`` = n_out; ``LN(x; g, b) = (x - mean) / sqrt(var + variance_epsilon) * g + b``
over the feature axis):

- ``W_ff`` ``[n_in, 4n]`` (``forward_weights_init``) and ``W_re`` ``[n, 4n]`` (``recurrent_weights_init``), or
  with ``with_concat`` one ``W_ff_re`` ``[n_in + n, 4n]`` (``recurrent_weights_init``); for ``rnn_cell`` all
  weights use ``weights_init``; default ``glorot_uniform``.
- gate input ``z`` (blocks: input i, cell input j, forget f, output o):

  - ``global_norm`` (default True): ``LN(x W_ff; gamma_input_below, beta_input_below) + LN(h W_re;
    gamma_state_below)`` (all ``[4n]``)
  - ``global_norm_joined``: ``LN(x W_ff + h W_re; gamma_lstm_in, beta_lstm_in)``
  - ``per_gate_norm``: ``x W_ff + h W_re``, then each gate block ``LN(.; gamma_<g>_gate, beta_<g>_gate)``
    (``[n]`` each, g in i, j, f, o)
  - none of these: ``x W_ff + h W_re + bias_ff`` (``bias_ff_re`` with ``with_concat``), ``[4n]``

- ``c' = sigmoid(f) * c + sigmoid(i) * dropout(activation(j))``; with ``cell_norm`` (default True)
  ``c' = LN(c'; gamma_new_c, beta_new_c)`` (``[n]``), which is also the new state ``c``
- ``h' = sigmoid(o) * activation(c')`` (with ``cell_norm_in_output=False``: the ``c'`` before its norm);
  with ``hidden_norm``: ``h' = LN(h'; gamma_new_h, beta_new_h)``. Output and state ``h`` are ``h'``.

Initial values: gammas ``norm_gain`` (1.0), betas ``norm_shift`` (0.0); ``forget_bias`` (default 0) is only an
initial value, as the reference: added to all of ``beta_input_below`` / ``beta_lstm_in``, to ``beta_f_gate``, or to
the f block of ``bias_ff``/``bias_ff_re``. ``bias_init`` of the layer is not used.

Training only (or as ``is_training`` says): ``dropout`` on ``activation(j)`` and ``dropout_h`` on the ``h`` that
enters the recurrent weights, a new mask every step (seed ``dropout_seed``).

Invalid combinations (as the reference): ``global_norm`` with ``global_norm_joined``, ``per_gate_norm`` or
``with_concat``; ``per_gate_norm`` with ``global_norm_joined``. They raise :class:`returnn.errors.LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import tensorflow as tf

from returnn.tf.layers.recurrent.cells.step_cell import ParamSpec, StepCell, matmul_last_axis
from returnn.tf.ops.dropout import cond_on_train_flag

_GATES = ("i", "j", "f", "o")
_DEFAULTS = {"norm_gain": 1.0, "norm_shift": 0.0, "forget_bias": 0.0, "activation": None, "is_training": None,
             "dropout": 0.0, "dropout_h": 0.0, "dropout_seed": None, "with_concat": False, "global_norm": True,
             "global_norm_joined": False, "per_gate_norm": False, "cell_norm": True, "cell_norm_in_output": True,
             "hidden_norm": False, "variance_epsilon": 1e-12}


class LayerNormVariantsLSTMCell(StepCell):
    """See the module docstring."""

    allowed_unit_opts = tuple(_DEFAULTS)

    def __init__(self, name: str, unit_opts: Any = None, **kwargs: Any):
        super().__init__(name, unit_opts, **kwargs)
        opts = dict(_DEFAULTS, **self.unit_opts)
        self.norm_gain = float(opts["norm_gain"])
        self.norm_shift = float(opts["norm_shift"])
        self.forget_bias = float(opts["forget_bias"])
        self.activation = _activation(opts["activation"], self)
        self.is_training = opts["is_training"]
        self.dropout = float(opts["dropout"])
        self.dropout_h = float(opts["dropout_h"])
        self.dropout_seed = opts["dropout_seed"]
        self.with_concat = bool(opts["with_concat"])
        self.global_norm = bool(opts["global_norm"])
        self.global_norm_joined = bool(opts["global_norm_joined"])
        self.per_gate_norm = bool(opts["per_gate_norm"])
        self.cell_norm = bool(opts["cell_norm"])
        self.cell_norm_in_output = bool(opts["cell_norm_in_output"])
        self.hidden_norm = bool(opts["hidden_norm"])
        self.variance_epsilon = float(opts["variance_epsilon"])
        hint = 'set "global_norm": False when using another normalization'
        if self.global_norm and self.global_norm_joined:
            raise self.opt_error("global_norm and global_norm_joined can not be enabled together:", hint=hint)
        if self.global_norm and self.per_gate_norm:
            raise self.opt_error("per_gate_norm can not be enabled with global_norm:", hint=hint)
        if self.global_norm and self.with_concat:
            raise self.opt_error("global_norm and with_concat together are not supported:", hint=hint)
        if self.per_gate_norm and self.global_norm_joined:
            raise self.opt_error("per_gate_norm can not be enabled with global_norm_joined:")

    # ---- params
    def param_specs(self, n_in: int, n: int) -> List[ParamSpec]:
        gain, shift = ("const", self.norm_gain), ("const", self.norm_shift)
        shift_fb = ("const", self.norm_shift + self.forget_bias)
        specs: List[ParamSpec] = []
        if self.with_concat:
            specs.append(("W_ff_re", (n_in + n, 4 * n), "recurrent"))
        else:
            specs.append(("W_ff", (n_in, 4 * n), "forward"))
            if self.global_norm:
                specs += [("gamma_input_below", (4 * n,), gain), ("beta_input_below", (4 * n,), shift_fb)]
            specs.append(("W_re", (n, 4 * n), "recurrent"))
            if self.global_norm:
                specs.append(("gamma_state_below", (4 * n,), gain))
        if self.global_norm_joined:
            specs += [("gamma_lstm_in", (4 * n,), gain), ("beta_lstm_in", (4 * n,), shift_fb)]
        elif self.per_gate_norm:
            for gate in _GATES:
                specs += [(f"gamma_{gate}_gate", (n,), gain),
                          (f"beta_{gate}_gate", (n,), shift_fb if gate == "f" else shift)]
        elif not self.global_norm:
            bias = [0.0] * (2 * n) + [self.forget_bias] * n + [0.0] * n
            specs.append(("bias_ff_re" if self.with_concat else "bias_ff", (4 * n,), ("const", bias)))
        if self.cell_norm:
            specs += [("gamma_new_c", (n,), gain), ("beta_new_c", (n,), shift)]
        if self.hidden_norm:
            specs += [("gamma_new_h", (n,), gain), ("beta_new_h", (n,), shift)]
        return specs

    # ---- computation
    def _norm(self, x: tf.Tensor, gamma: tf.Tensor, beta: Optional[tf.Tensor]) -> tf.Tensor:
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        y = (x - mean) * tf.math.rsqrt(variance + self.variance_epsilon) * gamma
        return y if beta is None else y + beta

    def _train_flag(self) -> Any:
        return self.train_flag if self.is_training is None else bool(self.is_training)

    def _dropout(self, x: tf.Tensor, rate: float) -> tf.Tensor:
        if not rate:
            return x
        return cond_on_train_flag(self._train_flag(), lambda: tf.nn.dropout(x, rate=rate, seed=self.dropout_seed),
                                  lambda: x)

    def project_input(self, x, params, n_in, n):
        if self.with_concat:
            return matmul_last_axis(x, params["W_ff_re"][:n_in])
        xw = matmul_last_axis(x, params["W_ff"])
        if self.global_norm:
            return self._norm(xw, params["gamma_input_below"], params["beta_input_below"])
        return xw

    def step(self, xp, state, params, n_in, n):
        c, h = state["c"], state["h"]
        h_rec = self._dropout(h, self.dropout_h)
        if self.with_concat:
            z = xp + tf.matmul(h_rec, params["W_ff_re"][n_in:])
        elif self.global_norm:
            z = xp + self._norm(tf.matmul(h_rec, params["W_re"]), params["gamma_state_below"], None)
        else:
            z = xp + tf.matmul(h_rec, params["W_re"])
        if self.global_norm_joined:
            z = self._norm(z, params["gamma_lstm_in"], params["beta_lstm_in"])
        elif not self.global_norm and not self.per_gate_norm:
            z = z + params["bias_ff_re" if self.with_concat else "bias_ff"]
        gates = tf.split(z, 4, axis=-1)
        if self.per_gate_norm:
            gates = [self._norm(g, params[f"gamma_{name}_gate"], params[f"beta_{name}_gate"])
                     for g, name in zip(gates, _GATES)]
        i, j, f, o = gates
        new_c = tf.sigmoid(f) * c + tf.sigmoid(i) * self._dropout(self.activation(j), self.dropout)
        normed_c = self._norm(new_c, params["gamma_new_c"], params["beta_new_c"]) if self.cell_norm else new_c
        new_h = tf.sigmoid(o) * self.activation(normed_c if self.cell_norm_in_output else new_c)
        if self.hidden_norm:
            new_h = self._norm(new_h, params["gamma_new_h"], params["beta_new_h"])
        return new_h, {"c": normed_c, "h": new_h}


def _activation(value: Any, cell: StepCell) -> Callable[[tf.Tensor], tf.Tensor]:
    if value is None:
        return tf.tanh
    if callable(value):
        return value
    if isinstance(value, str):
        from returnn.tf.ops.activations import get_activation_function
        try:
            fn = get_activation_function(value)
        except Exception as exc:  # noqa: BLE001 (re-raised naming the layer)
            raise cell.opt_error(f"unknown activation {value!r} in", hint=str(exc)) from None
        if fn is not None:
            return fn
    raise cell.opt_error(f"invalid activation {value!r} in", hint="a function such as tf.tanh, or its name")
