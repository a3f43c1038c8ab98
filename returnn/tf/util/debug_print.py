"""Printing from within the graph (legacy ``TFUtil`` function): ``py_print``."""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Sequence, TextIO

import numpy
import tensorflow as tf


def py_print(pass_through_value: Any, print_args: Sequence[Any], message: Optional[str] = None,
             summarize: Optional[int] = None, first_n: Optional[int] = None, name: str = "py_print",
             file: Optional[TextIO] = None) -> tf.Tensor:
    """Prints ``print_args`` (Python values as they are, tensors by their values) each time the result is
    computed, like ``tf.print``, but through Python's ``print`` (so to ``file``/``sys.stdout``).

    :param pass_through_value: returned (as a tensor), computed after the print
    :param print_args: what to print, e.g. ``["loss:", loss]``
    :param message: printed first
    :param summarize: at most this many entries per array (numpy's print threshold); None: numpy's default
    :param first_n: print only the first ``first_n`` times (None: always)
    :param name: name scope
    :param file: stream (default: stdout at the time of printing)
    :return: ``pass_through_value`` as a tensor
    """
    print_args = list(print_args)
    tensor_pos = [i for i, a in enumerate(print_args) if isinstance(a, (tf.Tensor, tf.Variable))]
    count = [0]

    def _print(*values: Any) -> numpy.ndarray:
        count[0] += 1
        if first_n is None or count[0] <= first_n:
            args: List[Any] = list(print_args)
            for i, v in zip(tensor_pos, values):
                args[i] = v
            if message is not None:
                args.insert(0, message)
            opts = {"threshold": summarize} if summarize is not None else {}
            with numpy.printoptions(**opts):
                print(*args, file=file or sys.stdout)
        return numpy.array(True)

    with tf.name_scope(name):
        tensors = [tf.convert_to_tensor(print_args[i]) for i in tensor_pos]
        printed = tf.numpy_function(_print, tensors, tf.bool, stateful=True)
        with tf.control_dependencies([printed]):
            return tf.identity(pass_through_value)
