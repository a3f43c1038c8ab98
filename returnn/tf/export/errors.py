"""The error of an export that cannot be done: a network whose exported part needs something outside TensorFlow's
own ops (a Python function, a custom compiled op) or an input that the signature cannot feed."""

from __future__ import annotations

from typing import Optional

from returnn.errors import ReturnnError, format_details


class NotExportableError(ReturnnError, ValueError):
    """The network cannot be written as a SavedModel that loads without this package.

    :param problem: what is wrong, e.g. ``"op type 'PyFunc' (a Python function) is not part of TensorFlow"``
    :param layer: the layer whose part of the graph it is (None when no layer owns it)
    :param op_name: the graph op in question
    :param hint: how to avoid it
    """

    def __init__(self, problem: str, *, layer: Optional[str] = None, op_name: Optional[str] = None,
                 hint: Optional[str] = None):
        self.problem = problem
        self.layer = layer
        self.op_name = op_name
        where = ("layer %r" % layer) if layer else "the network"
        lines = ["cannot export %s as a SavedModel: %s" % (where, problem)]
        if op_name:
            lines.append("  op:   %s" % op_name)
        lines += format_details(hint=hint)
        super().__init__("\n".join(lines))
