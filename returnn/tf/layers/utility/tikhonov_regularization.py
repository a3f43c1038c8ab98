"""``{"class": "tikhonov_regularization", "meta_loss_scale": 0.1, "from": "data"}``: penalizes the squared norm
of the objective's gradient w.r.t. this point of the network (input-gradient / Tikhonov regularization).

Shape: unchanged (a copy of its sources). One param, ``dummy`` (a scalar, initialized 0, its gradient 0: it
makes the updater's gradient pass through this layer also when its input is extern data). The gradient passes through unchanged; the meta loss
``sum(g**2) / 2`` of the gradient ``g`` this layer receives (as observed from the reference) is minimized too: the
updater adds ``meta_loss_scale`` times its gradient (a second-order gradient, see
:mod:`returnn.tf.util.meta_losses`) and reports it as ``cost:<layer>/tikhonov_reg`` (with
``loss_norm_factor:<layer>/tikhonov_reg``, the number of elements) in ``Updater.optim_meta_losses_dict``.
"""

from __future__ import annotations

from typing import Any, Tuple

import tensorflow as tf

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.elementwise.copy import CopyLayer
from returnn.tf.util.meta_losses import MetaLoss, register_meta_loss


@register_layer
class TikhonovRegularizationLayer(CopyLayer):
    """Identity forward and backward; a meta loss on the gradient's squared norm."""

    layer_class = "tikhonov_regularization"

    def __init__(self, meta_loss_scale: float = 1.0, **kwargs: Any):
        """
        :param meta_loss_scale: factor of the meta loss (the squared gradient norm) (default 1)
        """
        super().__init__(**kwargs)
        loss_name = f"{self.network.get_absolute_name_prefix()}{self.name}/tikhonov_reg"
        size = tf.size(self.output.placeholder)
        # the param "dummy" (scalar, as the reference's): it puts this op on a path to a trainable variable, so that
        # the updater's gradient reaches it (and so its meta loss) even when the input is extern data
        dummy = self.add_param(tf.compat.v1.get_variable("dummy", shape=(), dtype=tf.float32,
                                                         initializer=tf.compat.v1.zeros_initializer()))

        @tf.custom_gradient
        def tikhonov_regularized(x: tf.Tensor, dummy_value: tf.Tensor) -> Any:
            def grad(g: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
                with tf.name_scope("tikhonov_regularization_loss"):
                    loss = tf.nn.l2_loss(g)
                register_meta_loss(MetaLoss(name=loss_name, value=loss, scale=meta_loss_scale, norm_factor=size))
                return g, tf.zeros_like(dummy_value)
            return tf.identity(x), grad

        self.output.placeholder = tikhonov_regularized(self.output.placeholder, tf.convert_to_tensor(dummy))
