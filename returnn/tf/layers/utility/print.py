"""``{"class": "print", "from": "x"}``: passes the input through and prints its value whenever it is computed.

Shape: unchanged (``copy``). Each evaluation writes, as the reference does:

- a line ``[PrintLayer][<layer>]``;
- the value as numpy prints it with its default options, except that arrays with more than ``summarize``
  entries are shortened to ``summarize`` items at each edge (``...``);
- with ``extra_print_args``, one line of them, each as the reference writes it: ``[x y]`` for a string,
  ``[np.float32(1.5)]`` for a scalar, ``[1 2]`` for an array.

The reference writes these lines to stdout; here they go to the log at ``v0`` (stdout, and log files), so they
appear at every verbosity.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from returnn.log import log
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template

_NUMPY_DEFAULTS = dict(precision=8, linewidth=75, suppress=False, nanstr="nan", infstr="inf", sign="-",
                       floatmode="maxprec", legacy=False)


def format_extra_arg(value: Any) -> str:
    """:return: one extra print arg as the reference writes it"""
    if isinstance(value, bytes):
        return f"[{value.decode('utf8')}]"
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bytes):
        return f"[{value.decode('utf8')}]"
    if isinstance(value, np.generic):
        return f"[{value!r}]"
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "SO":
            return str(value.astype(str))
        return str(value)
    return f"[{value}]"


def print_value(name: str, summarize: int, value: np.ndarray, *extra: Any) -> None:
    """Writes the lines of one evaluation (see the module doc) to the log."""
    with np.printoptions(threshold=summarize, edgeitems=summarize, **_NUMPY_DEFAULTS):
        lines = [f"[PrintLayer][{name}]", str(value)]
    if extra:
        lines.append("".join(format_extra_arg(v) for v in extra))
    print("\n".join(lines), file=log.v0)


@register_layer
class PrintLayer(ConcatInputLayer):
    """Identity with a print op on the output."""

    layer_class = "print"

    def __init__(self, summarize: int = 99, extra_print_args: Sequence[Any] = (), **kwargs: Any):
        """
        :param summarize: arrays with more entries are shortened to this many items at each edge (default 99)
        :param extra_print_args: further values printed on one line after the value
        """
        super().__init__(**kwargs)
        x = self.input_data.placeholder
        name = self.name

        def py_print(value: np.ndarray, *extra: Any) -> np.ndarray:
            print_value(name, summarize, value, *extra)
            return np.int32(0)

        extra = [tf.convert_to_tensor(v) for v in extra_print_args]
        done = tf.numpy_function(py_print, [x] + extra, tf.int32, name="print")
        with tf.control_dependencies([done]):
            self.output.placeholder = tf.identity(x)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return concat_sources_template(sources, name=name, layer_class=cls.layer_class)
