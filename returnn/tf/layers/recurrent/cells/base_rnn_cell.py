"""Base class for user-defined TensorFlow RNN cells used as a ``rec`` layer's string ``unit``.

A cell class registered in :attr:`returnn.tf.layers.rec.RecLayer._rnn_cells_dict` (after
``RecLayer._create_rnn_cells_dict()``) under a lower-case name can be used as ``{"class": "rec", "unit": name}``;
it is built as ``cell_class(n_out, **unit_opts)`` and run over time with ``tf.compat.v1.nn.dynamic_rnn``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf
# TF's own legacy (graph-mode) RNN cell base: ``tf.compat.v1.nn.rnn_cell.RNNCell`` is not reachable with Keras 3
from tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl import RNNCell


class BaseRNNCell(RNNCell):
    """A ``tf.compat.v1.nn.rnn_cell.RNNCell`` (subclasses define ``output_size``, ``state_size`` and
    ``call(inputs, state) -> (output, new_state)``, inputs ``[B, n_in]``), with a hook for the input."""

    def get_input_transformed(self, x: tf.Tensor, batch_dim: Optional[Any] = None) -> tf.Tensor:
        """Transforms the whole input sequence once before the loop (e.g. an input projection).

        :param x: the input, ``[T, B, n_in]`` (time-major) or one frame ``[B, n_in]``
        :param batch_dim: the batch size (scalar int32), if known
        :return: ``x`` unchanged (the default; subclasses may override)
        """
        return x
