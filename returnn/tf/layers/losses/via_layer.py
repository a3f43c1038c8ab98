"""``"loss": "via_layer"``: the loss value and its gradient are given by other layers, as the reference.

``loss_opts``:

- ``align_layer``: a layer with ``output_loss`` (e.g. ``fast_bw``) whose output is a soft alignment ``{T, B, C}``;
  the gradient into this layer is ``y - alignment`` (``y``: the layer's output), or, with ``loss_wrt_to_act_in``
  (True or the activation's name, e.g. ``"softmax"``), the same into the activation's input (for a softmax: the
  gradient of the cross entropy to the alignment w.r.t. the logits);
- ``error_signal_layer``: a layer with ``output_loss`` whose output is the gradient itself.

The value is ``sum(output_loss)`` of that layer; no error; padded frames get no gradient; normalised by the
output frames.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Union

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


@register_loss
class ViaLayerLoss(Loss):
    """Loss value and gradient from ``align_layer`` or ``error_signal_layer``."""

    class_name = "via_layer"
    recurrent = True
    need_target = False

    def __init__(self, error_signal_layer: Any = None, align_layer: Any = None,
                 loss_wrt_to_act_in: Union[bool, str] = False, **kwargs: Any):
        super().__init__(**kwargs)
        if (error_signal_layer is None) == (align_layer is None):
            raise TypeError("via_layer needs exactly one of error_signal_layer and align_layer")
        self.error_signal_layer = error_signal_layer
        self.align_layer = align_layer
        self.loss_wrt_to_act_in = loss_wrt_to_act_in

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves the layer names in the options to layers (built if needed)."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("error_signal_layer", "align_layer"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    def _source(self) -> Any:
        layer = self.align_layer if self.align_layer is not None else self.error_signal_layer
        if isinstance(layer, str):
            layer = self.base_network.get_layer(layer)
        if getattr(layer, "output_loss", None) is None:
            raise self._error(f"option {'align_layer' if self.align_layer is not None else 'error_signal_layer'} "
                              "needs a layer with output_loss (e.g. fast_bw):", layer)
        return layer

    def _error(self, problem: str, got: Any) -> LayerArgError:
        layer = self.layer
        return LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss_opts",
                             problem=f"via_layer: {problem}", got=got)

    def get_value(self) -> tf.Tensor:
        source = self._source()
        value = tf.reduce_sum(tf.cast(source.output_loss, tf.float32))
        # the wrt tensor z gets the gradient `signal` through sum(sg(signal) * z) - sg(...)
        out = self.output.copy_as_batch_major()
        z = out.placeholder
        owa: Optional[Any] = None
        if self.loss_wrt_to_act_in:
            owa = self.output_with_activation
            if owa is None:
                raise self._error("loss_wrt_to_act_in needs a layer output with an activation:", out)
            if isinstance(self.loss_wrt_to_act_in, str) and self.loss_wrt_to_act_in == "softmax" \
                    and not owa.is_softmax_act_func():
                raise self._error("loss_wrt_to_act_in='softmax' but the activation is another one:", owa.act_func)
            tmp = self.output.copy()
            tmp.placeholder = owa.x
            z = tmp.copy_as_batch_major().placeholder
        signal = source.output.copy_as_batch_major().placeholder
        if self.align_layer is not None:
            signal = out.placeholder - tf.cast(signal, out.placeholder.dtype)
        if out.time_dim_axis is not None:
            mask = tf.sequence_mask(out.get_sequence_lengths(), maxlen=tf.shape(z)[out.time_dim_axis])
            signal = signal * tf.cast(tf.reshape(mask, tf.concat([tf.shape(mask), tf.ones([tf.rank(z) - 2], tf.int32)],
                                                                   0)), signal.dtype)
        signal = tf.stop_gradient(tf.cast(signal, z.dtype))
        surrogate = tf.reduce_sum(signal * z)
        return tf.stop_gradient(value) + tf.cast(surrogate - tf.stop_gradient(surrogate), tf.float32)

    def get_error(self) -> Optional[tf.Tensor]:
        return None
