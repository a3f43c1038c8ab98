"""Random ops that draw from a generator state variable (Philox, ``int64[3]``), as the reference's
``tensorflow-net-dict`` backend does for each random op of an RF model (observed in its checkpoints:
``<scope>/random/random_generator/StateVar``, int64 ``[3]``). The state is a resource variable at the graph's root
(created outside any ``tf.cond``/while loop), initialised from the op's seed; each draw advances it, so a
checkpoint holds where the random streams are, and a run resumed from it continues them."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

__all__ = ["state_variable", "draw_with_state"]

_PHILOX = 1  # TF's RNG_ALG_PHILOX; its state: two int64 counter words and one key word


def state_variable(name: str, seed: Optional[int]) -> tf.Variable:
    """:return: the int64 ``[3]`` resource variable ``name`` of the current graph (created once, with the key
        ``seed`` and counter 0; not trainable)"""
    graph = tf.compat.v1.get_default_graph()
    existing = [v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES) if v.op.name == name]
    if existing:
        return existing[0]
    with tf.init_scope():  # out of the control flow (the dropout's cond) around this op
        root = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name="")
        with tf.compat.v1.variable_scope(root, auxiliary_name_scope=False), tf.compat.v1.name_scope(None):
            init = tf.constant([0, 0, int(seed or 0)], dtype=tf.int64)
            return tf.compat.v1.get_variable(name, initializer=init, trainable=False, use_resource=True)


def draw_with_state(state: tf.Variable, shape: Sequence[Any], distribution: str, dtype: str, *, minval: Any = None,
                    maxval: Any = None, mean: Any = None, stddev: Any = None) -> tf.Tensor:
    """:return: ``shape`` random values from ``state``: ``uniform`` in ``[minval, maxval)`` (default ``[0, 1)``;
        ints: ``maxval`` required), ``normal`` or ``truncated_normal`` (at 2 stddev) with ``mean``, ``stddev``"""
    alg = tf.constant(_PHILOX, dtype=tf.int64)
    if isinstance(shape, (list, tuple)):
        shape = tf.constant([int(s) for s in shape], dtype=tf.int64, shape=[len(shape)])
    else:
        shape = tf.cast(shape, tf.int64)
    dtype = tf.as_dtype(dtype)
    if distribution == "uniform":
        if dtype.is_integer:
            return tf.raw_ops.StatefulUniformInt(resource=state.handle, algorithm=alg, shape=shape,
                                                 minval=tf.cast(0 if minval is None else minval, dtype),
                                                 maxval=tf.cast(maxval, dtype))
        u = tf.raw_ops.StatefulUniform(resource=state.handle, algorithm=alg, shape=shape, dtype=dtype)
        lo = 0.0 if minval is None else minval
        hi = 1.0 if maxval is None else maxval
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and (lo, hi) == (0.0, 1.0):
            return u
        lo, hi = tf.cast(lo, dtype), tf.cast(hi, dtype)
        return u * (hi - lo) + lo
    if distribution == "normal":
        x = tf.raw_ops.StatefulStandardNormalV2(resource=state.handle, algorithm=alg, shape=shape, dtype=dtype)
    elif distribution == "truncated_normal":
        x = tf.raw_ops.StatefulTruncatedNormal(resource=state.handle, algorithm=alg, shape=shape, dtype=dtype)
    else:
        raise ValueError(f"unknown distribution {distribution!r}")
    return x * tf.cast(1.0 if stddev is None else stddev, dtype) + tf.cast(0.0 if mean is None else mean, dtype)
