"""``"loss": "edit_distance"``: label error of a sequence output (e.g. a ``decide`` layer) against the target.

No trainable value (``get_value`` is None); the error is the Levenshtein distance summed over the batch, and the
normalisation is the number of target labels (so the reported error is the label error rate, as the reference).
Shapes: output and target sparse ``{B, T}`` with their own lengths.
"""

from __future__ import annotations

from typing import Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


def _sparse(data: Tensor) -> tf.SparseTensor:
    bm = data.copy_as_batch_major()
    raw = tf.cast(bm.placeholder, tf.int32)
    mask = tf.sequence_mask(bm.get_sequence_lengths(), maxlen=tf.shape(raw)[1])
    idx = tf.cast(tf.where(mask), tf.int64)
    return tf.SparseTensor(idx, tf.gather_nd(raw, idx), tf.cast(tf.shape(raw), tf.int64))


@register_loss
class EditDistanceLoss(Loss):
    """Edit distance (error only) of a sparse ``{B, T}`` output against a sparse ``{B, T}`` target."""

    class_name = "edit_distance"
    recurrent = True

    def __init__(self, debug_print: bool = False, label_map: Optional[dict] = None, ctc_decode: bool = False,
                 output_in_log_space: bool = False, **kwargs):
        super().__init__(**kwargs)

    def get_value(self) -> Optional[tf.Tensor]:
        return None

    def get_error(self) -> tf.Tensor:
        dist = tf.edit_distance(_sparse(self.output), _sparse(self.target), normalize=False)
        return tf.reduce_sum(dist)
