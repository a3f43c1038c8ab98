"""The reference's ``make_op`` / ``OpMaker``: a TF op from a :mod:`returnn.native_op` description class. Nothing is
compiled here: each description that this project provides maps to its TensorFlow-op implementation under
:mod:`returnn.tf.ops.native` (or :mod:`returnn.tf.ops.rnn.native_lstm_op`); the others raise
:class:`returnn.tf.util.errors.NativeOpsUnavailableError` naming the op.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional

from returnn.tf.ops.native import chunking, ctc, edit_distance_ops, fsa_search, lstm2
from returnn.tf.ops.rnn.native_lstm_op import lstm_grad_op, native_lstm
from returnn.tf.util.errors import NativeOpsUnavailableError


def _with_grad(func: Callable[..., Any], grad_op: Optional[Callable[..., Any]]) -> Callable[..., Any]:
    @functools.wraps(func)
    def op(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    op.grad_op = grad_op
    return op


def _ops() -> Dict[str, Callable[..., Any]]:
    """Description class name -> op."""
    return {
        # (X, W_re, y0, c0, index, start, step) -> (Y, C, H, d); grad: (..., Y, C, H, d, dY, dd) -> dX, dW, dy0, dc0
        "NativeLstm2": _with_grad(lstm2.native_lstm2, lstm2.gradient_op(lstm2.native_lstm2, 7, (0, 1, 2, 3), (0, 3))),
        # (X, W, b, y0, c0, index, start, step) -> (Y, C, d); grad: (..., Y, C, dY, dd) -> dX, dW, db, dy0, dc0
        "LstmLowMem": _with_grad(lstm2.lstm_low_mem,
                                 lstm2.gradient_op(lstm2.lstm_low_mem, 8, (0, 1, 2, 3, 4), (0, 2))),
        "NativeLstm": _with_grad(native_lstm, lstm_grad_op),
        "LstmGenericBase": _with_grad(native_lstm, lstm_grad_op),
        "Chunking": _with_grad(chunking.chunk, None),
        "UnChunking": _with_grad(chunking.unchunk, None),
        "FastBaumWelchOp": _with_grad(fsa_search.fast_baum_welch, None),
        "FastViterbiOp": _with_grad(fsa_search.fast_viterbi, None),
        "GetCtcFsaFastBwOp": _with_grad(ctc.get_ctc_fsa_fast_bw, None),
        "EditDistanceOp": _with_grad(edit_distance_ops.edit_distance, None),
        "OptimalCompletionEditDistanceOp": _with_grad(edit_distance_ops.optimal_completion_edit_distance, None),
        "OptimalCompletionEditDistancePerSuccessorOp": _with_grad(
            edit_distance_ops.optimal_completion_edit_distance_per_successor, None),
        "NextEditDistanceRowOp": _with_grad(edit_distance_ops.next_edit_distance_row, None),
        "NextEditDistanceReduceOp": _with_grad(edit_distance_ops.next_edit_distance_reduce, None),
    }


class OpMaker:
    """Makes the op of a :mod:`returnn.native_op` description class.

    :param description: the description class (e.g. ``returnn.native_op.NativeLstm2``)
    :param compiler_opts: accepted and ignored (nothing is compiled)
    :param kwargs: the reference's other options (``search_for_runtime_blas``, ...), ignored
    :raises NativeOpsUnavailableError: for a description without an implementation here
    """

    #: the reference's switch for CUDA kernels; unused here (the TF ops run on whatever device TF places them)
    with_cuda: Optional[bool] = None

    def __init__(self, description: Any, compiler_opts: Optional[Dict[str, Any]] = None, **kwargs: Any):
        del compiler_opts, kwargs
        self.description = description
        self.name = getattr(description, "__name__", type(description).__name__)
        if self.name not in _ops():
            raise NativeOpsUnavailableError(None, op=f"returnn.native_op.{self.name}")

    def make_op(self) -> Callable[..., Any]:
        """:return: the op function; its ``grad_op`` attribute (where the reference's op has one) computes the
        input gradients from the inputs, outputs and output gradients"""
        return _ops()[self.name]


def make_op(cls: Any, **kwargs: Any) -> Callable[..., Any]:
    """:param cls: a :mod:`returnn.native_op` description class
    :param kwargs: ``compiler_opts`` etc., accepted and ignored
    :return: the op function (see :meth:`OpMaker.make_op`)
    :raises NativeOpsUnavailableError: for a description without an implementation here
    """
    return OpMaker(cls, **kwargs).make_op()
