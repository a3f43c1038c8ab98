"""The reference's native recurrent cells over a whole sequence (``RecSeqCellOp`` and its LSTM cells), on the
TF-op kernels of :mod:`returnn.tf.ops.native.lstm2` and :mod:`returnn.tf.ops.rnn.native_lstm_op`.

A cell is called on time-major inputs ``[T, B, ...]`` and the index ``[T, B]`` (1: real frame) and returns
``(output [T, B, n], final_state)``. Its variables are created with ``tf.compat.v1.get_variable`` in the
current variable scope: ``W_re`` ``[n, 4n]`` (the recurrent weights), and for the low-memory cell ``W``
``[n_in + n, 4n]`` and ``b`` ``[4n]``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

import tensorflow as tf

from returnn.tf.ops.native.lstm2 import lstm_last_output, lstm_low_mem, native_lstm2
from returnn.tf.ops.rnn.native_lstm_op import native_lstm


class LSTMStateTuple(NamedTuple):
    """The state of an LSTM: cell state ``c``, output ``h`` (the field order of TF's ``LSTMStateTuple``)."""

    c: Any
    h: Any


class RecSeqCellOp:
    """A recurrent cell over a whole sequence.

    :param n_hidden: the output dimension ``n``
    :param n_input_dim: the input dimension (the cells that project their input need it)
    :param n_input_dim_parts: accepted (the input dimension split into parts)
    :param input_is_sparse: accepted (sparse inputs are not supported by these cells)
    :param step: the direction, 1 (default) or -1 (backwards), for cells that handle the direction
    """

    #: the cell projects its input itself (else it takes the projected ``[T, B, 4n]``)
    does_input_projection = False
    #: the cell runs backwards itself for ``step=-1``
    does_direction_handling = False

    def __init__(self, n_hidden: int, n_input_dim: Optional[int] = None, n_input_dim_parts: Any = None,
                 input_is_sparse: bool = False, step: Optional[int] = None):
        self.n_hidden = n_hidden
        self.n_input_dim = n_input_dim
        self.n_input_dim_parts = n_input_dim_parts
        self.input_is_sparse = input_is_sparse
        self.step = step

    @property
    def state_size(self) -> int:
        """The size of the state (the cell state)."""
        return self.n_hidden

    def __call__(self, inputs: tf.Tensor, index: tf.Tensor, initial_state: Any = None,
                 recurrent_weights_initializer: Any = None) -> Tuple[tf.Tensor, Any]:
        raise NotImplementedError(f"{type(self).__name__} does not implement __call__")

    def _rec_weights(self, recurrent_weights_initializer: Any) -> tf.Variable:
        n = self.n_hidden
        return tf.compat.v1.get_variable("W_re", shape=(n, 4 * n), initializer=recurrent_weights_initializer)

    def _zeros_state(self, inputs: tf.Tensor) -> tf.Tensor:
        return tf.zeros(tf.stack([tf.shape(inputs)[1], self.n_hidden]), dtype=inputs.dtype)


def _add_forget_bias(inputs: tf.Tensor, n: int, forget_bias: float) -> tf.Tensor:
    if not forget_bias:
        return inputs
    bias = tf.concat([tf.zeros([2 * n]), tf.fill([n], float(forget_bias)), tf.zeros([n])], axis=0)
    return inputs + tf.cast(bias, inputs.dtype)


class NativeLstmCell(RecSeqCellOp):
    """The LSTM cell of the ``nativelstm`` unit: input ``[T, B, 4n]`` already projected; the initial output is 0.

    :param forget_bias: added to the forget gate's pre-activation
    :return of ``__call__``: ``(Y [T, B, n], d [B, n])``, ``d`` the cell state after the last real frame
    """

    def __init__(self, forget_bias: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.forget_bias = forget_bias

    def __call__(self, inputs: tf.Tensor, index: tf.Tensor, initial_state: Any = None,
                 recurrent_weights_initializer: Any = None) -> Tuple[tf.Tensor, tf.Tensor]:
        inputs = _add_forget_bias(tf.convert_to_tensor(inputs), self.n_hidden, self.forget_bias)
        w_re = self._rec_weights(recurrent_weights_initializer)
        c0 = self._zeros_state(inputs) if initial_state is None else tf.convert_to_tensor(initial_state)
        y, _, d = native_lstm(inputs, tf.convert_to_tensor(w_re), c0, tf.cast(index, tf.float32))
        return y, d


class NativeLstm2(RecSeqCellOp):
    """The LSTM cell of the ``nativelstm2`` unit: input ``[T, B, 4n]`` already projected, initial output and cell
    state given (or 0), direction by ``step``.

    :param rec_weight_dropout: dropout rate on ``W_re`` (in training; here always applied when non-zero)
    :param rec_weight_dropout_shape: the noise shape of that dropout (None per axis: independent)
    :param forget_bias: added to the forget gate's pre-activation
    :return of ``__call__``: ``(Y [T, B, n], LSTMStateTuple(c=d, h=last output))``
    """

    does_direction_handling = True

    def __init__(self, rec_weight_dropout: float = 0.0, rec_weight_dropout_shape: Any = None,
                 forget_bias: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.rec_weight_dropout = rec_weight_dropout
        self.rec_weight_dropout_shape = rec_weight_dropout_shape
        self.forget_bias = forget_bias

    @property
    def state_size(self) -> Any:
        """``LSTMStateTuple(c=n, h=n)``."""
        return LSTMStateTuple(c=self.n_hidden, h=self.n_hidden)

    def __call__(self, inputs: tf.Tensor, index: tf.Tensor, initial_state: Any = None,
                 recurrent_weights_initializer: Any = None) -> Tuple[tf.Tensor, Any]:
        inputs = _add_forget_bias(tf.convert_to_tensor(inputs), self.n_hidden, self.forget_bias)
        w_re = tf.convert_to_tensor(self._rec_weights(recurrent_weights_initializer))
        if self.rec_weight_dropout:
            noise_shape = None
            if self.rec_weight_dropout_shape is not None:
                noise_shape = [dim if s is None else s
                               for s, dim in zip(self.rec_weight_dropout_shape, (self.n_hidden, 4 * self.n_hidden))]
            w_re = tf.nn.dropout(w_re, rate=self.rec_weight_dropout, noise_shape=noise_shape)
        if initial_state is None:
            c0 = y0 = self._zeros_state(inputs)
        else:
            c0, y0 = tf.convert_to_tensor(initial_state[0]), tf.convert_to_tensor(initial_state[1])
        step = 1 if self.step is None else self.step
        index = tf.cast(index, tf.float32)
        y, _, _, d = native_lstm2(inputs, w_re, y0, c0, index, 0, step)
        last = lstm_last_output(y, y0, index, 0, step)
        return y, LSTMStateTuple(c=d, h=last)


class NativeLstmLowMemCell(RecSeqCellOp):
    """The LSTM cell of the ``nativelstmlowmem`` unit: it projects its input ``[T, B, n_input_dim]`` itself
    (variables ``W`` ``[n_input_dim + n, 4n]``, ``b`` ``[4n]``), step by step.

    :return of ``__call__``: ``(Y [T, B, n], d [B, n])``
    """

    does_input_projection = True
    does_direction_handling = True

    def __call__(self, inputs: tf.Tensor, index: tf.Tensor, initial_state: Any = None,
                 recurrent_weights_initializer: Any = None) -> Tuple[tf.Tensor, tf.Tensor]:
        if self.n_input_dim is None:
            raise ValueError("NativeLstmLowMemCell: n_input_dim is needed (the input projection is done here), "
                             "got None")
        inputs = tf.convert_to_tensor(inputs)
        n = self.n_hidden
        w = tf.compat.v1.get_variable("W", shape=(self.n_input_dim + n, 4 * n),
                                      initializer=recurrent_weights_initializer)
        b = tf.compat.v1.get_variable("b", shape=(4 * n,), initializer=tf.zeros_initializer())
        c0 = self._zeros_state(inputs) if initial_state is None else tf.convert_to_tensor(initial_state)
        step = 1 if self.step is None else self.step
        y, _, d = lstm_low_mem(inputs, w, b, self._zeros_state(inputs), c0, tf.cast(index, tf.float32), 0, step)
        return y, d

