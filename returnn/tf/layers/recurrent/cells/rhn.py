"""``rhn``: a recurrent highway network (Zilly et al., 2017) with coupled carry gate, as a step cell, and
:class:`RHNCell`, the same cell as a TensorFlow RNN cell (the reference's public class).

One frame runs ``depth`` highway micro-steps on the state ``s`` (``n`` cells)::

    for l in 0 .. depth-1:
        a = [x W + b if l == 0 else 0] + (s * mask) W_l                 # [B, 2n]: (h, t) blocks
        h = tanh(a[:, :n]);  t = sigmoid(a[:, n:])
        s = h * t + s * (1 - t)

The output is the new ``s``. ``mask`` is the recurrent dropout mask (training only, rate ``dropout``, scaled by
``1 / (1 - dropout)``, one mask per sequence for a whole run over time; inside a rec loop a new mask per step).

Params (under ``<layer>/rec/``, the reference's names, observed): ``W`` ``[n_in, 2n]`` and ``b`` ``[2n]`` (the
input transform; initializer: the layer's ``forward_weights_init``; ``b`` starts at zero) and per micro-step ``l``
``rhn_cell/depth_<l>/W`` ``[n, 2n]`` (``recurrent_weights_init``).

``unit_opts``: ``depth`` (default 5), ``dropout`` (default 0), ``dropout_seed`` (op seed of the masks),
``batch_size`` (accepted; the batch size is taken from the input).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.tf.layers.recurrent.cells.base_rnn_cell import BaseRNNCell
from returnn.tf.layers.recurrent.cells.step_cell import StepCell, matmul_last_axis
from returnn.tf.ops.dropout import cond_on_train_flag

DEFAULT_DEPTH = 5


def rhn_step(xp: tf.Tensor, s: tf.Tensor, recurrent: Any, n: int, mask: Optional[tf.Tensor] = None) -> tf.Tensor:
    """One frame of the highway recurrence (see the module docstring).

    :param xp: [B, 2n], the frame's input transform ``x W + b``
    :param s: [B, n], the state
    :param recurrent: per micro-step ``W_l`` [n, 2n]
    :param mask: [B, n] recurrent dropout mask (scaled), or None
    :return: the new state [B, n] (also the output)
    """
    for depth, w in enumerate(recurrent):
        s_in = s * mask if mask is not None else s
        a = tf.matmul(s_in, w)
        if depth == 0:
            a = a + xp
        h = tf.tanh(a[:, :n])
        t = tf.sigmoid(a[:, n:])
        s = h * t + s * (1.0 - t)
    return s


def dropout_mask(shape: Any, rate: float, seed: Optional[int]) -> tf.Tensor:
    """:return: float32 mask of ``shape``: 0 with probability ``rate``, else ``1 / (1 - rate)``"""
    keep = 1.0 - rate
    return tf.floor(keep + tf.random.uniform(shape, seed=seed)) / keep


class RHNStepCell(StepCell):
    """The ``rhn`` unit of ``rec`` (see the module docstring)."""

    state_names = ("h",)
    allowed_unit_opts = ("depth", "dropout", "dropout_seed", "batch_size")

    def __init__(self, name: str, unit_opts: Any = None, **kwargs: Any):
        super().__init__(name, unit_opts, **kwargs)
        self.depth = int(self.unit_opts.get("depth", DEFAULT_DEPTH))
        self.dropout = float(self.unit_opts.get("dropout", 0.0) or 0.0)
        self.dropout_seed = self.unit_opts.get("dropout_seed")
        if self.depth < 1:
            raise self.opt_error("depth must be at least 1 in")
        if not 0.0 <= self.dropout < 1.0:
            raise self.opt_error("dropout must be in [0, 1) in")
        self._mask: Optional[tf.Tensor] = None

    def param_specs(self, n_in, n):
        specs = [("W", (n_in, 2 * n), "forward"), ("b", (2 * n,), ("const", 0.0))]
        specs += [(f"rhn_cell/depth_{depth}/W", (n, 2 * n), "recurrent") for depth in range(self.depth)]
        return specs

    def begin_run(self, batch_size: tf.Tensor, n: int) -> None:
        """Draws the dropout mask of a run over time (one per sequence)."""
        self._mask = self._draw_mask(batch_size, n)

    def _draw_mask(self, batch_size: tf.Tensor, n: int) -> Optional[tf.Tensor]:
        if not self.dropout:
            return None
        rate, seed = self.dropout, self.dropout_seed
        return cond_on_train_flag(self.train_flag, lambda: dropout_mask(tf.stack([batch_size, n]), rate, seed),
                                  lambda: tf.ones(tf.stack([batch_size, n])))

    def project_input(self, x, params, n_in, n):
        return matmul_last_axis(x, params["W"]) + params["b"]

    def step(self, xp, state, params, n_in, n):
        mask = self._mask if self._mask is not None else self._draw_mask(tf.shape(xp)[0], n)
        s = rhn_step(xp, state["h"], [params[f"rhn_cell/depth_{d}/W"] for d in range(self.depth)], n, mask)
        return s, {"h": s}


class RHNCell(BaseRNNCell):
    """The ``rhn`` cell as a TensorFlow RNN cell: ``cell(inputs, state) -> (output, new_state)`` with the
    inputs from :meth:`get_input_transformed` (``[B, 2n]`` per frame). Creates its variables (``W``, ``b``,
    ``rhn_cell/depth_<l>/W``, see the module docstring) with ``tf.compat.v1.get_variable`` in the current variable
    scope (its default initializer for the weights).

    :param num_units: n
    :param is_training: python bool or bool tensor: whether the dropout mask is applied
    :param depth: number of highway micro-steps per frame
    :param dropout: recurrent dropout rate
    :param dropout_seed: op seed of the mask
    :param batch_size: int or int32 scalar: the batch size (for the dropout mask, drawn once per cell)
    """

    def __init__(self, num_units: int, is_training: Any = False, depth: int = DEFAULT_DEPTH, dropout: float = 0.0,
                 dropout_seed: Optional[int] = None, batch_size: Any = None):
        super().__init__()
        self._num_units = num_units
        self.is_training = is_training
        self.depth = depth
        self.dropout = dropout
        self.dropout_seed = dropout_seed
        self.batch_size = batch_size
        self._mask: Optional[tf.Tensor] = None
        self._vars: Dict[str, tf.Variable] = {}

    @property
    def output_size(self) -> int:
        return self._num_units

    @property
    def state_size(self) -> int:
        return self._num_units

    def _var(self, name: str, shape: Any, initializer: Any = None) -> tf.Variable:
        if name not in self._vars:
            self._vars[name] = tf.compat.v1.get_variable(name, shape=shape, dtype=tf.float32,
                                                         initializer=initializer)
        return self._vars[name]

    def get_input_transformed(self, x: tf.Tensor, batch_dim: Optional[Any] = None) -> tf.Tensor:
        """:param x: ``[T, B, n_in]`` or ``[B, n_in]``
        :return: ``x W + b``, ``[..., 2n]``"""
        n_in = int(x.shape[-1])
        w = self._var("W", [n_in, 2 * self._num_units])
        b = self._var("b", [2 * self._num_units], tf.zeros_initializer())
        return matmul_last_axis(x, w) + b

    def _mask_for(self, state: tf.Tensor) -> Optional[tf.Tensor]:
        if not self.dropout:
            return None
        if self._mask is None:
            batch = self.batch_size if self.batch_size is not None else tf.shape(state)[0]
            rate, seed = self.dropout, self.dropout_seed
            self._mask = cond_on_train_flag(
                self.is_training, lambda: dropout_mask(tf.stack([batch, self._num_units]), rate, seed),
                lambda: tf.ones(tf.stack([batch, self._num_units])))
        return self._mask

    def call(self, inputs: tf.Tensor, state: tf.Tensor) -> Any:
        n = self._num_units
        # in the cell's own variable scope "rhn_cell" (TF's RNNCell call): "<scope>/rhn_cell/depth_<l>/W"
        recurrent = [self._var(f"depth_{d}/W", [n, 2 * n]) for d in range(self.depth)]
        s = rhn_step(inputs, state, recurrent, n, self._mask_for(state))
        return s, s
