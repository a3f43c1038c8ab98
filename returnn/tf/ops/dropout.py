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
    raw_shape = tf.shape(tensor.placeholder)
    full = [raw_shape[i] if d is None else d for i, d in enumerate(tensor.batch_shape)]
    if isinstance(noise_shape, (list, tuple)):
        if len(noise_shape) != tensor.batch_ndim:
            raise ValueError(f"dropout_noise_shape {noise_shape!r} has wrong length for {tensor}")
        dims = [1 if v == 1 else full[i] for i, v in enumerate(noise_shape)]
    else:
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
        dims = [1 if s else full[i] for i, s in enumerate(share)]
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
        return step_random.nn_dropout(x, rate=rate, noise_shape=shape, seed=seed)

    if on_forward:
        return dropped()
    return cond_on_train_flag(train_flag, dropped, lambda: tf.identity(x))
