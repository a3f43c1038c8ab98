"""Public import path ``returnn.tf.native_op`` (the reference's module of its compiled native ops).

This project compiles no C++/CUDA ops. The LSTM op of the reference's ``NativeLstm`` unit is provided as graph
functions of TensorFlow ops with the same op types, inputs and outputs (``LstmGenericBase`` and its gradient op
``GradOfLstmGenericBase``): see :mod:`returnn.tf.ops.rnn.native_lstm_op`. The other native ops' names (``make_op``,
the native LSTM cells, ``fast_baum_welch``, ``fast_viterbi``, ``ctc_loss``, ``chunk``, the edit distance ops,
blocksparse) are here so that code importing them loads; calling one raises
:class:`returnn.tf.util.errors.NativeOpsUnavailableError` naming it. ``have_blocksparse_requirements`` answers
honestly (the ``blocksparse`` package is not used here: False). Where the reference's layers use these ops, this
project's layers compute the same on TF ops (rec units ``nativelstm2``/``lstm``, the CTC loss on
``tf.nn.ctc_loss``, ``edit_distance`` layers on ``tf.edit_distance``).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

import tensorflow as tf  # noqa: F401  (a module-level name of the reference's module, for star imports)

from returnn.tf.ops.rnn.native_lstm_op import native_lstm
from returnn.tf.util.errors import NativeOpsUnavailableError


def make_lstm_op(**kwargs: Any) -> Callable[..., Any]:
    """The reference's factory of its native LSTM op.

    :param kwargs: the reference's options (``compiler_opts``, ...): accepted and ignored (nothing is compiled)
    :return: ``op(Z, V_h, c, i) -> (Y, H, d)``, an op of type ``LstmGenericBase`` (see
        :mod:`returnn.tf.ops.rnn.native_lstm_op` for shapes and meaning); its gradient is an op of type
        ``GradOfLstmGenericBase``, reachable as ``tensorflow.python.framework.ops.get_gradient_function(op).grad_op``
    """
    del kwargs
    return native_lstm


def _unavailable(name: str) -> NoReturn:
    raise NativeOpsUnavailableError(None, op=f"returnn.tf.native_op.{name}")


class OpMaker:
    """The reference's builder of a TF op from a :class:`returnn.native_op.NativeOpGenBase` description.

    :raises NativeOpsUnavailableError: on construction
    """

    def __init__(self, description: Any = None, *args: Any, **kwargs: Any):
        del args, kwargs
        _unavailable(f"OpMaker({getattr(description, '__name__', description)!r})")


class RecSeqCellOp:
    """Base of the reference's native recurrent cells.

    :raises NativeOpsUnavailableError: on construction
    """

    def __init__(self, *args: Any, **kwargs: Any):
        del args, kwargs
        _unavailable(type(self).__name__)


class NativeLstmCell(RecSeqCellOp):
    """The reference's native LSTM cell (unit ``nativelstm``; here the rec layer runs it on TF ops)."""


class NativeLstm2(RecSeqCellOp):
    """The reference's native LSTM cell with recurrent matrix (unit ``nativelstm2``)."""


class NativeLstmLowMemCell(RecSeqCellOp):
    """The reference's low-memory native LSTM cell (unit ``nativelstmlowmem``)."""


class TwoDNativeLstmCell(RecSeqCellOp):
    """The reference's native 2D LSTM cell."""


def _stub(name: str, doc: str):
    def func(*args: Any, **kwargs: Any) -> NoReturn:
        del args, kwargs
        _unavailable(name)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = f"{doc}: the reference's native op; not provided here.\n\n:raises NativeOpsUnavailableError: always"
    return func


make_op = _stub("make_op", "TF op of a native op description")
chunk = _stub("chunk", "Overlapping chunks of sequences")
unchunk = _stub("unchunk", "Chunks added back into sequences")
make_fast_baum_welch_op = _stub("make_fast_baum_welch_op", "The Baum-Welch op")
fast_baum_welch = _stub("fast_baum_welch", "Baum-Welch (forward-backward) over FSAs")
fast_baum_welch_by_sprint_automata = _stub("fast_baum_welch_by_sprint_automata", "Baum-Welch over Sprint's FSAs")
fast_viterbi = _stub("fast_viterbi", "Viterbi alignment over FSAs")
ctc_loss = _stub("ctc_loss", "CTC loss via Baum-Welch on the CTC FSA")
ctc_loss_viterbi = _stub("ctc_loss_viterbi", "CTC loss of the Viterbi path")
edit_distance = _stub("edit_distance", "Levenshtein distance per batch entry")
optimal_completion_edit_distance = _stub("optimal_completion_edit_distance",
                                         "Edit distance of a prefix to its best completion")
optimal_completion_edit_distance_per_successor = _stub("optimal_completion_edit_distance_per_successor",
                                                       "Optimal completion edit distance for every next label")
next_edit_distance_row = _stub("next_edit_distance_row", "One more row of the edit distance matrix")
next_edit_distance_reduce = _stub("next_edit_distance_reduce", "Reduction of an edit distance row")
init_blocksparse = _stub("init_blocksparse", "Sets up OpenAI's blocksparse ops")


def have_blocksparse_requirements() -> bool:
    """Whether OpenAI's ``blocksparse`` ops can be used: never here (this project does not use that package;
    the reference needs it and a GPU).

    :return: False
    """
    return False
