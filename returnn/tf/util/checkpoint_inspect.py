"""Printing the contents of a TF checkpoint (``tools/tf_inspect_checkpoint.py``), in the reference tool's format:

* without a tensor name: one line per variable, ``name (DT_FLOAT) [9,40]``, sorted, then an empty line;
* ``tensor_name``: ``tensor_name:  <name>``, the value as numpy prints it, then ``mean:``, ``stddev:``, ``rms:``,
  ``min:``, ``max:`` (numpy's reductions of the stored dtype, printed with ``str``);
* ``all_tensors``: ``tensor_name:  <name>`` and the value of every variable, sorted, without the statistics.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Dict, Tuple

import numpy as np
import tensorflow as tf

_TRUE = ("true", "t", "1")
_FALSE = ("false", "f", "0")


def parse_printoption(text: str) -> Tuple[str, Any]:
    """One ``k=v`` argument of ``--printoptions``: ``k`` must be a key of ``numpy.get_printoptions()``, ``v`` is
    converted to the type of its current value (booleans: true/t/1, false/f/0, any case).

    :raises argparse.ArgumentTypeError: not ``k=v``, an unknown key, a key that cannot be set this way or a bad value
    """
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("'%s' is not in the form k=v." % text)
    current = np.get_printoptions()
    if key not in current:
        raise argparse.ArgumentTypeError("'%s' is not a valid printoption." % key)
    kind = type(current[key])
    if current[key] is None:
        raise argparse.ArgumentTypeError("Setting '%s' from the command line is not supported." % key)
    if kind is bool:
        if value.lower() in _TRUE:
            return key, True
        if value.lower() in _FALSE:
            return key, False
        raise argparse.ArgumentTypeError(str(("Non-boolean argument to boolean flag", value)))
    try:
        return key, kind(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def tensor_stats(value: np.ndarray) -> Dict[str, Any]:
    """``mean``, ``stddev``, ``rms``, ``min``, ``max`` of ``value`` (numpy reductions in its dtype)."""
    value = np.asarray(value)
    return {"mean": np.mean(value), "stddev": np.std(value), "rms": np.sqrt(np.mean(np.square(value))),
            "min": np.min(value), "max": np.max(value)}


def _reader(file_name: str):
    return tf.compat.v1.train.NewCheckpointReader(file_name)


def inspect_checkpoint(file_name: str, tensor_name: str = "", all_tensors: bool = False,
                       out: Callable[..., None] = print) -> bool:
    """Prints the checkpoint ``file_name`` (its prefix) as described in the module doc.

    :param out: the print function
    :return: False (after printing TF's message) if the checkpoint cannot be read or has no ``tensor_name``
    """
    try:
        reader = _reader(file_name)
    except (tf.errors.OpError, ValueError) as exc:
        out(getattr(exc, "message", None) or str(exc))
        return False
    if all_tensors:
        for name in sorted(reader.get_variable_to_shape_map()):
            out("tensor_name: ", name)
            out(reader.get_tensor(name))
        return True
    if not tensor_name:
        out(reader.debug_string().decode("utf-8"))
        return True
    out("tensor_name: ", tensor_name)
    if not reader.has_tensor(tensor_name):
        out("Key %s not found in checkpoint" % tensor_name)
        return False
    value = reader.get_tensor(tensor_name)
    out(value)
    for key, stat in tensor_stats(value).items():
        out("%s:" % key, stat)
    return True
