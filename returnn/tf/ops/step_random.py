"""Step-seeded random ops: random values that depend only on (op seed, global train step), not on a kernel state.

TensorFlow's stateful random ops (``tf.random.uniform``, ``tf.nn.dropout``, ...) keep their generator state inside
the op's kernel, in the session: it cannot be saved in a checkpoint, and a new session starts every such op from its
seed again. A training run resumed mid-epoch from a step checkpoint would therefore draw other dropout masks than a
run that was never stopped.

When a graph has a *step seed* (:func:`create_step_seed`, done by the engine when step checkpoints are on:
``step_checkpoint_interval`` / ``step_checkpoint_interval_minutes``), the random ops made through this module are
stateless ops (``tf.random.stateless_uniform``, ``tf.nn.experimental.stateless_dropout``) seeded with the pair
``[mix(op seed), global train step]``: each op gets new values every step, the same values in a resumed run, and
different ops differ by their op seeds (the graph-level and op-level seed of ``tf.compat.v1.random.get_seed``, so
the op seeds are those the stateful op would get). The engine feeds the step (``global_train_step`` before the
step's update) in every training step; other passes see the default 0 (random ops are off there anyway, except
``dropout_on_forward``).

Inside a ``tf.while_loop`` body (rec layers' loops) a stateless op would draw the same values in every loop
iteration of a step, so there the stateful op stays (:func:`stateful_random_ops` lists such ops for the engine's
warning). Without a step seed in the graph (the default), every function here is exactly the stateful op the
reference uses (same values for the same seeds).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional

import tensorflow as tf

tf1 = tf.compat.v1

#: graph collection holding the step-seed placeholder (one, or none)
STEP_SEED_COLLECTION = "returnn_step_seed"

#: op types that keep a random generator state in their kernel
STATEFUL_RANDOM_OP_TYPES = frozenset({
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal", "ParameterizedTruncatedNormal",
    "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "RandomPoissonV2", "RandomCrop",
    "UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
    "FixedUnigramCandidateSampler", "AllCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
})


def create_step_seed(graph: Optional[tf.Graph] = None) -> tf.Tensor:
    """Creates the step-seed placeholder of ``graph`` (default: the default graph): int64 scalar ``step_seed``,
    default 0, outside any control-flow context. Random ops made through this module afterwards are step-seeded.

    :return: the placeholder (the same one when called again)
    """
    graph = graph or tf1.get_default_graph()
    existing = graph.get_collection(STEP_SEED_COLLECTION)
    if existing:
        return existing[0]
    with graph.as_default(), tf1.control_dependencies(None), tf1.name_scope(None):
        placeholder = tf1.placeholder_with_default(tf.constant(0, tf.int64), shape=(), name="step_seed")
    graph.add_to_collection(STEP_SEED_COLLECTION, placeholder)
    return placeholder


def get_step_seed(graph: Optional[tf.Graph] = None) -> Optional[tf.Tensor]:
    """:return: the step-seed placeholder of ``graph`` (default: the default graph), or None (none created)"""
    graph = graph or tf1.get_default_graph()
    existing = graph.get_collection(STEP_SEED_COLLECTION)
    return existing[0] if existing else None


def _in_while_loop() -> bool:
    """Whether ops created now are inside a ``tf.while_loop`` body (v1 control flow)."""
    from tensorflow.python.ops import control_flow_util  # TF's own helper for this question

    probe = tf.no_op(name="step_random_ctx_probe")
    return control_flow_util.IsInWhileLoop(probe)


def _active_step_seed() -> Optional[tf.Tensor]:
    step_seed = get_step_seed()
    if step_seed is None or _in_while_loop():
        return None
    return step_seed


def stateless_seed(seed: Optional[int], step_seed: tf.Tensor) -> tf.Tensor:
    """The ``[2]`` int64 seed of a stateless op: the op seeds (graph-level and op-level, as
    ``tf.compat.v1.random.get_seed(seed)`` gives them) mixed into one int64, and the step.

    :param seed: the op-level seed (None: derived from the graph as for a stateful op)
    :param step_seed: int64 scalar (the step)
    """
    seed1, seed2 = tf1.random.get_seed(seed)
    mixed = ((int(seed1 or 0) & 0x7FFFFFFF) << 31) ^ (int(seed2 or 0) & 0x7FFFFFFF)
    return tf.stack([tf.constant(mixed, tf.int64), tf.cast(step_seed, tf.int64)])


def random_uniform(shape: Any, *, dtype: Any = tf.float32, seed: Optional[int] = None) -> tf.Tensor:
    """Uniform values in ``[0, 1)`` of ``shape``: step-seeded when the graph has a step seed (see module doc), else
    ``tf.random.uniform(shape, seed=seed, dtype=dtype)``."""
    step_seed = _active_step_seed()
    if step_seed is None:
        return tf.random.uniform(shape, seed=seed, dtype=dtype)
    return tf.random.stateless_uniform(shape, seed=stateless_seed(seed, step_seed), dtype=dtype)


def random_normal(shape: Any, *, stddev: Any = 1.0, dtype: Any = tf.float32, seed: Optional[int] = None) -> tf.Tensor:
    """Normal values (mean 0) of ``shape``: step-seeded when the graph has a step seed, else ``tf.random.normal``."""
    step_seed = _active_step_seed()
    if step_seed is None:
        return tf.random.normal(shape, stddev=stddev, dtype=dtype, seed=seed)
    return tf.random.stateless_normal(shape, seed=stateless_seed(seed, step_seed), stddev=stddev, dtype=dtype)


def nn_dropout(x: Any, *, rate: Any, noise_shape: Any = None, seed: Optional[int] = None) -> tf.Tensor:
    """``tf.nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)``, step-seeded when the graph has a step
    seed (``tf.nn.experimental.stateless_dropout``: the same mask rule, kept values scaled by ``1/(1-rate)``)."""
    step_seed = _active_step_seed()
    if step_seed is None:
        return tf.nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)
    return tf.nn.experimental.stateless_dropout(x, rate=rate, seed=stateless_seed(seed, step_seed),
                                                noise_shape=noise_shape)


def dropout_mask(shape: Any, *, rate: float, dtype: Any = tf.float32, seed: Optional[int] = None) -> tf.Tensor:
    """The mask of :func:`nn_dropout` as a tensor of ``shape``: ``1 / (1 - rate)`` where the uniform value is
    ``>= rate`` (kept), else 0; from the same uniform values as :func:`nn_dropout` draws for that noise shape and
    seed (stateful, or step-seeded when the graph has a step seed).

    :param rate: a Python float in ``[0, 1)``
    """
    keep = random_uniform(shape, dtype=dtype, seed=seed) >= rate
    return tf.cast(keep, dtype) * tf.constant(1.0 / (1.0 - rate), dtype)


def stateful_random_ops(fetches: Iterable[Any]) -> List[tf.Operation]:
    """The ops with a kernel random state (:data:`STATEFUL_RANDOM_OP_TYPES`) that computing ``fetches`` runs (their
    inputs and control inputs, transitively; variable initializers are not among them).

    :param fetches: tensors and ops (None entries are skipped)
    :return: sorted by name
    """
    stack = []
    for fetch in fetches:
        if fetch is None:
            continue
        stack.append(fetch if isinstance(fetch, tf.Operation) else fetch.op)
    seen = set()
    found = []
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in STATEFUL_RANDOM_OP_TYPES:
            found.append(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return sorted(found, key=lambda o: o.name)
