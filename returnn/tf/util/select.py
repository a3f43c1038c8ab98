"""Selection, masking and index helpers on raw TF tensors (the legacy ``TFUtil`` functions configs call):
``where_bc``, ``nd_indices``, ``flatten_with_seq_len_mask``, ``matrix_triangular``, ``filter_ended_scores``
(the sequence masks are in :mod:`returnn.tf.ops.masks`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.tf.ops.masks import pack_valid_frames
from returnn.tf.util.errors import TFUtilArgError
from returnn.tf.util.shape import get_shape


def where_bc(condition: Any, x: Any, y: Any, allow_broadcast_all_sources: Any = None, name: str = "where_bc"
             ) -> tf.Tensor:
    """``tf.where`` with broadcasting (``SelectV2``): ``condition ? x : y`` elementwise.

    The non-scalar inputs must have the same rank; each axis must have equal sizes or size 1 (statically known
    mismatches raise here, as the reference; dynamic ones fail when run). Python scalars take the dtype TF
    gives them (``0.0`` → float32), so ``x`` and ``y`` must agree in dtype, as in the reference.

    :param allow_broadcast_all_sources: accepted for compatibility; broadcasting is always allowed here
    :raises TFUtilArgError: ranks differ, or static sizes mismatch (an ``AssertionError``, as the reference)
    """
    del allow_broadcast_all_sources
    with tf.name_scope(name):
        condition = tf.convert_to_tensor(condition)
        x = tf.convert_to_tensor(x)
        y = tf.convert_to_tensor(y)
        _check_broadcastable("where_bc", [condition, x, y])
        return tf.where(condition, x, y)


def _check_broadcastable(func: str, values: Sequence[tf.Tensor]) -> None:
    shaped = [v for v in values if v.shape.rank != 0]
    if not shaped or any(v.shape.rank is None for v in shaped):
        return
    ranks = {v.shape.rank for v in shaped}
    if len(ranks) > 1:
        raise TFUtilArgError(func, "ranks do not match: " + ", ".join(f"{v.name} {v.shape}" for v in shaped)
                             + "; expected equal ranks (size-1 axes broadcast) or scalars")
    for axis in range(ranks.pop()):
        sizes = {v.shape[axis] for v in shaped} - {None, 1}
        if len(sizes) > 1:
            raise TFUtilArgError(func, f"sizes {sorted(sizes)} do not match in axis {axis}: "
                                 + ", ".join(f"{v.name} {v.shape}" for v in shaped))


def nd_indices(indices: Any, batch_axis: int = 0, indices_batch_major: Optional[bool] = None) -> tf.Tensor:
    """Index pairs for ``tf.gather_nd``: for each entry of ``indices`` its batch index (its position along
    ``batch_axis``) and the entry itself.

    :param indices: int tensor, e.g. (batch, n) or (batch,)
    :param batch_axis: 0 or 1 (the reference supports only these)
    :param indices_batch_major: order of the pair: True → ``[batch, index]`` (for batch-major data),
        False → ``[index, batch]`` (time-major data); default: ``batch_axis == 0``
    :return: ``indices.shape + [2]``, dtype of ``indices``
    :raises TFUtilArgError: ``batch_axis`` not 0 or 1
    """
    if batch_axis not in (0, 1):
        raise TFUtilArgError("nd_indices", f"batch_axis {batch_axis} not supported; expected 0 or 1")
    if indices_batch_major is None:
        indices_batch_major = batch_axis == 0
    with tf.name_scope("nd_indices"):
        indices = tf.convert_to_tensor(indices)
        shape = tf.shape(indices)
        ndim = indices.shape.rank
        batch_idx = tf.range(shape[batch_axis], dtype=indices.dtype)
        batch_idx = tf.reshape(batch_idx, [-1 if i == batch_axis else 1 for i in range(ndim)])
        batch_idx = tf.broadcast_to(batch_idx, shape)
        pair = [batch_idx, indices] if indices_batch_major else [indices, batch_idx]
        return tf.stack(pair, axis=-1, name="idxs_exp")


def flatten_with_seq_len_mask(x: Any, seq_lens: Any, batch_dim_axis: Optional[int] = None,
                              time_dim_axis: Optional[int] = None, time_major: Optional[bool] = None) -> tf.Tensor:
    """Packs the valid frames of ``x`` into one axis: (batch, time, ...) → (sum(seq_lens), ...), batch-major
    (all frames of seq 0 first, then seq 1, ...) whatever the layout of ``x``, as the reference.

    :param x: (batch, time, ...) or (time, batch, ...), or with ``time_dim_axis`` elsewhere
    :param seq_lens: (batch,) int
    :param batch_dim_axis: give either these two axes ...
    :param time_dim_axis:
    :param time_major: ... or this (True: time 0, batch 1; False: batch 0, time 1)
    :return: (num_frames, ...) with the remaining axes in their order
    :raises TFUtilArgError: neither or both ways of giving the axes used
    """
    if time_major is not None:
        if batch_dim_axis is not None or time_dim_axis is not None:
            raise TFUtilArgError("flatten_with_seq_len_mask", "give either batch_dim_axis/time_dim_axis or "
                                                              "time_major, not both")
        batch_dim_axis, time_dim_axis = (1, 0) if time_major else (0, 1)
    elif batch_dim_axis is None or time_dim_axis is None:
        raise TFUtilArgError("flatten_with_seq_len_mask", "expected batch_dim_axis and time_dim_axis, or time_major")
    with tf.name_scope("flatten_with_seq_len_mask"):
        return pack_valid_frames(x, seq_lens, batch_dim_axis, time_dim_axis)


def flatten_with_seq_len_mask_time_major(x: Any, seq_lens: Any, batch_dim_axis: int, time_dim_axis: int
                                         ) -> tf.Tensor:
    """Like :func:`flatten_with_seq_len_mask`, but the frames in time-major order: all sequences' frame 0 first
    (those that have one), then frame 1, ...

    :param x: tensor with a batch and a time axis
    :param seq_lens: (batch,) int
    :param batch_dim_axis: batch axis of ``x``
    :param time_dim_axis: time axis of ``x``
    :return: (num_frames, ...) with the remaining axes in their order
    """
    with tf.name_scope("flatten_with_seq_len_mask_time_major"):
        return pack_valid_frames(x, seq_lens, batch_dim_axis, time_dim_axis, time_major_order=True)


def matrix_triangular(shape: Any, dtype: Any = tf.float32, lower: bool = False, upper: bool = False) -> tf.Tensor:
    """:param shape: (..., n, m), ints or int32 scalars
    :param lower: ones on and below the diagonal (exactly one of ``lower``/``upper``)
    :param upper: ones on and above the diagonal
    :return: (..., n, m) of ``dtype`` (bool: True/False), zeros elsewhere
    :raises TFUtilArgError: not exactly one of ``lower``/``upper``
    """
    if bool(lower) == bool(upper):
        raise TFUtilArgError("matrix_triangular", f"expected exactly one of lower=True or upper=True, got "
                                                  f"lower={lower!r}, upper={upper!r}")
    ones = tf.ones(shape, dtype=dtype)
    return tf.linalg.band_part(ones, -1, 0) if lower else tf.linalg.band_part(ones, 0, -1)


def filter_ended_scores(x: Any, end_flags: Any, batch_dim: Any = None, dim: Any = None, score_zero: float = 0.0,
                        score_rem: float = -1.0e30) -> tf.Tensor:
    """For search: scores of hypotheses that ended are replaced by ``score_zero`` for label 0 and ``score_rem``
    for all other labels (so an ended hypothesis can only continue with label 0, at no cost).

    :param x: (batch, dim) scores
    :param end_flags: (batch,) bool
    :param batch_dim: accepted for compatibility (taken from ``x``)
    :param dim: number of labels (default: from ``x``)
    :return: (batch, dim)
    """
    del batch_dim
    with tf.name_scope("filter_ended_scores"):
        x = tf.convert_to_tensor(x)
        if dim is None:
            dim = get_shape(x)[-1]
        filler = tf.concat([tf.fill([1], tf.cast(score_zero, x.dtype)),
                            tf.fill([dim - 1], tf.cast(score_rem, x.dtype))], axis=0)  # (dim,)
        return where_bc(tf.expand_dims(end_flags, -1), tf.expand_dims(filler, 0), x)
