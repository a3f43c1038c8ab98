"""Public import path ``returnn.tf.native_op`` (the reference's module of its compiled native ops).

This project compiles no C++/CUDA ops. The LSTM op of the reference's ``NativeLstm`` unit is provided as graph
functions of TensorFlow ops with the same op types, inputs and outputs (``LstmGenericBase`` and its gradient op
``GradOfLstmGenericBase``): see :mod:`returnn.tf.ops.rnn.native_lstm_op`. Other native ops of the reference are not
available here.
"""

from __future__ import annotations

from typing import Any, Callable

from returnn.tf.ops.rnn.native_lstm_op import native_lstm


def make_lstm_op(**kwargs: Any) -> Callable[..., Any]:
    """The reference's factory of its native LSTM op.

    :param kwargs: the reference's options (``compiler_opts``, ...): accepted and ignored (nothing is compiled)
    :return: ``op(Z, V_h, c, i) -> (Y, H, d)``, an op of type ``LstmGenericBase`` (see
        :mod:`returnn.tf.ops.rnn.native_lstm_op` for shapes and meaning); its gradient is an op of type
        ``GradOfLstmGenericBase``, reachable as ``tensorflow.python.framework.ops.get_gradient_function(op).grad_op``
    """
    del kwargs
    return native_lstm
