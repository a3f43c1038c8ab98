"""Recurrent state kept from one ``Session.run`` to the next (``initial_state="keep_over_epoch"``).

A layer with such a state has one non-trainable variable per state part, ``<layer>/rec/keep_state_<part>``
(e.g. ``keep_state_c``, ``keep_state_h``), of a shape that may change from run to run (the batch size; for
self-attention also the number of frames so far). It is no param: it is neither saved nor loaded nor trained.

- ``"keep_over_epoch"``: the initial state is zeros when the network's epoch step
  (:meth:`returnn.tf.network.TFNetwork.get_epoch_step`, fed by the caller) is 0, else the variable's value;
- ``"keep_over_epoch_no_init"``: always the variable's value (zeros of a batch of one until the first run).

After a run the final state is written to the variable by one of the network's post control dependencies
(:meth:`returnn.tf.network.TFNetwork.get_post_control_dependencies`): fetch them with the outputs.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

KEEP_OVER_EPOCH = "keep_over_epoch"
KEEP_OVER_EPOCH_NO_INIT = "keep_over_epoch_no_init"
MODES = (KEEP_OVER_EPOCH, KEEP_OVER_EPOCH_NO_INIT)
#: the graph collection of the state variables (so that code collecting a scope's variables as params skips them)
COLLECTION = "returnn_kept_states"


def is_kept_state(spec: Any) -> bool:
    """:return: whether ``spec`` (an ``initial_state`` value) asks for a state kept over runs"""
    return isinstance(spec, str) and spec in MODES


def create_state_var(name: str, shape: Sequence[Any], dtype: Any = tf.float32) -> tf.Variable:
    """Creates ``<current variable scope>/<name>`` (not trainable, not a param) with a partly unknown shape, or returns
    it if it exists.

    :param shape: the state's shape; ``None`` entries (batch, frames) start with size 1 (batch) / 0 (others),
        given in that order: the first None is the batch axis
    :return: the variable
    """
    first_none = next((i for i, d in enumerate(shape) if d is None), None)
    initial_shape = [d if d is not None else (1 if i == first_none else 0) for i, d in enumerate(shape)]
    scope = tf.compat.v1.get_variable_scope().name
    full_name = f"{scope}/{name}" if scope else name
    existing = [v for v in tf.compat.v1.get_collection(COLLECTION) if v.op.name == full_name]
    if existing:
        return existing[0]
    # a resource variable whose shape is only partly known (also to graph optimizations, which must not take the
    # initial value's shape for the shape of what is read later)
    with tf.compat.v1.get_default_graph().name_scope(f"{scope}/" if scope else ""):
        return tf.compat.v1.Variable(tf.zeros(initial_shape, dtype=dtype), shape=tf.TensorShape(shape), name=name,
                                     trainable=False, use_resource=True,
                                     collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, COLLECTION])


def is_state_var(var: tf.Variable) -> bool:
    """:return: whether ``var`` is a state variable of this module (not a param)"""
    return any(var is v for v in tf.compat.v1.get_collection(COLLECTION))


def initial_value(network: Any, mode: str, var: tf.Variable, zeros: tf.Tensor) -> tf.Tensor:
    """:param zeros: the state a fresh sequence starts with (``[B, ...]``)
    :return: the initial state for this run (see the module docstring), with the static shape of ``zeros``"""
    if mode == KEEP_OVER_EPOCH_NO_INIT:
        value = var.read_value()
    else:  # the variable is read only when used (it may be uninitialized before the first run)
        value = tf.cond(tf.equal(network.get_epoch_step(), 0), lambda: zeros, var.read_value)
    value.set_shape(zeros.shape)
    return value


def register_final_value(network: Any, var: tf.Variable, final: tf.Tensor) -> None:
    """Writes ``final`` to ``var`` after each run that fetches the network's post control dependencies."""
    network.register_post_control_dependencies([var.assign(final, read_value=False)])

