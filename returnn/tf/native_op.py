"""Public import path ``returnn.tf.native_op`` (the reference's module of its compiled native ops).

This project compiles no C++/CUDA ops: the same functions and classes are TensorFlow-op implementations, with the
reference's names, signatures, shapes and values:

- :func:`make_op` / :class:`OpMaker` map a :mod:`returnn.native_op` description to its op
  (:mod:`returnn.tf.util.native_op_maker`); ``make_lstm_op`` is the ``NativeLstm`` op (op type
  ``LstmGenericBase``, :mod:`returnn.tf.ops.rnn.native_lstm_op`);
- the LSTM cells ``NativeLstmCell``, ``NativeLstm2``, ``NativeLstmLowMemCell`` (:mod:`returnn.tf.ops.native.cells`);
- ``chunk`` / ``unchunk`` (:mod:`returnn.tf.ops.native.chunking`);
- ``fast_baum_welch``, ``fast_viterbi`` over FSAs in the edge-list layout (:mod:`returnn.tf.ops.native.fsa_search`),
  the CTC FSA and the CTC losses ``ctc_loss``, ``ctc_loss_viterbi`` (:mod:`returnn.tf.ops.native.ctc`);
- the edit distance ops (:mod:`returnn.tf.ops.native.edit_distance_ops`).

Not provided (calling raises :class:`returnn.tf.util.errors.NativeOpsUnavailableError` naming it): the 2D LSTM
cell, Baum-Welch on Sprint/RASR automata, blocksparse (``have_blocksparse_requirements`` answers False).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

import tensorflow as tf  # noqa: F401  (a module-level name of the reference's module, for star imports)

import returnn.tf.compat as tf_compat  # noqa: F401  (as in the reference's module)
import returnn.tf.util.basic as tf_util  # noqa: F401  (as in the reference's module)
from returnn.tf.ops.native.cells import NativeLstm2 as NativeLstm2
from returnn.tf.ops.native.cells import NativeLstmCell as NativeLstmCell
from returnn.tf.ops.native.cells import NativeLstmLowMemCell as NativeLstmLowMemCell
from returnn.tf.ops.native.cells import RecSeqCellOp as RecSeqCellOp
from returnn.tf.ops.native.chunking import chunk as chunk
from returnn.tf.ops.native.chunking import unchunk as unchunk
from returnn.tf.ops.native.ctc import ctc_loss as ctc_loss
from returnn.tf.ops.native.ctc import ctc_loss_viterbi as ctc_loss_viterbi
from returnn.tf.ops.native.ctc import get_ctc_fsa_fast_bw as get_ctc_fsa_fast_bw
from returnn.tf.ops.native.edit_distance_ops import edit_distance as edit_distance
from returnn.tf.ops.native.edit_distance_ops import (
    edit_distance_via_next_edit_distance_row as edit_distance_via_next_edit_distance_row)
from returnn.tf.ops.native.edit_distance_ops import next_edit_distance_reduce as next_edit_distance_reduce
from returnn.tf.ops.native.edit_distance_ops import next_edit_distance_row as next_edit_distance_row
from returnn.tf.ops.native.edit_distance_ops import (
    optimal_completion_edit_distance as optimal_completion_edit_distance)
from returnn.tf.ops.native.edit_distance_ops import (
    optimal_completion_edit_distance_per_successor as optimal_completion_edit_distance_per_successor)
from returnn.tf.ops.native.edit_distance_ops import (
    optimal_completion_edit_distance_per_successor_via_next_edit_distance as
    optimal_completion_edit_distance_per_successor_via_next_edit_distance)
from returnn.tf.ops.native.fsa_search import fast_baum_welch as fast_baum_welch
from returnn.tf.ops.native.fsa_search import fast_viterbi as fast_viterbi
from returnn.tf.ops.native.lstm2 import lstm_last_output as _lstm_last_output  # noqa: F401  (used by its tests)
from returnn.tf.ops.rnn.native_lstm_op import native_lstm
from returnn.tf.util.errors import NativeOpsUnavailableError
from returnn.tf.util.native_op_maker import OpMaker as OpMaker
from returnn.tf.util.native_op_maker import make_op as make_op

import returnn.native_op as native_op  # noqa: F401  (as in the reference's module)


def make_lstm_op(**kwargs: Any) -> Callable[..., Any]:
    """The reference's factory of its native LSTM op.

    :param kwargs: the reference's options (``compiler_opts``, ...): accepted and ignored (nothing is compiled)
    :return: ``op(Z, V_h, c, i) -> (Y, H, d)``, an op of type ``LstmGenericBase`` (see
        :mod:`returnn.tf.ops.rnn.native_lstm_op` for shapes and meaning); its gradient is an op of type
        ``GradOfLstmGenericBase``, reachable as ``tensorflow.python.framework.ops.get_gradient_function(op).grad_op``
    """
    del kwargs
    return native_lstm


def make_fast_baum_welch_op(**kwargs: Any) -> Callable[..., Any]:
    """:param kwargs: ``compiler_opts`` etc., accepted and ignored
    :return: the Baum-Welch op, :func:`fast_baum_welch`"""
    del kwargs
    return fast_baum_welch


def _unavailable(name: str) -> NoReturn:
    raise NativeOpsUnavailableError(None, op=f"returnn.tf.native_op.{name}")


class TwoDNativeLstmCell(RecSeqCellOp):
    """The reference's native 2D LSTM cell (not provided here).

    :raises NativeOpsUnavailableError: when called
    """

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        del args, kwargs
        _unavailable("TwoDNativeLstmCell")


def fast_baum_welch_by_sprint_automata(am_scores: Any, float_idx: Any, tags: Any, sprint_opts: Any,
                                       tdp_scale: float = 1.0) -> NoReturn:
    """Baum-Welch over the automata of a Sprint (RASR) subprocess: not provided here (no RASR).

    :raises NativeOpsUnavailableError: always
    """
    del am_scores, float_idx, tags, sprint_opts, tdp_scale
    _unavailable("fast_baum_welch_by_sprint_automata")


def init_blocksparse(*args: Any, **kwargs: Any) -> NoReturn:
    """Sets up OpenAI's blocksparse ops: not provided here.

    :raises NativeOpsUnavailableError: always
    """
    del args, kwargs
    _unavailable("init_blocksparse")


def have_blocksparse_requirements() -> bool:
    """Whether OpenAI's ``blocksparse`` ops can be used: never here (this project does not use that package;
    the reference needs it and a GPU).

    :return: False
    """
    return False
