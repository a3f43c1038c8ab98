"""``{"class": "synthetic_gradient", "gradient": "predict_grad", "from": "layer0"}``: decoupled training with a
synthetic (predicted) gradient.

Shape: unchanged (identity forward). Backward, as observed from the reference: the source receives the output of
the layer ``gradient`` (the prediction, same shape as the input) instead of the true gradient ``g`` that this layer
receives; and the meta loss ``mean((prediction - g)**2)`` (over all elements, padding included; ``g`` held fixed)
trains the predictor: the updater adds ``meta_loss_scale`` times its gradient (see
:mod:`returnn.tf.util.meta_losses`) and reports it as ``cost:<layer>/synthetic_grad`` (with
``loss_norm_factor:<layer>/synthetic_grad``, the number of elements) in ``Updater.optim_meta_losses_dict``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError, TensorArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.util.meta_losses import MetaLoss, register_meta_loss


def same_layout_raw(src: Tensor, like: Tensor, layer_name: str) -> tf.Tensor:
    """:return: ``src``'s raw tensor in the axis order of ``like`` (axes matched by dim, else by role)
    :raises LayerShapeError: if the two do not have the same axes and static sizes"""
    try:
        moved: Optional[Tensor] = src.copy_compatible_to(like, add_dims=False)
    except TensorArgError:
        moved = None
    if moved is None or any(a.dimension != b.dimension for a, b in zip(moved.dims, like.dims)):
        raise LayerShapeError(layer=layer_name, layer_class="synthetic_gradient",
                              problem="the gradient prediction must have the shape of the input", got=repr(src),
                              expected=repr(like))
    return moved.placeholder


@register_layer
class SyntheticGradientLayer(ConcatInputLayer):
    """Identity forward; backward the predicted gradient, and a meta loss training the prediction."""

    layer_class = "synthetic_gradient"

    def __init__(self, gradient: LayerBase, meta_loss_scale: float = 1.0, **kwargs: Any):
        """
        :param gradient: layer that predicts the gradient (same shape as the input)
        :param meta_loss_scale: factor of the meta loss that trains the prediction (default 1)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        prediction = same_layout_raw(gradient.output, inp, self.name)
        loss_name = f"{self.network.get_absolute_name_prefix()}{self.name}/synthetic_grad"

        # the prediction is an input of the op (with a zero gradient), so that the op lies on the path from the
        # predictor's params to the objective: the updater's gradient reaches it also when its input is extern data
        @tf.custom_gradient
        def synthetic_gradient(x: tf.Tensor, predicted: tf.Tensor) -> Any:
            def grad(g: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
                with tf.name_scope("grad_prediction_loss"):
                    loss = tf.reduce_mean(tf.square(prediction - tf.stop_gradient(g)))
                register_meta_loss(MetaLoss(name=loss_name, value=loss, scale=meta_loss_scale,
                                            norm_factor=tf.size(prediction)))
                return tf.stop_gradient(predicted), tf.zeros_like(predicted)
            return tf.identity(x), grad

        self.output.placeholder = synthetic_gradient(inp.placeholder, prediction)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``gradient`` (a layer name) to the layer.

        :raises LayerArgError: ``gradient`` missing
        """
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if not d.get("gradient"):
            raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="gradient",
                                problem="missing required argument", expected="the name of the predicting layer")
        d["gradient"] = get_layer(d["gradient"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return concat_sources_template(sources, name=name, layer_class=cls.layer_class)
