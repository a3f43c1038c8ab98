"""The real (not padded) frames of a time-major padded batch, for computing on them only.

Chunked or unsorted batches are often a third padding (``blstm-train``: 64% real frames). The large matmuls of
the ``loop`` LSTM (the input projection, its gradients ``dx`` and ``dW``, and the recurrent weight gradient
``dW_re``) then run on the real frames only, gathered by :attr:`RealFrames.rows`, whenever fewer than
:data:`PACK_MAX_REAL_FRACTION` of the frames are real (decided per batch at run time, :attr:`RealFrames.pack`);
gathering and scattering costs about as much as it saves above that.
"""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask_time_major

PACK_MAX_REAL_FRACTION = 0.8


class RealFrames:
    """
    :ivar mask: bool [T, B], True at real frames (``t < seq_len[b]``)
    :ivar flat_mask: bool [T*B], ``mask`` in row order of a ``[T*B, ...]`` reshape
    :ivar rows: int64 [N, 1], the indices of the N real frames in ``flat_mask`` (for ``gather_nd``/``scatter_nd``)
    :ivar pack: bool scalar, whether N < :data:`PACK_MAX_REAL_FRACTION` * T*B
    """

    def __init__(self, seq_len: tf.Tensor, max_time: tf.Tensor):
        """
        :param seq_len: int32 [B]
        :param max_time: int32 scalar T
        """
        self.mask = sequence_mask_time_major(seq_len, maxlen=max_time)
        self.flat_mask = tf.reshape(self.mask, [-1])
        self.rows = tf.where(self.flat_mask)
        num_frames = tf.cast(max_time * tf.size(seq_len), tf.float32)
        self.pack = tf.cast(tf.reduce_sum(seq_len), tf.float32) < PACK_MAX_REAL_FRACTION * num_frames
