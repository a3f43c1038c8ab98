"""``{"class": "scaled_grad", "scale": -1.0}``: identity forward; the gradient is scaled (and shifted).

Shape: unchanged. Backward, with ``g`` the incoming gradient (as observed from the reference):
``g * scale + shift``, where ``shift`` is multiplied by ``sum(|g|)`` over ``scale_shift_by_sum_over_axis`` if
given; with ``clip_max_axis`` the result is clipped to ``[-m, m]``, ``m = max(|g|)`` over that axis.
``scale=-1`` reverses the gradient (gradient reversal). ``scale`` may also be a layer (by name in the layer dict),
whose output broadcasts to the input (e.g. a per-output-dim scale ``[out]`` for a weight matrix ``[in, out]``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class ScaledGradientLayer(ConcatInputLayer):
    """Gradient scaling / reversal."""

    layer_class = "scaled_grad"

    def __init__(self, scale: Any, shift: Optional[float] = None, scale_shift_by_sum_over_axis: Any = None,
                 clip_max_axis: Any = None, **kwargs: Any):
        """
        :param scale: factor on the gradient (e.g. -1 reverses it): a float, or a layer broadcast to the input
        :param shift: added to the scaled gradient (default none)
        :param scale_shift_by_sum_over_axis: multiply ``shift`` by the sum of the absolute gradient over this axis
        :param clip_max_axis: clip the result to the maximal absolute gradient over this axis
        """
        super().__init__(**kwargs)
        inp = self.input_data
        self._scale_layers = [scale] if isinstance(scale, LayerBase) else []
        if isinstance(scale, LayerBase):
            scale = tf.cast(scale.output.copy_compatible_to(inp, check_sparse=False, check_dtype=False).placeholder,
                            inp.placeholder.dtype)
        sum_axis = inp.get_axis_from_description(scale_shift_by_sum_over_axis) \
            if scale_shift_by_sum_over_axis is not None else None
        clip_axis = inp.get_axis_from_description(clip_max_axis) if clip_max_axis is not None else None

        @tf.custom_gradient
        def scaled(x: tf.Tensor) -> Any:
            def grad(g: tf.Tensor) -> tf.Tensor:
                out = g * scale
                if shift is not None:
                    amount = shift
                    if sum_axis is not None:
                        amount = shift * tf.reduce_sum(tf.abs(g), axis=sum_axis, keepdims=True)
                    out = out + amount
                if clip_axis is not None:
                    m = tf.reduce_max(tf.abs(g), axis=clip_axis, keepdims=True)
                    out = tf.clip_by_value(out, -m, m)
                return out
            return tf.identity(x), grad

        self.output.placeholder = scaled(inp.placeholder)

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + self._scale_layers

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("scale"), str):
            d["scale"] = get_layer(d["scale"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return concat_sources_template(sources, name=name, layer_class=cls.layer_class)
