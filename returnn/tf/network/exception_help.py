"""``help_on_tf_exception``: prints what helps to understand a TF exception from ``session.run`` (the failing op
and its inputs, the fetches, the fed values)."""

from __future__ import annotations

import sys
from typing import Any, Optional

import numpy
import tensorflow as tf


def _describe_value(value: Any) -> str:
    if isinstance(value, numpy.ndarray):
        text = "array shape %s dtype %s" % (value.shape, value.dtype)
        if value.size and numpy.issubdtype(value.dtype, numpy.number):
            text += " min %s max %s" % (value.min(), value.max())
        return text
    return repr(value)


def help_on_tf_exception(session: Any, exception: BaseException, fetches: Any, feed_dict: Optional[dict] = None,
                         meta_step_info: Optional[dict] = None, extern_data: Any = None, file: Any = sys.stdout
                         ) -> None:
    """Prints information about ``exception`` (raised by ``session.run(fetches, feed_dict)``) to ``file``: the
    exception, for a TF op error the op and its inputs, the fetches, each fed tensor with the value's shape, dtype
    and range, the step info, and the extern data. Never raises itself (a failure while describing is printed).

    :param session: the session that ran
    :param exception: the exception caught
    :param fetches: what was fetched (a tensor, op, or a nested list/dict of them)
    :param feed_dict: tensor → fed value
    :param meta_step_info: e.g. ``{"step": ..., "seq_tags": ...}``
    :param extern_data: the network's ExternData (its data are listed)
    """
    print("help_on_tf_exception: %s: %s" % (type(exception).__name__, exception), file=file)
    try:
        op = getattr(exception, "op", None)
        if isinstance(op, tf.Operation):
            print("  failing op: %r (type %s)" % (op.name, op.type), file=file)
            for i, inp in enumerate(op.inputs):
                print("    input %d: %r %s %s" % (i, inp.name, inp.dtype.name, inp.shape), file=file)
        print("  fetches: %r" % (fetches,), file=file)
        for key, value in (feed_dict or {}).items():
            name = getattr(key, "name", key)
            print("  fed %r: %s" % (name, _describe_value(numpy.asarray(value))), file=file)
        if meta_step_info:
            print("  step info: %r" % (meta_step_info,), file=file)
        if extern_data is not None:
            for key, data in sorted(getattr(extern_data, "data", {}).items()):
                print("  extern data %r: %s" % (key, data), file=file)
    except Exception as exc:  # noqa: BLE001 (a debugging helper must not hide the original error)
        print("  (error while describing the exception: %s: %s)" % (type(exc).__name__, exc), file=file)
    if hasattr(file, "flush"):
        file.flush()
