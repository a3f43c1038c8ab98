"""``{"class": "loss", "from": <layer>, "loss_": "ce", "target_": <key or layer>}``: a loss per frame as a layer.

Options, as the reference:

- ``loss_``: the loss name; ``loss_opts_``: its options (``loss_opts`` of a layer with ``"loss"``); ``target_``:
  an extern data key or ``"layer:<name>"`` (needed when the loss needs a target).
- ``use_error``: the output is the loss's error per frame (1.0 where the argmax is wrong) instead of its value.
- The sub layer ``"<name>/error"`` is the error per frame (the value's template), whatever ``use_error`` is.

Shape: the source's axes without the feature axis, in the source's order: ``{B, T, F} -> {B, T}``,
``{T, B, F} -> {T, B}``, ``{B, F} -> {B}``; float32. Padded frames hold the loss of the padded inputs (as the
reference). Only framewise losses have a value per frame: ``ce``, ``mse``, ``mean_l1`` (the reference fails on
the others, e.g. ``ctc``, ``l1``, ``bin_ce``, ``as_is``); another loss raises :class:`LayerArgError`. The
layer adds no loss to the network by itself (give it ``"loss": "as_is"`` for that); the loss's own ``scale``
does not apply to the output. ``loss_scale`` on the layer without ``loss`` is rejected, as the reference.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import LOSSES, get_loss_class, register_layer

_PER_FRAME = ("ce", "mse", "mean_l1")


@register_layer
class LossLayer(LayerBase):
    """The value (or error) of a framewise loss on the source, per frame."""

    layer_class = "loss"
    recurrent = True  # depends on other frames (as the reference's class)
    extra_config_keys = ("loss_opts_",)

    def __init__(self, loss_: Any, target_: Optional[LayerBase] = None, use_error: bool = False, **kwargs: Any):
        """
        :param loss_: the loss (name, e.g. ``"ce"``), with its options in ``loss_opts_``
        :param target_: the loss's target: an extern data key or ``"layer:<name>"``
        :param use_error: output the error per frame (1.0 where the argmax is wrong) instead of the loss value
        """
        super().__init__(**kwargs)
        src = self.sources[0]
        loss_.init(output=src.output, output_with_activation=src.output_before_activation,
                   target=target_.output if target_ is not None else None, layer=self)
        values = loss_.get_error_per_frame() if use_error else loss_.get_value_per_frame()
        self.loss_ = loss_
        self.output.placeholder = tf.cast(values, tf.float32)
        self._use_error = use_error
        self._error_layer: Optional[InternalLayer] = None

    def get_sub_layer(self, layer_name: str) -> Optional[LayerBase]:
        """:return: for ``"error"``: a layer with the error per frame (the output's template; built on first use),
            else None"""
        if layer_name != "error":
            return None
        if self._error_layer is None:
            out = self.output.copy_template(name=f"{self.name}/error_output")
            if self._use_error:
                out.placeholder = self.output.placeholder
            else:
                with tf.name_scope(f"{self.get_absolute_name_scope_prefix()}error/"):
                    out.placeholder = tf.cast(self.loss_.get_error_per_frame(), tf.float32)
            self._error_layer = InternalLayer(name=f"{self.name}/error", network=self.network, output=out,
                                              sources=[self])
        return self._error_layer

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``target_`` to a layer and ``loss_`` + ``loss_opts_`` to a loss instance.

        :raises LayerArgError: ``loss_scale`` without ``loss``; unknown loss; a loss without per-frame values;
            missing ``target_`` for a loss that needs one; invalid ``loss_opts_``
        """
        name = d["name"]
        if "loss_scale" in d and not d.get("loss"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="loss_scale",
                                problem="is set but the layer has no 'loss' (as the reference rejects it):",
                                got=d["loss_scale"], hint="remove loss_scale, or add e.g. \"loss\": \"as_is\"")
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        loss_name = d.get("loss_")
        if not isinstance(loss_name, str):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="loss_", problem="missing or invalid",
                                got=loss_name, expected="a loss name: " + ", ".join(_PER_FRAME))
        get_loss_class("ce")  # registers the built-in losses
        loss_class = LOSSES.get(loss_name, context=f"in layer {name!r} (loss_)")
        if loss_class.class_name not in _PER_FRAME or not hasattr(loss_class, "get_value_per_frame"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="loss_",
                                problem="gives no value per frame:", got=loss_name,
                                expected="a framewise loss: " + ", ".join(_PER_FRAME),
                                hint="the reference fails on this loss in a loss layer too")
        target = d.get("target_")
        if isinstance(target, str):
            if target.startswith("layer:"):
                d["target_"] = get_layer(target[len("layer:"):])
            else:
                network.get_extern_data(target, mark_data_key_as_used=True)
                d["target_"] = get_layer("data:" + target)
        if d.get("target_") is None and loss_class.need_target:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="target_", problem="missing; loss "
                                f"{loss_name!r} needs a target", expected="an extern data key or 'layer:<name>'")
        opts = dict(d.pop("loss_opts_", None) or {})
        try:
            d["loss_"] = loss_class(base_network=network, **opts)
        except TypeError as exc:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="loss_opts_",
                                problem=f"invalid options for loss {loss_name!r}:", got=opts, hint=str(exc)) from exc

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        """:return: the source's template without its feature axis, float32
        :raises LayerArgError: no source"""
        if len(sources) != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs exactly one source",
                                got=[s.name for s in sources])
        out = sources[0].output.copy_template(name=f"{name}_output", dtype="float32")
        if out.sparse:
            out = Tensor(**{**out.get_kwargs(), "sparse_dim": None})
        if out.feature_dim_axis is not None:
            out = out.copy_template_excluding_axis(out.feature_dim_axis)
        out.available_for_inference = False
        return out
