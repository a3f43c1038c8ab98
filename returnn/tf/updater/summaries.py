"""TensorBoard summaries of the parameters and their gradients (config ``debug_grad_summaries``), with the
reference's tags (observed): per parameter ``vars/<param scope>/summaries_<name>/<name>_<stat>`` and per gradient
``grads/<gradient scope>/summaries_grad_of_<name>/grad_of_<name>_<stat>`` for the stats ``mean``, ``stddev``
(population), ``rms``, ``l2`` (``sqrt(sum(x^2)) / 2``), ``max``, ``min``; and ``<scope>/global_grad_norm`` (the
L2 norm of all gradients together) in the name scope of the caller (``optimize``).
"""

from __future__ import annotations

from typing import Any, List, Tuple

import tensorflow as tf

TF = tf.compat.v1


def add_value_summaries(x: tf.Tensor, name: str) -> None:
    """Adds the scalar summaries ``summaries_<name>/<name>_<stat>`` of ``x`` in the current name scope."""
    with tf.name_scope("summaries_%s" % name):
        x = tf.cast(x, tf.float32)
        mean = tf.reduce_mean(x)
        sum_sq = tf.reduce_sum(tf.square(x))
        TF.summary.scalar("%s_mean" % name, mean)
        TF.summary.scalar("%s_stddev" % name, tf.sqrt(tf.reduce_mean(tf.square(x - mean))))
        TF.summary.scalar("%s_rms" % name, tf.sqrt(tf.reduce_mean(tf.square(x))))
        TF.summary.scalar("%s_l2" % name, tf.sqrt(sum_sq) / 2.0)
        TF.summary.scalar("%s_max" % name, tf.reduce_max(x))
        TF.summary.scalar("%s_min" % name, tf.reduce_min(x))


def _scope_of(op_name: str) -> str:
    return op_name.rsplit("/", 1)[0] if "/" in op_name else ""


def add_grad_summaries(grads_and_vars: List[Tuple[Any, Any]]) -> None:
    """Adds the summaries of each ``(gradient, param)`` pair and the global gradient norm (see module doc)."""
    grads = []
    for grad, var in grads_and_vars:
        name = var.op.name.rsplit("/", 1)[-1]
        with TF.get_default_graph().name_scope(None), tf.name_scope("vars/%s/" % _scope_of(var.op.name).rstrip("/")):
            add_value_summaries(var.read_value() if hasattr(var, "read_value") else var, name)
        grad = tf.convert_to_tensor(grad)
        grads.append(grad)
        with TF.get_default_graph().name_scope(None), tf.name_scope("grads/%s/" % _scope_of(grad.op.name)):
            add_value_summaries(grad, "grad_of_%s" % name)
    TF.summary.scalar("global_grad_norm", tf.linalg.global_norm(grads))
