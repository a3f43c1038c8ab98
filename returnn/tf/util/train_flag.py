"""The train flag outside layer code: ``cond_on_train_flag``, ``dropout(..., cond_on_train=True)`` and the
network being constructed (legacy ``TFUtil`` functions configs call from ``eval`` layers and custom layers).

As the reference: inside the construction of a network its ``train_flag`` is used (python bool: the branch is
chosen in python; scalar bool tensor: ``tf.cond``); outside any network a graph-wide bool placeholder
``global_tensor_train_flag/train_flag`` (no default, to be fed) is created once per graph.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional

import tensorflow as tf

from returnn.tensor.dim import enter_layer_dims, leave_layer_dims
from returnn.tf.ops.dropout import cond_on_train_flag as _cond_on_flag
from returnn.tf.ops import step_random
from returnn.tf.util.errors import TFUtilValueError

_GLOBAL_TRAIN_FLAG_ATTR = "_returnn_global_train_flag"


class _NetworksUnderConstruction(threading.local):
    """Per thread: the networks constructing a layer right now, innermost last."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: List[Any] = []


_under_construction = _NetworksUnderConstruction()


def enter_construction(network: Any) -> None:
    """Marks ``network`` as the one whose layer is being constructed, until :func:`leave_construction` (the network
    calls both around each layer's construction; nested for the networks of sub networks and rec loops)."""
    _under_construction.stack.append(network)
    enter_layer_dims()  # static dims the layer makes are auto-generated, as the reference


def leave_construction(network: Any) -> None:
    """Ends :func:`enter_construction` of ``network`` (the innermost one)."""
    assert _under_construction.stack and _under_construction.stack[-1] is network, "unbalanced construction marks"
    _under_construction.stack.pop()
    leave_layer_dims()


def get_current_network(must_exist: bool = True) -> Any:
    """:return: the innermost network constructing a layer right now (see :func:`enter_construction`)
    :raises LookupError: none and ``must_exist``
    """
    if _under_construction.stack:
        return _under_construction.stack[-1]
    if must_exist:
        raise LookupError("no TFNetwork is being constructed here (not called from a layer)")
    return None


def get_global_train_flag_placeholder() -> tf.Tensor:
    """:return: scalar bool placeholder ``global_tensor_train_flag/train_flag`` of the default graph (created once,
        outside any control-flow context)"""
    graph = tf.compat.v1.get_default_graph()
    flag = getattr(graph, _GLOBAL_TRAIN_FLAG_ATTR, None)
    if flag is None:
        with tf.control_dependencies(None), tf.name_scope("global_tensor_train_flag/"):
            flag = tf.compat.v1.placeholder(tf.bool, shape=(), name="train_flag")
        setattr(graph, _GLOBAL_TRAIN_FLAG_ATTR, flag)
    return flag


def get_train_flag() -> Any:
    """:return: the current network's ``train_flag`` (python bool or scalar bool tensor), else the global
        train flag placeholder"""
    network = get_current_network(must_exist=False)
    if network is not None:
        return network.train_flag
    return get_global_train_flag_placeholder()


def cond_on_train_flag(fn_train: Callable[[], Any], fn_eval: Callable[[], Any]) -> Any:
    """:return: ``fn_train()`` in training, ``fn_eval()`` otherwise (see module doc for where the flag comes from)"""
    return _cond_on_flag(get_train_flag(), fn_train, fn_eval)


def dropout(x: Any, keep_prob: Any, noise_shape: Any = None, seed: Optional[int] = None, name: Optional[str] = None,
            cond_on_train: bool = False, apply_correction_factor: bool = True, grad_checkpointing: bool = False
            ) -> tf.Tensor:
    """Classic (TF1) dropout: ``x * floor(keep_prob + uniform[0, 1)) / keep_prob``, as the reference (the same
    random op as ``tf.compat.v1.nn.dropout``, so the same mask for the same seed and shape).

    :param x: float tensor
    :param keep_prob: float in (0, 1] or scalar tensor; 1 → ``x`` unchanged
    :param noise_shape: shape of the mask, broadcast to ``x``; None entries take ``x``'s size (e.g. ``[None, 1]``)
    :param seed: op-level seed of the uniform noise
    :param name: name scope (default ``"dropout"``)
    :param cond_on_train: apply only in training (the current network's train flag), identity otherwise
    :param apply_correction_factor: scale kept values by ``1/keep_prob`` (False: mask only)
    :param grad_checkpointing: accepted; the mask is kept for the gradient anyway (values are the same)
    :return: same shape and dtype as ``x``
    :raises TFUtilValueError: ``keep_prob`` a number outside (0, 1]
    """
    del grad_checkpointing
    if isinstance(keep_prob, (int, float)) and not isinstance(keep_prob, bool):
        if not 0 < keep_prob <= 1:
            raise TFUtilValueError("dropout", "keep_prob", expected="a scalar tensor or a float in the range (0, 1]",
                                   got=keep_prob)
        if keep_prob == 1:
            return x
    if cond_on_train:
        return cond_on_train_flag(
            lambda: dropout(x, keep_prob, noise_shape=noise_shape, seed=seed, name=name,
                            apply_correction_factor=apply_correction_factor),
            lambda: x)
    with tf.name_scope(name or "dropout"):
        x = tf.convert_to_tensor(x)
        if noise_shape is None:
            noise_shape = tf.shape(x)
        elif isinstance(noise_shape, (list, tuple)) and any(d is None for d in noise_shape):
            x_shape = tf.shape(x)
            noise_shape = tf.stack([x_shape[i] if d is None else tf.constant(d, tf.int32)
                                    for i, d in enumerate(noise_shape)])
        keep = keep_prob if isinstance(keep_prob, tf.Tensor) else tf.convert_to_tensor(keep_prob, dtype=x.dtype)
        keep = tf.cast(keep, x.dtype)
        random_tensor = keep + step_random.random_uniform(noise_shape, seed=seed, dtype=x.dtype)
        binary = tf.floor(random_tensor)
        if apply_correction_factor:
            scale = (1.0 / keep_prob) if not isinstance(keep_prob, tf.Tensor) else (1.0 / keep)
            x = x * tf.cast(scale, x.dtype)
        return x * binary
