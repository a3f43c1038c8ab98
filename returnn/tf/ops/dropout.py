"""Dropout with a noise shape given by axis descriptions, active in training only (or always if asked)."""

from __future__ import annotations

from typing import Any, Callable, Optional

import tensorflow as tf

from returnn.tensor import Tensor


def cond_on_train_flag(train_flag: Any, fn_train: Callable[[], tf.Tensor], fn_eval: Callable[[], tf.Tensor]) -> tf.Tensor:
    """:param train_flag: python bool or scalar bool tf tensor (placeholder)"""
    if isinstance(train_flag, bool):
        return fn_train() if train_flag else fn_eval()
    return tf.cond(train_flag, fn_train, fn_eval)


def get_noise_shape(tensor: Tensor, noise_shape: Any) -> Optional[Any]:
    """:param noise_shape: None (no broadcasting), dict axis-description → 1 (broadcast) or None, or a list/tuple
        of 1/None per axis (with batch)
    :return: noise shape for ``tf.nn.dropout`` (None: full)
    """
    if noise_shape is None:
        return None
    raw_shape = tf.shape(tensor.placeholder)
    dims = [raw_shape[i] if d is None else d for i, d in enumerate(tensor.batch_shape)]
    if isinstance(noise_shape, dict):
        for key, value in noise_shape.items():
            for axis in tensor.get_axes_from_description(key):
                if value == 1:
                    dims[axis] = 1
    else:
        if len(noise_shape) != tensor.batch_ndim:
            raise ValueError(f"dropout_noise_shape {noise_shape!r} has wrong length for {tensor}")
        dims = [1 if v == 1 else dims[i] for i, v in enumerate(noise_shape)]
    return tf.stack([tf.convert_to_tensor(d, tf.int32) for d in dims])


def apply_dropout(tensor: Tensor, rate: float, *, train_flag: Any, noise_shape: Any = None,
                  on_forward: bool = False, seed: Optional[int] = None) -> tf.Tensor:
    """:return: ``tensor.placeholder`` with dropout (kept values scaled by ``1/(1-rate)``) in training (or always
    if ``on_forward``); unchanged otherwise"""
    x = tensor.placeholder
    if not rate:
        return x
    shape = get_noise_shape(tensor, noise_shape)

    def dropped() -> tf.Tensor:
        return tf.nn.dropout(x, rate=rate, noise_shape=shape, seed=seed)

    if on_forward:
        return dropped()
    return cond_on_train_flag(train_flag, dropped, lambda: tf.identity(x))
