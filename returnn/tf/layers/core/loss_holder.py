"""``LossHolder``: one per layer loss (name = layer name), binding a :class:`Loss` to its layer and target.

Values (all tf float32 scalars):

- :meth:`get_loss_value`: the loss SUMMED over target frames, without ``loss_scale`` and the loss' own ``scale``
  (as the reference, observed: what the logged scores and the learning-rate file report)
- :meth:`get_loss_value_for_objective`: the same times ``loss_scale`` and ``loss_opts`` ``scale`` (what the objective
  adds), divided by the frame count with ``use_normalized_loss``
- :meth:`get_error_value`: number of wrong frames/labels (summed), or None
- :meth:`get_num_frames`: number of target frames (labels for ``ctc``) in the batch; a dataset's ``score`` is
  ``sum(loss values) / sum(num frames)``
- :meth:`get_norm_factor`: ``1 / num_frames``, as the reference's ``LossHolder.get_norm_factor``
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.scope_names import get_valid_scope_name_from_str


class LossHolder:
    """Holds the loss of one layer.

    :param name: loss name (the layer name)
    :param loss: the (not yet initialised) Loss
    :param layer: the layer whose output the loss is computed on
    :param network: the network
    """

    def __init__(self, name: str, loss: Loss, layer: Any, network: Any, scale: float = 1.0):
        self.name = name
        self.loss = loss
        self.layer = layer
        self.layer_output = layer.output
        self.network = network
        self.scale = scale
        loss.layer = layer  # available before the values are built (reference: holder.loss.layer)
        self._prepared = False
        self._value: Optional[tf.Tensor] = None
        self._error: Optional[tf.Tensor] = None
        self._num_frames: Optional[tf.Tensor] = None

    def __repr__(self) -> str:
        return f"<LossHolder name={self.name!r} loss={self.loss!r}>"

    def _prepare(self) -> None:
        if self._prepared:
            return
        self._prepared = True
        target = None
        if self.loss.need_target and self.layer.target:
            target = self.layer._loss_target_data()  # noqa: SLF001 (layer helper)
        self.loss.init(output=self.layer.output, output_with_activation=self.layer.output_before_activation,
                       target=target, layer=self.layer)
        with tf.name_scope(get_valid_scope_name_from_str(f"loss_{self.name.replace('/', '_')}")):
            value = self.loss.get_value()
            self._value = None if value is None else tf.cast(value, tf.float32)
            error = self.loss.get_error()
            self._error = None if error is None else tf.cast(error, tf.float32)
            if self.loss.as_error:  # the value is the error (reported, not trained), as the reference
                self._value, self._error = None, self._value
            self._num_frames = tf.cast(self.loss.get_num_frames(), tf.float32)

    def get_loss_value(self) -> Optional[tf.Tensor]:
        """:return: loss summed over frames (not scaled)"""
        self._prepare()
        return self._value

    def get_loss_value_for_fetch(self) -> Optional[tf.Tensor]:
        return self.get_loss_value()

    def get_loss_value_for_objective(self) -> Optional[tf.Tensor]:
        """:return: what the training objective adds (sum, or per-frame mean with ``use_normalized_loss``)"""
        self._prepare()
        if self._value is None:
            return None
        scale = self.scale * self.loss.scale
        value = self._value if scale == 1.0 else self._value * scale  # no product by 1 (as the reference's graph)
        if self.loss.use_normalized_loss:
            return value / tf.maximum(self._num_frames, 1.0)
        return value

    def get_error_value(self) -> Optional[tf.Tensor]:
        """:return: number of errors summed over the batch, or None if the loss has no error measure"""
        self._prepare()
        return self._error

    def get_num_frames(self) -> tf.Tensor:
        """:return: number of target frames (labels for sequence losses) in the batch"""
        self._prepare()
        return self._num_frames

    def get_norm_factor(self) -> tf.Tensor:
        """:return: ``1 / num_frames`` (as the reference; 1 if there are no frames)"""
        return 1.0 / tf.maximum(self.get_num_frames(), 1.0)

    def get_only_on_eval(self) -> bool:
        return bool(getattr(self.layer, "only_on_eval", False))
