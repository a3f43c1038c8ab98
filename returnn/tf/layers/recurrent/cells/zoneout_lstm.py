"""``zoneoutlstm`` (case-insensitive, also ``ZoneoutLSTM``): TensorFlow's ``LSTMCell`` with zoneout
(Krueger et al., 2016) on the cell state and the output.

Params (under ``<layer>/rec/``, as the reference): ``lstm_cell/kernel`` ``[n_in + n, 4n]`` (rows: input, then
recurrent; initializer: the layer's ``recurrent_weights_init``, for ``rnn_cell`` its ``weights_init``, default
``glorot_uniform``) and ``lstm_cell/bias`` ``[4n]`` (zeros; ``bias_init`` is not used). Gate blocks (input i,
cell input j, forget f, output o), forget bias 1.0::

    c' = sigmoid(f + 1) * c + sigmoid(i) * tanh(j);  h' = sigmoid(o) * tanh(c')
    training:   c_new = c where mask_c else c' (mask_c ~ Bernoulli(zoneout_factor_cell), new each step),
                h_new likewise with zoneout_factor_output
    otherwise:  c_new = (1 - zoneout_factor_cell) * c' + zoneout_factor_cell * c, h_new likewise

The state is ``(c_new, h_new)``. The output is ``h'`` (default, ``use_zoneout_output`` False, as the reference)
or ``h_new`` (``use_zoneout_output=True``).

``unit_opts``: ``zoneout_factor_cell`` (default 0), ``zoneout_factor_output`` (default 0),
``use_zoneout_output``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tensor import NotSpecified
from returnn.tf.layers.recurrent.cells.step_cell import StepCell, matmul_last_axis
from returnn.tf.ops.dropout import cond_on_train_flag

FORGET_BIAS = 1.0


class ZoneoutLSTMCell(StepCell):
    """See the module docstring."""

    allowed_unit_opts = ("zoneout_factor_cell", "zoneout_factor_output", "use_zoneout_output")

    def __init__(self, name: str, unit_opts: Any = None, **kwargs: Any):
        super().__init__(name, unit_opts, **kwargs)
        self.zoneout_cell = float(self.unit_opts.get("zoneout_factor_cell", 0.0))
        self.zoneout_output = float(self.unit_opts.get("zoneout_factor_output", 0.0))
        use_out = self.unit_opts.get("use_zoneout_output", NotSpecified)
        self.use_zoneout_output = False if use_out is NotSpecified or use_out is None else bool(use_out)
        for key, value in (("zoneout_factor_cell", self.zoneout_cell), ("zoneout_factor_output", self.zoneout_output)):
            if not 0.0 <= value <= 1.0:
                raise self.opt_error(f"{key} must be in [0, 1] in")

    def param_specs(self, n_in, n):
        return [("lstm_cell/kernel", (n_in + n, 4 * n), "recurrent"), ("lstm_cell/bias", (4 * n,), ("const", 0.0))]

    def project_input(self, x, params, n_in, n):
        return matmul_last_axis(x, params["lstm_cell/kernel"][:n_in]) + params["lstm_cell/bias"]

    def step(self, xp, state, params, n_in, n):
        c, h = state["c"], state["h"]
        z = xp + tf.matmul(h, params["lstm_cell/kernel"][n_in:])
        i, j, f, o = tf.split(z, 4, axis=-1)
        new_c = tf.sigmoid(f + FORGET_BIAS) * c + tf.sigmoid(i) * tf.tanh(j)
        new_h = tf.sigmoid(o) * tf.tanh(new_c)
        c_out = _zoneout(new_c, c, self.zoneout_cell, self.train_flag)
        h_out = _zoneout(new_h, h, self.zoneout_output, self.train_flag)
        return (h_out if self.use_zoneout_output else new_h), {"c": c_out, "h": h_out}


def _zoneout(new: tf.Tensor, prev: tf.Tensor, factor: float, train_flag: Any) -> tf.Tensor:
    """:return: ``new`` with zoneout towards ``prev``: random keep-``prev`` mask in training, the expectation
    otherwise"""
    if not factor:
        return new

    def train() -> tf.Tensor:
        keep_prev = tf.random.uniform(tf.shape(new), dtype=new.dtype) < factor
        return tf.where(keep_prev, prev, new)

    def evaluate() -> tf.Tensor:
        return (1.0 - factor) * new + factor * prev

    return cond_on_train_flag(train_flag, train, evaluate)

