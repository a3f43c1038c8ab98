"""Helpers of :class:`returnn.tf.network.TFNetwork` for building one layer: its variable scope and the checks
of what its ``__init__`` produced."""

from __future__ import annotations

import contextlib
from typing import Any

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tf.layers.core.registry import is_user_layer_class


@contextlib.contextmanager
def absolute_variable_scope(scope_name: str, reuse: bool = False) -> Any:
    """Opens variable scope ``scope_name`` (and the same name scope) from the root, wherever we are."""
    var_scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE if reuse else None, name=scope_name)
    with tf.compat.v1.variable_scope(var_scope, auxiliary_name_scope=False):
        with tf.name_scope(scope_name + "/"):
            yield


def check_static_shape(layer: Any) -> None:
    """Sets the template's static shape on the raw output.

    :raises LayerShapeError: a layer class of the config set an output of another shape (for a built-in layer,
        a mismatch is an implementation bug: RuntimeError)
    """
    raw = layer.output.placeholder
    try:
        raw.set_shape(layer.output.batch_shape)
    except ValueError as exc:
        if is_user_layer_class(type(layer)):
            raise LayerShapeError(layer=layer.name, layer_class=layer.layer_class,
                                  problem="the output tensor set in __init__ does not match the output template",
                                  expected=f"{layer.output.get_dims_repr()} (static shape {layer.output.batch_shape})",
                                  got=f"{raw} (static shape {raw.shape})",
                                  hint="make get_out_data_from_opts return the Tensor that __init__ computes") from exc
        raise RuntimeError(f"layer {layer.name!r}: output {raw} does not match its template "
                           f"{layer.output} (implementation bug)") from exc
