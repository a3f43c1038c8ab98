"""A rec layer's ``max_seq_len``: an int, or an expression over ``max_len_from('base:X')`` (the padded time length of a
layer of the enclosing network), e.g. ``"max_len_from('base:encoder') * 3"``; or (``max_seq_len_via``) a layer of
the enclosing network with an int scalar value."""

from __future__ import annotations

import re
from typing import Any, List

import tensorflow as tf

from returnn.errors import LayerArgError


def max_seq_len_base_layers(spec: Any) -> List[str]:
    """:return: the layer names in the ``max_len_from('...')`` calls of a ``max_seq_len`` expression"""
    return re.findall(r"max_len_from\(\s*['\"]([^'\"]+)['\"]\s*\)", spec) if isinstance(spec, str) else []


def eval_max_seq_len(cell: Any, spec: Any) -> tf.Tensor:
    """:return: int32 scalar from ``max_seq_len``: an int, or an expression using ``max_len_from('base:X')``
    :raises LayerArgError: an expression that cannot be evaluated"""
    if isinstance(spec, int):
        return tf.constant(spec, tf.int32)
    if hasattr(spec, "output"):  # max_seq_len_via: a layer with an int scalar value
        out = spec.output
        if out.batch_ndim != 0:
            raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="max_seq_len_via",
                                problem=f"layer {spec.name!r} must be a scalar, got", got=out.get_dims_repr())
        return tf.cast(out.placeholder, tf.int32)

    def max_len_from(name: str) -> tf.Tensor:
        out = cell.get_base_layer(name).output
        if out.time_dim_axis is None:
            raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="max_seq_len",
                                problem=f"layer {name!r} has no time axis, used in", got=spec)
        return tf.shape(out.placeholder)[out.time_dim_axis]

    try:
        value = eval(str(spec), {"__builtins__": {}}, {"max_len_from": max_len_from, "tf": tf})  # noqa: S307
    except LayerArgError:
        raise
    except Exception as exc:  # noqa: BLE001 (user expression)
        raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="max_seq_len", problem="invalid expression",
                            got=spec, hint=f"{type(exc).__name__}: {exc}") from None
    return tf.cast(value, tf.int32)
