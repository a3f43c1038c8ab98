"""Public path of :class:`LossHolder` (defined in :mod:`returnn.tf.layers.core.loss_holder`, next to the layers'
``get_losses`` that create it)."""

from returnn.tf.layers.core.loss_holder import LossHolder as LossHolder  # noqa: F401
