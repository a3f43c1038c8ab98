"""``standardlstm`` with peephole connections or a cell clip (``unit_opts`` ``use_peepholes``, ``cell_clip``):
TensorFlow's ``LSTMCell`` layout, as a step cell.

Params (under ``<layer>/rec/``, the names TensorFlow's ``LSTMCell`` gives them, as the reference):
``lstm_cell/kernel`` ``[n_in + n, 4n]`` (rows: input, then recurrent; initializer: the layer's
``recurrent_weights_init``, for ``rnn_cell`` its ``weights_init``), ``lstm_cell/bias`` ``[4n]`` (zeros) and, with
``use_peepholes``, the diagonal peephole weights ``lstm_cell/w_f_diag``, ``lstm_cell/w_i_diag``,
``lstm_cell/w_o_diag`` ``[n]`` (same initializer as the kernel). Gate blocks (input i, cell input j, forget f,
output o)::

    c' = sigmoid(f + forget_bias + w_f * c) * c + sigmoid(i + w_i * c) * tanh(j)
    c' = clip(c', -cell_clip, cell_clip)            (with cell_clip)
    h' = sigmoid(o + w_o * c') * tanh(c')

(the ``w_*`` terms only with ``use_peepholes``). State ``(c', h')``, output ``h'``.

``unit_opts``: ``forget_bias`` (default 1.0), ``use_peepholes`` (default False), ``cell_clip`` (default None).
Without peepholes and clip, ``standardlstm`` runs on the fast LSTM kernel instead (same params and numerics).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tf.layers.recurrent.cells.step_cell import StepCell, matmul_last_axis

PEEPHOLE_PARAMS = ("w_f_diag", "w_i_diag", "w_o_diag")


class StandardLSTMCell(StepCell):
    """See the module docstring.

    :param cell_name: the params' sub-scope (``lstm_cell``)
    """

    allowed_unit_opts = ("forget_bias", "use_peepholes", "cell_clip")

    def __init__(self, name: str, unit_opts: Any = None, *, cell_name: str = "lstm_cell", **kwargs: Any):
        super().__init__(name, unit_opts, **kwargs)
        self.cell_name = cell_name
        self.forget_bias = float(self.unit_opts.get("forget_bias", 1.0))
        self.use_peepholes = bool(self.unit_opts.get("use_peepholes", False))
        cell_clip = self.unit_opts.get("cell_clip")
        self.cell_clip = None if cell_clip is None else float(cell_clip)
        if self.cell_clip is not None and self.cell_clip <= 0:
            raise self.opt_error("cell_clip must be a positive number in")

    def param_specs(self, n_in, n):
        specs = [(f"{self.cell_name}/kernel", (n_in + n, 4 * n), "recurrent"),
                 (f"{self.cell_name}/bias", (4 * n,), ("const", 0.0))]
        if self.use_peepholes:
            specs += [(f"{self.cell_name}/{name}", (n,), "recurrent") for name in PEEPHOLE_PARAMS]
        return specs

    def project_input(self, x, params, n_in, n):
        return matmul_last_axis(x, params[f"{self.cell_name}/kernel"][:n_in]) + params[f"{self.cell_name}/bias"]

    def step(self, xp, state, params, n_in, n):
        c, h = state["c"], state["h"]
        z = xp + tf.matmul(h, params[f"{self.cell_name}/kernel"][n_in:])
        i, j, f, o = tf.split(z, 4, axis=-1)
        if self.use_peepholes:
            w_f, w_i, w_o = (params[f"{self.cell_name}/{name}"] for name in PEEPHOLE_PARAMS)
            new_c = tf.sigmoid(f + self.forget_bias + w_f * c) * c + tf.sigmoid(i + w_i * c) * tf.tanh(j)
        else:
            new_c = tf.sigmoid(f + self.forget_bias) * c + tf.sigmoid(i) * tf.tanh(j)
        if self.cell_clip is not None:
            new_c = tf.clip_by_value(new_c, -self.cell_clip, self.cell_clip)
        if self.use_peepholes:
            new_h = tf.sigmoid(o + w_o * new_c) * tf.tanh(new_c)
        else:
            new_h = tf.sigmoid(o) * tf.tanh(new_c)
        return new_h, {"c": new_c, "h": new_h}
