"""A loss layer's output over its valid frames, computed on the valid frames of its inputs (as the reference's graph,
observed: ``"loss": "as_is"`` on a ``sparse_softmax_cross_entropy_with_logits`` or ``reduce`` layer runs that layer a
second time on the packed frames of its inputs, so that the objective is a ``Sum`` right over its result).

:func:`layer_output_flat` rebuilds a layer without params of a frame-wise class (:data:`FRAMEWISE_CLASSES`; a
``subnetwork`` through its ``output`` layer) from the packed versions of its inputs, recursively: an input of such a
class is rebuilt the same way, another one with the loss's time axis is packed (a ``flatten_batch`` of it, named
``<input>_flat``), one with neither batch nor that time axis (a ``variable``) is used as it is. It gives None where
this does not apply (no dynamic time axis; an input with the batch but without that time axis; a rebuilt output
without the packed axis); the loss then packs the layer's output itself. The sum over frames is the same either way.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.init_kwargs import layer_init_kwargs
from returnn.tf.layers.core.registry import get_layer_class
from returnn.tf.util.scopes import get_valid_scope_name_from_str

# layer classes whose output at a frame depends only on their inputs at that frame (for the axes they are given)
FRAMEWISE_CLASSES = ("copy", "combine", "dot", "reduce", "sparse_softmax_cross_entropy_with_logits")
_DROPPED_KWARGS = ("output", "out_shape", "name", "network", "loss", "loss_scale", "loss_opts", "is_output_layer",
                   "register_as_extern_data", "loss_only_on_non_search", "only_on_eval")


class _Packer:
    """Packs the frames ``{B, time_dim}`` of layers into one shared batch axis and rebuilds frame-wise layers on
    them (one per loss)."""

    def __init__(self, time_dim: Dim):
        self.time_dim = time_dim
        self.flat_batch_dim: Optional[Dim] = None
        self.done: Dict[int, Any] = {}

    def flat(self, layer: Any) -> Any:
        """:return: a layer whose output is ``layer``'s over the packed frames (batch axis first), ``layer`` itself
        when it has neither batch nor the time axis, or None"""
        key = id(layer)
        if key not in self.done:
            self.done[key] = self._flat(layer)
        return self.done[key]

    def _flat(self, layer: Any) -> Any:
        out: Tensor = layer.output
        if out.batch_dim_axis is None and self.time_dim not in out.dims:
            return layer
        if out.batch_dim_axis is None or self.time_dim not in out.dims or out.placeholder is None:
            return None
        rebuilt = self._rebuild(layer)
        return rebuilt if rebuilt is not None else self._pack(layer)

    def _pack(self, layer: Any) -> Any:
        cls = get_layer_class("flatten_batch")
        name = get_valid_scope_name_from_str(layer.name) + "_flat"
        kwargs = {"name": name, "network": layer.network, "sources": [layer], "axis": self.time_dim}
        output = cls.get_out_data_from_opts(**kwargs)
        if self.flat_batch_dim is None:
            self.flat_batch_dim = output.dims[0]
        else:  # the same frames: one packed axis for all inputs
            output = output.copy_template_replace_dim(0, self.flat_batch_dim)
        with tf.compat.v1.name_scope(name + "/"):
            return cls(output=output, **layer_init_kwargs(cls, kwargs))

    def _rebuild(self, layer: Any) -> Any:
        if layer.layer_class == "subnetwork":
            subnet = getattr(layer, "subnetwork", None)
            inner = getattr(subnet, "layers", {}).get("output")
            return self.flat(inner) if inner is not None else None
        if layer.layer_class not in FRAMEWISE_CLASSES or layer.params or not layer.kwargs or layer.kwargs.get("dropout"):
            return None  # (a dropout mask drawn again would differ)
        kwargs = {}
        for key, value in layer.kwargs.items():
            if key in _DROPPED_KWARGS:
                continue
            value = self._flat_value(value)
            if value is _NOT_FLAT:
                return None
            kwargs[key] = value
        kwargs["name"] = layer.name
        kwargs["network"] = layer.network
        cls = type(layer)
        try:
            output = cls.get_out_data_from_opts(**kwargs)
        except Exception:  # noqa: BLE001 (not frame-wise for these inputs: the loss packs the output instead)
            return None
        if output.batch_dim_axis is None or output.dims[output.batch_dim_axis] is not self.flat_batch_dim:
            return None
        with tf.compat.v1.name_scope(layer.get_absolute_name_scope_prefix() or None):  # its ops next to its own
            return cls(output=output, **layer_init_kwargs(cls, kwargs))

    def _flat_value(self, value: Any) -> Any:
        from returnn.tf.layers.core.layer_base import LayerBase

        if isinstance(value, LayerBase):
            flat = self.flat(value)
            return _NOT_FLAT if flat is None else flat
        if isinstance(value, (list, tuple)) and any(isinstance(v, LayerBase) for v in value):
            items: List[Any] = [self._flat_value(v) for v in value]
            if any(v is _NOT_FLAT for v in items):
                return _NOT_FLAT
            return type(value)(items)
        return value


_NOT_FLAT = object()


def layer_output_flat(layer: Any) -> Optional[tf.Tensor]:
    """:return: ``[N, ...]``: ``layer``'s output over the valid frames of its time axis (batch-major order, as
        the loss packs them), computed on the packed inputs (see the module docstring), or None"""
    out: Tensor = layer.output
    if out.batch_dim_axis is None or out.time_dim_axis is None:
        return None
    time_dim = out.dims[out.time_dim_axis]
    if time_dim.dimension is not None or time_dim.dyn_size is None:
        return None
    packer = _Packer(time_dim)
    rebuilt = packer._rebuild(layer)  # noqa: SLF001 (the packer's entry: only a rebuilt layer is of use here)
    if rebuilt is None or rebuilt is layer:
        return None
    flat = rebuilt.output.copy_as_batch_major()
    if flat.feature_dim_axis is not None and flat.feature_dim_axis != flat.batch_ndim - 1:
        flat = flat.copy_with_feature_dim_axis(-1)
    return flat.placeholder
