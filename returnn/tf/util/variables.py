"""Variables (legacy ``TFUtil`` functions and class): ``var_handle_or_ref``, ``get_variable_from_tensor``,
``enforce_copy``, ``variable_scalar_summaries_dict``, ``variable_summaries``, ``VariableAssigner``,
``init_variable_if_needed``."""

from __future__ import annotations

from typing import Any, Dict, Optional, Union

import numpy
import tensorflow as tf

from returnn.tf.util.control_flow import default_control_flow_ctx
from returnn.tf.util.scopes import get_base_name, reuse_name_scope_of_tensor

_v1 = tf.compat.v1


def var_handle_or_ref(var: tf.Variable) -> tf.Tensor:
    """:param var: resource or ref variable
    :return: its resource handle (dtype ``resource``) or, for a ref variable, its ref tensor"""
    handle = getattr(var, "handle", None)
    if handle is not None:
        return handle
    return var._ref()  # noqa: SLF001 (a v1 RefVariable has no public accessor of its ref tensor)


def get_variable_from_tensor(var: Union[tf.Tensor, tf.Variable]) -> Optional[tf.Variable]:
    """:param var: a variable, or a tensor read from one through ``Identity``/``ReadVariableOp`` ops
    :return: the global variable it reads, or None"""
    if isinstance(var, tf.Variable):
        return var
    x = var
    while x.op.type in ("Identity", "ReadVariableOp", "Snapshot"):
        x = x.op.inputs[0]
    if x.op.type not in ("VarHandleOp", "VariableV2", "Variable"):
        return None
    for v in _v1.global_variables(scope=None) + _v1.local_variables():
        if x is var_handle_or_ref(v) or v.op is x.op:
            return v
    return None


def enforce_copy(x: Any) -> tf.Tensor:
    """:param x: a tensor, e.g. a variable's value
    :return: a real copy of ``x`` (later assignments to the variable do not change it; ``tf.identity`` of a ref
        variable may alias)"""
    with tf.name_scope("copy"):
        x = tf.convert_to_tensor(x)
        zero = tf.zeros((), dtype=x.dtype) if x.dtype != tf.bool else None
        if zero is None:
            return tf.logical_or(x, False)
        return tf.add(x, zero)


def variable_scalar_summaries_dict(x: Union[tf.Tensor, tf.Variable], name: Optional[str] = None
                                   ) -> Dict[str, tf.Tensor]:
    """:param x: float tensor or variable
    :param name: key prefix; default: the base name of ``x``
    :return: scalars ``{name}_mean``, ``_stddev`` (root of the mean squared deviation), ``_rms``, ``_l2``
        (root of the sum of squares), ``_max``, ``_min``"""
    if name is None:
        name = get_base_name(x)
    x = tf.convert_to_tensor(x)
    mean = tf.reduce_mean(x)
    return {
        f"{name}_mean": mean,
        f"{name}_stddev": tf.sqrt(tf.reduce_mean(tf.square(x - mean))),
        f"{name}_rms": tf.sqrt(tf.reduce_mean(tf.square(x))),
        f"{name}_l2": tf.sqrt(tf.reduce_sum(tf.square(x))),
        f"{name}_max": tf.reduce_max(x),
        f"{name}_min": tf.reduce_min(x),
    }


def variable_summaries(var: Union[tf.Tensor, tf.Variable], name: Optional[str] = None,
                       with_histogram: bool = False) -> None:
    """Adds scalar summaries (see :func:`variable_scalar_summaries_dict`) of ``var`` to the graph's summaries
    collection, in name scope ``summaries_<scope of var>/<var's op name>`` (``summaries_vv`` for a variable ``vv`` at the
    root), and a histogram if ``with_histogram``.

    :param var: float tensor or variable
    :param name: summary name prefix; default: the base name of ``var``
    :param with_histogram: also ``tf.summary.histogram``
    """
    if name is None:
        name = get_base_name(var)
    op = var.op if isinstance(var, tf.Variable) else var
    with reuse_name_scope_of_tensor(op, prefix="summaries_", add_tensor_name=True):
        for key, value in variable_scalar_summaries_dict(var, name=name).items():
            _v1.summary.scalar(key, value)
        if with_histogram:
            _v1.summary.histogram(f"{name}_histogram", var)


class VariableAssigner:
    """Assigns values to one variable from Python through one placeholder and assign op (built once)."""

    def __init__(self, var: tf.Variable):
        """:param var: the variable"""
        self.var = var
        with default_control_flow_ctx(), tf.name_scope(f"var_assigner_{get_base_name(var)}"):
            self.value_placeholder = _v1.placeholder(var.dtype.base_dtype, shape=var.shape, name="value")
            self.assign_op = _v1.assign(var, self.value_placeholder)

    def assign(self, value: Any, session: Any) -> None:
        """:param value: numpy array or number of the variable's shape
        :param session: ``tf.compat.v1.Session`` of the variable's graph"""
        session.run(self.assign_op, feed_dict={self.value_placeholder: numpy.asarray(value)})


def init_variable_if_needed(v: tf.Variable) -> tf.Operation:
    """:param v: a variable
    :return: an op that initializes ``v`` if it is not yet initialized (else does nothing)"""
    with tf.name_scope("init_variable_if_needed"), default_control_flow_ctx():
        return tf.cond(_v1.is_variable_initialized(v), lambda: tf.constant(False), lambda: _with_init(v)).op


def _with_init(v: tf.Variable) -> tf.Tensor:
    # a new assign op inside the branch (the variable's own initializer op is outside of the cond: it would run
    # whichever branch is taken)
    with tf.control_dependencies([_v1.assign(v, v.initial_value)]):
        return tf.constant(True)


def auto_init_var(v: tf.Variable) -> tf.Tensor:
    """:param v: a variable
    :return: its value, read after initializing it if it was not yet initialized"""
    with tf.control_dependencies([init_variable_if_needed(v)]):
        return tf.identity(v.read_value() if hasattr(v, "read_value") else v)
