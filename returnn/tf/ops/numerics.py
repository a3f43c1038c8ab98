"""Numerically safe log/exp, ``dot`` over the last axis, sampled logits (legacy ``TFUtil`` functions).

``safe_log``/``safe_exp`` clip their input to ``[eps, ...]`` / ``[log(eps), -log(eps)]`` with an identity
gradient through the clipping (the gradient is the one of ``log``/``exp`` at the clipped value, never cut to 0),
as the reference.
"""

from __future__ import annotations

import math
from typing import Any, List, Tuple

import tensorflow as tf
from tensorflow.python.ops import nn_impl

_IDENTITY_MINMAX_GRAD = "ReturnnIdentityMinMaxGrad"


def _identity_minmax_grad(op: tf.Operation, grad: tf.Tensor) -> Tuple[tf.Tensor, None]:
    """Gradient of ``Maximum``/``Minimum(x, const)``: passes ``grad`` to ``x`` unchanged (``x`` has the output's
    shape here), none to the bound."""
    del op
    return grad, None


try:
    tf.RegisterGradient(_IDENTITY_MINMAX_GRAD)(_identity_minmax_grad)
except KeyError:  # registered already (module reloaded)
    pass


def maximum_with_identity_grad(x: tf.Tensor, y: Any) -> tf.Tensor:
    """:return: ``tf.maximum(x, y)`` (``y`` a scalar bound) whose gradient w.r.t. ``x`` is the identity"""
    with tf.name_scope("maximum_with_identity_grad"):
        with tf.compat.v1.get_default_graph().gradient_override_map({"Maximum": _IDENTITY_MINMAX_GRAD}):
            return tf.maximum(x, y)


def minimum_with_identity_grad(x: tf.Tensor, y: Any) -> tf.Tensor:
    """:return: ``tf.minimum(x, y)`` (``y`` a scalar bound) whose gradient w.r.t. ``x`` is the identity"""
    with tf.name_scope("minimum_with_identity_grad"):
        with tf.compat.v1.get_default_graph().gradient_override_map({"Minimum": _IDENTITY_MINMAX_GRAD}):
            return tf.minimum(x, y)


def clip_by_value_with_identity_grad(x: tf.Tensor, lo: Any, hi: Any) -> tf.Tensor:
    """:return: ``x`` clipped to ``[lo, hi]`` (scalar bounds) with identity gradient w.r.t. ``x``"""
    with tf.name_scope("clip_by_value_with_identity_grad"):
        with tf.compat.v1.get_default_graph().gradient_override_map(
                {"Maximum": _IDENTITY_MINMAX_GRAD, "Minimum": _IDENTITY_MINMAX_GRAD}):
            return tf.minimum(tf.maximum(x, lo), hi)


def strip_identity_transpose(x: tf.Tensor) -> Tuple[tf.Tensor, List[tf.Operation]]:
    """:param x: a graph tensor
    :return: (the tensor below a chain of Identity/Transpose/Reshape ops ending in ``x``, those ops, outermost
        first): they move elements only, so an elementwise function commutes with them"""
    chain = []
    while x.op.type in ("Identity", "Transpose", "Reshape"):
        chain.append(x.op)
        x = x.op.inputs[0]
    return x, chain


def reapply_identity_transpose(x: tf.Tensor, chain: List[tf.Operation]) -> tf.Tensor:
    """:param x: a tensor of the shape of the chain's bottom input
    :param chain: ops from :func:`strip_identity_transpose`
    :return: ``x`` through new Identity/Transpose/Reshape ops like those of ``chain`` (same permutations, shapes)"""
    for op in reversed(chain):
        if op.type == "Identity":
            x = tf.identity(x)
        elif op.type == "Transpose":
            x = tf.transpose(x, op.inputs[1])
        else:
            x = tf.reshape(x, op.inputs[1])
    return x


_LOG_OF = {
    "Softmax": lambda op: tf.nn.log_softmax(op.inputs[0]),
    "Exp": lambda op: op.inputs[0],
    "Sigmoid": lambda op: tf.math.log_sigmoid(op.inputs[0]),
}


def safe_log(x: Any, eps: float = 1e-20, use_fake_grad: bool = True) -> tf.Tensor:
    """``log(max(x, eps))``, or the exact log where ``x`` is known to come from an exponential-type op, as the
    reference: ``x = softmax(z)`` → ``log_softmax(z)``; ``x = exp(z)`` → ``z``; ``x = sigmoid(z)`` →
    ``log_sigmoid(z)``, also through ``tf.identity``, ``tf.transpose`` and ``tf.reshape`` ops after it (which are
    applied again on the log, so ``safe_log(move_axis(softmax(z), 1, 0))`` is a ``Transpose`` of a ``LogSoftmax``,
    and the softmax of a layer over ``[B, T, F]`` computed on ``[B*T, F]`` gives a ``Reshape`` of a ``LogSoftmax``).

    :param x: float tensor (probabilities), any shape
    :param eps: lower bound before the log
    :param use_fake_grad: gradient ``1/max(x, eps)`` also where ``x < eps`` (else 0 there)
    :return: same shape and dtype as ``x``
    """
    with tf.name_scope("safe_log"):
        x = tf.convert_to_tensor(x)
        base, chain = strip_identity_transpose(x)
        if base.op.type in _LOG_OF:
            exact = _LOG_OF[base.op.type](base.op)
            if not chain and exact is base.op.inputs[0]:
                return tf.identity(exact)
            return reapply_identity_transpose(exact, chain)
        bounded = maximum_with_identity_grad(x, eps) if use_fake_grad else tf.maximum(x, eps)
        return tf.math.log(bounded)


def safe_exp(x: Any, eps: float = 1e-20) -> tf.Tensor:
    """:return: ``exp(x)`` with ``x`` clipped to ``[log(eps), -log(eps)]`` (identity gradient through the clip),
    so the result stays within ``[eps, 1/eps]``; same shape and dtype as ``x``"""
    with tf.name_scope("safe_exp"):
        x = tf.convert_to_tensor(x)
        bound = math.log(eps)
        return tf.exp(clip_by_value_with_identity_grad(x, bound, -bound))


def _shape_list(x: tf.Tensor) -> List[Any]:
    static = x.shape.as_list()
    return [d if d is not None else tf.shape(x)[i] for i, d in enumerate(static)]


def dot(a: Any, b: Any, transpose_b: bool = False) -> tf.Tensor:
    """Contracts the last axis of ``a`` with the first axis of ``b`` (the last one if ``transpose_b``).

    :param a: (..., n) or (n,)
    :param b: (n, ...) or (n,); with ``transpose_b``: (..., n)
    :return: ``a.shape[:-1] + b.shape[1:]`` (``b.shape[:-1]`` with ``transpose_b``); a plain ``MatMul`` for two
        matrices
    """
    with tf.name_scope("dot"):
        a, b = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
        if a.shape.rank == 2 and b.shape.rank == 2:
            return tf.matmul(a, b, transpose_b=transpose_b)
        if transpose_b and b.shape.rank > 1:
            b = tf.transpose(b, [b.shape.rank - 1] + list(range(b.shape.rank - 1)))
        a_shape, b_shape = _shape_list(a), _shape_list(b)
        a_2d = tf.reshape(a, [-1, a_shape[-1]])
        b_2d = tf.reshape(b, [b_shape[0], -1])
        out = tf.matmul(a_2d, b_2d)
        out_shape = a_shape[:-1] + b_shape[1:]
        if any(isinstance(d, tf.Tensor) for d in out_shape):
            out_shape = tf.stack([tf.convert_to_tensor(d, tf.int32) for d in out_shape])
        return tf.reshape(out, out_shape)


def compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                           num_true: int = 1, sampled_values: Any = None, subtract_log_q: bool = True,
                           remove_accidental_hits: bool = False, partition_strategy: str = "mod",
                           name: str = "compute_sampled_logits", seed: Any = None) -> Tuple[tf.Tensor, tf.Tensor]:
    """Logits and labels for sampled softmax / NCE: TensorFlow's own implementation (the one behind
    ``tf.nn.sampled_softmax_loss`` and ``tf.nn.nce_loss``), as the reference.

    :param weights: (num_classes, dim) or a list of partitions
    :param biases: (num_classes,)
    :param labels: (batch, num_true) int64
    :param inputs: (batch, dim)
    :param sampled_values: (sampled_candidates, true_expected_count, sampled_expected_count), or None to sample
        with the log-uniform sampler (``seed``)
    :return: (logits, labels), each (batch, num_true + num_sampled)
    """
    return nn_impl._compute_sampled_logits(  # noqa: SLF001 (TF's implementation; no public name exists)
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=subtract_log_q,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name, seed=seed)
