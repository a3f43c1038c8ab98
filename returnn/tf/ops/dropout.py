"""Dropout with a noise shape given by axis descriptions, active in training only (or always if asked)."""

from __future__ import annotations

from typing import Any, Callable, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.ops import step_random


def cond_on_train_flag(train_flag: Any, fn_train: Callable[[], tf.Tensor], fn_eval: Callable[[], tf.Tensor]) -> tf.Tensor:
    """:param train_flag: python bool or scalar bool tf tensor (placeholder)"""
    if isinstance(train_flag, bool):
        return fn_train() if train_flag else fn_eval()
    return tf.cond(train_flag, fn_train, fn_eval)


def get_noise_shape(tensor: Tensor, noise_shape: Any) -> Optional[Any]:
    """Noise shape for ``tf.nn.dropout`` from the layer arg ``dropout_noise_shape``.

    As the reference (observed): by default the mask is shared (broadcast) over all axes except the feature
    axis. A dict maps axis descriptions to 1 (share the mask over that axis) or None (independent noise);
    ``"*"`` sets all axes first (``{"*": None}``: no sharing at all). A list/tuple gives 1/None per axis
    (with batch).

    :return: int32 shape tensor
    """
    return tf.stack([tf.convert_to_tensor(d, tf.int32) for d in _noise_dims(tensor, noise_shape)])


def _noise_dims(tensor: Tensor, noise_shape: Any) -> list:
    """:return: per axis of ``tensor`` the noise's size: 1 (shared), a static size or a scalar int32 tensor"""
    raw_shape = tf.shape(tensor.placeholder)
    full = [raw_shape[i] if d is None else d for i, d in enumerate(tensor.batch_shape)]
    if isinstance(noise_shape, (list, tuple)):
        if len(noise_shape) != tensor.batch_ndim:
            raise ValueError(f"dropout_noise_shape {noise_shape!r} has wrong length for {tensor}")
        return [1 if v == 1 else full[i] for i, v in enumerate(noise_shape)]
    opts = dict(noise_shape or {})
    star = opts.pop("*", "default")
    if star == "default":
        share = [True] * tensor.batch_ndim
        if tensor.feature_dim_axis is not None:
            share[tensor.feature_dim_axis] = False
    else:
        share = [star == 1] * tensor.batch_ndim
    for key, value in opts.items():
        for axis in tensor.get_axes_from_description(key):
            share[axis] = value == 1
    return [1 if s else full[i] for i, s in enumerate(share)]


def apply_dropout(tensor: Tensor, rate: float, *, train_flag: Any, noise_shape: Any = None,
                  on_forward: bool = False, seed: Optional[int] = None, amp: Any = None) -> tf.Tensor:
    """:return: ``tensor.placeholder`` with dropout (kept values scaled by ``1/(1-rate)``) in training (or always
    if ``on_forward``); unchanged otherwise.

    A mask shared over some axes (the default: all but the feature axis) is the small tensor
    ``(uniform >= rate) / (1 - rate)`` of the noise shape, multiplied into the input: one kernel over the
    input's size forward and one in the gradient, where ``tf.nn.dropout`` (scale, then select the kept values)
    takes two and three. The same random values (the same ``RandomUniform`` op and seeds) and the same results,
    except that a dropped ``inf``/``nan`` input value gives ``nan`` (``0 * inf``), not 0.

    :param amp: the network's ``tf_amp`` policy (:class:`returnn.tf.util.amp.AmpPolicy`): where the input is the
        float32 cast of a product's result, the shared mask is applied in the compute dtype (the scale
        ``1 / (1 - rate)`` rounded to it, as mixed-precision frameworks do) and cast after it
    """
    x = tensor.placeholder
    if not rate:
        return x
    dims = _noise_dims(tensor, noise_shape)
    shape = tf.stack([tf.convert_to_tensor(d, tf.int32) for d in dims])
    shared = any(isinstance(d, int) and d == 1 and tensor.batch_shape[i] != 1 for i, d in enumerate(dims))

    src = amp.source(x) if amp is not None and shared else None
    if src is not None:  # tf_amp, on a product's result: in the compute dtype, cast after the (train-flag) cond
        def dropped_src() -> tf.Tensor:
            return src * tf.cast(step_random.dropout_mask(shape, rate=rate, dtype=x.dtype, seed=seed), src.dtype)

        y = dropped_src() if on_forward else cond_on_train_flag(train_flag, dropped_src, lambda: tf.identity(src))
        return tf.cast(y, x.dtype)

    def dropped() -> tf.Tensor:
        if shared:
            return x * step_random.dropout_mask(shape, rate=rate, dtype=x.dtype, seed=seed)
        return step_random.nn_dropout(x, rate=rate, noise_shape=shape, seed=seed)

    if on_forward:
        return dropped()
    return cond_on_train_flag(train_flag, dropped, lambda: tf.identity(x))
