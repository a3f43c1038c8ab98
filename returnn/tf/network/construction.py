"""Helpers of :class:`returnn.tf.network.TFNetwork`: the extern data placeholders, the variable scope of a layer
and the checks of what its ``__init__`` produced."""

from __future__ import annotations

import contextlib
from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tf.layers.core.registry import is_user_layer_class
from returnn.tf.network.extern_data import ExternData


def create_placeholders(extern_data: ExternData) -> None:
    """Creates ``extern_data/placeholders/<key>/<key>`` and ``<key>_dim<i>_size`` placeholders (reference names)
    for every key without a raw tensor in the current graph (an ExternData reused in a new graph gets new ones).

    A dynamic dim whose lengths are already known in this graph keeps them (a config Dim shared by the keys, or by
    two networks of one graph); lengths from another graph (a config Dim used by an earlier network) are replaced.
    """
    graph = tf.compat.v1.get_default_graph()
    for key, data in extern_data.data.items():
        if data.placeholder is not None and getattr(data.placeholder, "graph", graph) is graph:
            continue
        if data.placeholder is not None:  # from another graph (ExternData reused): make new ones here
            data.placeholder = None
            for axis in data.get_dynamic_axes():
                if getattr(data.dims[axis].dyn_size, "graph", graph) is not graph:
                    data.dims[axis].dyn_size = None
        with tf.name_scope(f"extern_data/placeholders/{key}/"):
            data.placeholder = tf.compat.v1.placeholder(data.dtype, shape=data.batch_shape, name=key)
            for axis in data.get_dynamic_axes():
                dim = data.dims[axis]
                if dim.dyn_size is None or getattr(dim.dyn_size, "graph", graph) is not graph:
                    axis_wo_b = data.get_batch_axis_excluding_batch(axis)
                    dim.dyn_size = tf.compat.v1.placeholder(tf.int32, shape=size_shape(dim, data),
                                                            name=f"{key}_dim{axis_wo_b}_size")


def size_shape(dim: Any, data: Any = None) -> tuple:
    """:return: the static shape of the lengths placeholder of a dynamic dim: ``(None,)`` (one length per batch
    entry; ``(n,)`` for the static batch dim of ``data``, ``Dim(kind=Dim.Types.Batch, dimension=n)``), or the shape
    of the dims of its :attr:`returnn.tensor.Dim.dyn_size_ext` template when it has one (``()`` for
    ``Dim(Tensor("time", dims=(), dtype="int32"))``: one length for the whole batch)"""
    template = dim.dyn_size_ext if dim.dyn_size is None else None
    if template is None:
        batch_size = None
        if data is not None and data.batch_dim_axis is not None:
            batch_size = data.dims[data.batch_dim_axis].dimension
        return (batch_size,)
    return tuple(d.dimension if d.is_batch_dim() and data is not None and d in data.dims
                 else None if d.is_batch_dim() else d.dimension for d in template.dims)


@contextlib.contextmanager
def absolute_variable_scope(scope_name: str, reuse: bool = False, name_scope: Optional[str] = None) -> Any:
    """Opens variable scope ``scope_name`` (``""``: the root) and name scope ``name_scope`` (default: the same) from
    the root, wherever we are. With ``reuse``, ``get_variable`` returns an existing variable of the same name."""
    var_scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE if reuse else None, name=scope_name)
    name_scope = scope_name if name_scope is None else name_scope
    with tf.compat.v1.variable_scope(var_scope, auxiliary_name_scope=False):
        with tf.name_scope(name_scope + "/" if name_scope else ""):
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


def apply_batch_norm_option(layer: Any) -> None:
    """The common layer arg ``batch_norm`` (True, or a dict of ``batch_norm`` layer options): batch normalization of
    the layer's final output (after its activation), as the reference: in the layer's variable scope, params
    ``<layer>/batch_norm/<layer>_<layer>_output_{mean,variance,gamma,beta}`` (also in the layer's params)."""
    from returnn.tf.layers.norm.batch_norm import BatchNormLayer  # a layer family: the network builds on them

    opts = dict(layer.use_batch_norm) if isinstance(layer.use_batch_norm, dict) else {}
    bn = BatchNormLayer(name=layer.name, network=layer.network, output=layer.output.copy_template(),
                        sources=[layer], trainable=layer.trainable, **opts)
    layer.params.update(bn.params)
    layer.output.placeholder = bn.output.placeholder
