"""Errors raised by the ``returnn.tf.util.basic`` helpers (the legacy ``TFUtil`` functions configs call).

Each subclasses the built-in exception type the reference raised in the same situation, so ``except``
clauses in existing config code keep working.
"""

from __future__ import annotations

from typing import Any

from returnn.errors import ReturnnError, format_details


class TFUtilArgError(ReturnnError, AssertionError):
    """A ``TFUtil`` helper got tensors or arguments it cannot work with (statically mismatching shapes, an
    unsupported axis or dtype). An ``AssertionError`` too, which the reference raised here.

    :param func: the helper, e.g. ``"where_bc"``
    :param problem: what is wrong, naming the shapes/values found and what was expected
    """

    def __init__(self, func: str, problem: str):
        self.func, self.problem = func, problem
        super().__init__(f"{func}: {problem}")


class TFUtilValueError(ReturnnError, ValueError):
    """A ``TFUtil`` helper got an argument value outside its range (e.g. ``dropout`` ``keep_prob`` not in (0, 1]).
    A ``ValueError`` too, which the reference raised here.

    :param func: the helper
    :param arg: the argument name
    :param expected: what is accepted
    :param got: the value found
    """

    def __init__(self, func: str, arg: str, *, expected: str, got: Any):
        self.func, self.arg, self.expected, self.got = func, arg, expected, got
        super().__init__(f"{func}: argument {arg!r}: expected {expected}, got {got!r}")


class NativeOpsUnavailableError(ReturnnError, RuntimeError):
    """A config asked to compile a native (C++/CUDA) TF op; this project compiles no native ops.

    :param base_name: the op's ``base_name`` as given to ``OpCodeCompiler``
    :param op: instead, the name of one of the reference's built-in native ops that was asked for
        (:mod:`returnn.tf.native_op`, :mod:`returnn.native_op`)
    """

    def __init__(self, base_name: Any, *, op: Any = None):
        self.base_name = base_name
        if op is not None:  # one of the reference's built-in native ops (returnn.tf.native_op)
            super().__init__("\n".join([
                f"{op}: the reference's native (C++/CUDA) op is not provided here (this project builds no C++/CUDA "
                "TF ops)"] + format_details(
                hint="use the TF implementations of the layers (e.g. rec unit 'nativelstm2' runs on TF ops here, "
                     "the CTC loss on tf.nn.ctc_loss)")))
            return
        super().__init__("\n".join([
            f"OpCodeCompiler(base_name={base_name!r}): native ops are not compiled here (this project builds no "
            "C++/CUDA TF ops); the config's custom op cannot be used."] + format_details(
            hint="replace the custom op by TF ops in the config (e.g. an 'eval' layer), or use the reference "
                 "RETURNN for this config")))
