"""Per-frame loss values on the padded output, for the ``loss`` layer (:class:`LossLayer`).

A framewise loss (``ce``, ``mse``, ``mean_l1``) can give its value and its error per frame instead of the sum over
the valid frames: :func:`output_feature_last` is the loss output with the feature axis last (all other axes in
their order, e.g. ``[B, T, F]`` or ``[T, B, F]``), :func:`target_like_output` the target arranged like it
(``[B, T]`` / ``[T, B]`` sparse, or with ``F`` last when dense). Padded frames are computed too (their values are
whatever the padded inputs give), as the reference; a consumer masks them by the sequence lengths.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor


def output_feature_last(loss: Any, raw: Optional[tf.Tensor] = None) -> Tensor:
    """:return: the loss output (or ``raw`` in the output's layout, e.g. the logits) with the feature axis last"""
    out = loss.output.copy()
    if raw is not None:
        out.placeholder = raw
    if out.feature_dim_axis is not None and out.feature_dim_axis != out.batch_ndim - 1:
        out = out.copy_with_feature_last()
    return out


def target_like_output(loss: Any, out: Tensor) -> tf.Tensor:
    """Arranges the loss target like ``out`` (feature last): its batch and time axes in ``out``'s order, the time
    axis padded or cut to ``out``'s padded length (the target's own padded length may differ).

    :param out: from :func:`output_feature_last`
    :return: sparse target ``out``'s shape without F (int32), or dense ``out``'s shape
    :raises LayerArgError: if the target has an axis the output has not (or the other way round)
    """
    target = loss.target
    raw = target.placeholder
    if target.sparse:
        raw = tf.cast(raw, tf.int32)
    out_axes = [i for i in range(out.batch_ndim) if i != out.feature_dim_axis]
    perm = []
    for i in out_axes:
        if i == out.batch_dim_axis and target.batch_dim_axis is not None:
            perm.append(target.batch_dim_axis)
        elif i == out.time_dim_axis and target.time_dim_axis is not None:
            perm.append(target.time_dim_axis)
        else:
            perm = None
            break
    if not target.sparse and perm is not None and target.feature_dim_axis is not None:
        perm.append(target.feature_dim_axis)
    if perm is None or sorted(perm) != list(range(target.batch_ndim)):
        name = getattr(loss.layer, "name", "?")
        raise LayerArgError(layer=name, layer_class="loss", arg="target", problem="axes do not match the output:",
                            got=target.get_description(), expected=f"the axes of {out.get_description()}")
    if perm != list(range(target.batch_ndim)):
        raw = tf.transpose(raw, perm)
    if out.time_dim_axis is not None:
        t_axis = out_axes.index(out.time_dim_axis)
        n_out = tf.shape(out.placeholder)[out.time_dim_axis]
        raw = _fit_length(raw, t_axis, n_out)
    return raw


def _fit_length(x: tf.Tensor, axis: int, n: tf.Tensor) -> tf.Tensor:
    """:return: ``x`` cut or zero-padded on ``axis`` (static) to length ``n``"""
    x = x[(slice(None),) * axis + (slice(0, n),)]
    pad = [[0, 0]] * x.shape.rank
    pad[axis] = [0, tf.maximum(n - tf.shape(x)[axis], 0)]
    return tf.pad(x, pad)


def dense_target_like_output(loss: Any, out: Tensor) -> tf.Tensor:
    """:return: the target like ``out`` (feature last), sparse targets as one-hot float over ``out``'s F"""
    target = target_like_output(loss, out)
    if loss.target.sparse:
        return tf.one_hot(target, tf.shape(out.placeholder)[-1], dtype=out.placeholder.dtype)
    return tf.cast(target, out.placeholder.dtype)


def frame_error(loss: Any) -> tf.Tensor:
    """:return: float32, 1.0 on each frame (output layout without F) whose output argmax differs from the target
    (its class, or its argmax when dense)"""
    out = output_feature_last(loss)
    pred = tf.argmax(out.placeholder, axis=-1, output_type=tf.int32)
    target = target_like_output(loss, out)
    if not loss.target.sparse:
        target = tf.argmax(target, axis=-1, output_type=tf.int32)
    return tf.cast(tf.not_equal(pred, target), tf.float32)
