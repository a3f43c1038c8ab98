"""Public module ``returnn.native_op``: the reference's descriptions of its native (C++/CUDA) ops (the LSTM
kernels, chunking, Baum-Welch / Viterbi on FSAs, edit distances, ...), from which it compiles TF ops.

This project builds no C++/CUDA ops: the names are here, so that configs and code that import them load, and
using one (instantiating it, or :func:`returnn.tf.native_op.make_op` with it) raises
:class:`returnn.tf.util.errors.NativeOpsUnavailableError` naming the op. The layers that use these ops in the
reference run on TF ops here (rec units ``nativelstm2`` / ``lstm``, the CTC loss, edit distances).
"""

from __future__ import annotations

from typing import Any


class NativeOpGenBase:
    """Base of the reference's native op descriptions. Instantiating one raises.

    :raises NativeOpsUnavailableError: always (names the op)
    """

    def __init__(self, *args: Any, **kwargs: Any):
        from returnn.tf.util.errors import NativeOpsUnavailableError

        del args, kwargs
        raise NativeOpsUnavailableError(None, op=f"returnn.native_op.{type(self).__name__}")


def _op(name: str, doc: str) -> type:
    cls = type(name, (NativeOpGenBase,), {"__doc__": doc + " (not provided here; instantiating it raises)",
                                          "__module__": __name__})
    return cls


# the reference's op descriptions by name (what each computes, for the reader)
LstmGenericBase = _op("LstmGenericBase", "Base of the LSTM kernels")
NativeLstm = _op("NativeLstm", "LSTM kernel (gates in one matrix, input already projected)")
NativeLstm2 = _op("NativeLstm2", "LSTM kernel with recurrent matrix and start/step (the 'nativelstm2' unit)")
LstmLowMem = _op("LstmLowMem", "LSTM kernel with lower memory use (the 'nativelstmlowmem' unit)")
TwoDLSTM = _op("TwoDLSTM", "2D LSTM kernel")
Chunking = _op("Chunking", "Cuts sequences into overlapping chunks")
UnChunking = _op("UnChunking", "Adds chunks back into sequences")
SubtensorBatchedIndex = _op("SubtensorBatchedIndex", "x[b, i[b]] per batch entry")
SparseToDense = _op("SparseToDense", "Sparse (index, value) lists to dense tensors")
MaxAndArgmaxSparse = _op("MaxAndArgmaxSparse", "Max and argmax over sparse entries")
CrossEntropySoftmaxAndGradientZSparse = _op("CrossEntropySoftmaxAndGradientZSparse",
                                            "Cross entropy of a softmax with sparse targets, and its gradient")
FastBaumWelchOp = _op("FastBaumWelchOp", "Baum-Welch (forward-backward) over FSAs")
MultiEndFastBaumWelchOp = _op("MultiEndFastBaumWelchOp", "Baum-Welch over FSAs with several end states")
SegmentFastBaumWelchOp = _op("SegmentFastBaumWelchOp", "Baum-Welch over segments")
FastViterbiOp = _op("FastViterbiOp", "Viterbi alignment over FSAs")
GetCtcFsaFastBwOp = _op("GetCtcFsaFastBwOp", "The CTC FSA of label sequences for FastBaumWelchOp")
EditDistanceOp = _op("EditDistanceOp", "Levenshtein distance of two label sequences")
OptimalCompletionEditDistanceOp = _op("OptimalCompletionEditDistanceOp",
                                      "Edit distance of a prefix to the best completion")
OptimalCompletionEditDistancePerSuccessorOp = _op("OptimalCompletionEditDistancePerSuccessorOp",
                                                  "Optimal completion edit distance for every next label")
NextEditDistanceRowOp = _op("NextEditDistanceRowOp", "One row more of the edit distance matrix")
NextEditDistanceReduceOp = _op("NextEditDistanceReduceOp", "Reduces an edit distance row")
