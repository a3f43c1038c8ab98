"""Finding NaN/inf and cheap algebraic simplifications (legacy ``TFUtil`` functions):
``identity_with_check_numerics``, ``add_check_numerics_ops``, ``check_base_op_type_and_replace``,
``simplify_add``, ``simplify_sub``, ``simplify_neg``, ``lin_exp``, ``lin_exp_normed``,
``wrap_distribution_non_zero``, ``nan_to_num``, ``l1_normalized``."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.log import log
from returnn.tf.util.control_flow import has_control_flow_context
from returnn.tf.util.errors import TFUtilValueError
from returnn.tf.util.graph_inspect import backward_walk_ops
from returnn.tf.ops.numerics import reapply_identity_transpose, safe_exp, strip_identity_transpose

_CHECK_GRAD = "ReturnnIdentityWithCheckNumericsGrad"


def _identity_check_grad(op: tf.Operation, grad: tf.Tensor) -> tf.Tensor:
    return tf.debugging.check_numerics(grad, f"check_numerics gradient of {op.inputs[0].name}")


try:
    tf.RegisterGradient(_CHECK_GRAD)(_identity_check_grad)
except KeyError:  # registered already (module reloaded)
    pass


def identity_with_check_numerics(x: Any, with_grad: bool = True, name: str = "identity_with_check_numerics"
                                 ) -> tf.Tensor:
    """:param x: float tensor
    :param with_grad: check the gradient flowing back through it as well
    :param name: name scope
    :return: ``x`` through an ``Identity`` op that runs after a ``CheckNumerics`` of ``x`` (an error names the
        tensor if it has NaN or inf)"""
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x)
        check = tf.debugging.check_numerics(x, f"check_numerics of {x.name}")
        with tf.control_dependencies([check]):
            if not with_grad:
                return tf.identity(x)
            with x.graph.gradient_override_map({"Identity": _CHECK_GRAD}):
                return tf.identity(x)


def add_check_numerics_ops(fetches: Any = None, ignore_ops: Optional[Callable[[tf.Operation], bool]] = None,
                           use_check_numerics: bool = True, debug_print_added_checks: bool = True,
                           name: str = "add_check_numerics_ops") -> tf.Operation:
    """One op that checks every float output (outside of loops/conds) of the ops ``fetches`` depend on.

    :param fetches: tensors/ops (nested); None: all ops of the default graph
    :param ignore_ops: predicate on ops to skip
    :param use_check_numerics: ``CheckNumerics`` ops (else ``Assert`` of ``is_finite``)
    :param debug_print_added_checks: log each checked tensor (verbosity 4)
    :param name: name scope
    :return: a ``NoOp`` grouping the checks; running it raises ``InvalidArgumentError`` naming the first bad tensor
    """
    graph = tf.compat.v1.get_default_graph()
    if fetches is None:
        ops = graph.get_operations()
    else:
        walked = backward_walk_ops(fetches)
        ops = [op for op in graph.get_operations() if op in walked]
    checks = []
    with tf.name_scope(name):
        for op in ops:
            if ignore_ops is not None and ignore_ops(op):
                continue
            if has_control_flow_context(op):
                continue
            for t in op.outputs:
                if not t.dtype.is_floating:
                    continue
                if debug_print_added_checks:
                    print(f"add check for: {t} {op.type}", file=log.v4)
                check_name = t.name.replace(":", "_").replace("/", "_") + "_check_numerics"
                if use_check_numerics:
                    checks.append(tf.debugging.check_numerics(t, f"check_numerics of {t.name}", name=check_name).op)
                else:
                    checks.append(tf.Assert(tf.reduce_all(tf.math.is_finite(t)), [f"not finite: {t.name}", t],
                                            name=check_name))
        return tf.group(*checks)


_REPLACEMENTS: Dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "LogSoftmax": tf.nn.log_softmax,
    "Softmax": tf.nn.softmax,
    "LogSigmoid": tf.math.log_sigmoid,
    "Sigmoid": tf.sigmoid,
    "Exp": tf.exp,
    "Log": tf.math.log,
    "Identity": tf.identity,
}


def check_base_op_type_and_replace(x: tf.Tensor, op_type: str, new_op_type: str) -> Optional[tf.Tensor]:
    """:param x: a tensor, e.g. ``softmax(z)`` (also behind ``Identity``/``Transpose`` ops)
    :param op_type: the op type to look for, e.g. ``"Softmax"``
    :param new_op_type: what to compute on the same input instead: ``"LogSoftmax"``, ``"LogSigmoid"``,
        ``"Softmax"``, ``"Sigmoid"``, ``"Exp"``, ``"Log"``, ``"Identity"``
    :return: the replacement (with the same Identity/Transpose ops after it), or None if ``x`` does not come from
        ``op_type``
    :raises TFUtilValueError: unknown ``new_op_type``"""
    if new_op_type not in _REPLACEMENTS:
        raise TFUtilValueError("check_base_op_type_and_replace", "new_op_type",
                               expected="one of " + ", ".join(sorted(_REPLACEMENTS)), got=new_op_type)
    x = tf.convert_to_tensor(x)
    base, chain = strip_identity_transpose(x)
    if base.op.type != op_type:
        return None
    return reapply_identity_transpose(_REPLACEMENTS[new_op_type](base.op.inputs[0]), chain)


def _const_value(x: Any) -> Any:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return x
    if isinstance(x, tf.Tensor):
        v = tf.get_static_value(x)
        if v is not None and getattr(v, "shape", ()) == ():
            return v.item() if hasattr(v, "item") else v
    return None


def simplify_add(a: Any, b: Any) -> Any:
    """:return: ``a + b``, with constants folded: ``(x + c1) + c2`` → ``x + (c1 + c2)``, ``x + 0`` → ``x`` (the
        same tensor), two constants → their sum as a constant tensor"""
    ca, cb = _const_value(a), _const_value(b)
    if ca is not None and cb is not None:
        dtype = a.dtype if isinstance(a, tf.Tensor) else (b.dtype if isinstance(b, tf.Tensor) else None)
        return tf.constant(ca + cb, dtype=dtype)
    if ca is not None:
        a, b, ca, cb = b, a, cb, ca
    if cb is None:
        return a + b
    if cb == 0:
        return tf.convert_to_tensor(a)
    if isinstance(a, tf.Tensor) and a.op.type in ("Add", "AddV2", "Sub"):
        x, y = a.op.inputs
        cy = _const_value(y)
        if cy is not None:
            return simplify_add(x, (cy if a.op.type != "Sub" else -cy) + cb)
        cx = _const_value(x)
        if cx is not None and a.op.type != "Sub":
            return simplify_add(y, cx + cb)
    return a + tf.cast(cb, a.dtype) if isinstance(a, tf.Tensor) else a + cb


def simplify_sub(a: Any, b: Any) -> Any:
    """:return: ``a - b``, simplified as :func:`simplify_add` when ``b`` is a constant (``(x + 3) - 3`` is ``x``)"""
    cb = _const_value(b)
    if cb is not None:
        return simplify_add(a, -cb)
    return a - b


def simplify_neg(a: Any) -> Any:
    """:return: ``-a``; ``-(-x)`` is ``x``, a constant gives a constant"""
    ca = _const_value(a)
    if ca is not None:
        return tf.constant(-ca, dtype=a.dtype) if isinstance(a, tf.Tensor) else -ca
    if isinstance(a, tf.Tensor) and a.op.type == "Neg":
        return a.op.inputs[0]
    return -a


def lin_exp(x: Any, use_safe_exp: bool = True) -> tf.Tensor:
    """:param x: float tensor
    :param use_safe_exp: exp through :func:`safe_exp` (bounded, nonzero gradient)
    :return: ``x + 1`` where ``x >= 0``, ``exp(x)`` elsewhere (continuous, positive, linear growth)"""
    with tf.name_scope("lin_exp"):
        x = tf.convert_to_tensor(x)
        neg = tf.minimum(x, 0.0)
        e = safe_exp(neg) if use_safe_exp else tf.exp(neg)
        return tf.where(tf.greater_equal(x, 0.0), x + 1.0, e)


def lin_exp_normed(x: Any, axis: int = -1, eps: float = 1e-10) -> tf.Tensor:
    """:param x: float tensor
    :param axis: the axis to normalize
    :param eps: lower bound of the sum
    :return: :func:`lin_exp` of ``x``, divided by its sum over ``axis`` (a distribution like softmax)"""
    with tf.name_scope("lin_exp_normed"):
        y = lin_exp(x)
        return y / tf.maximum(tf.reduce_sum(y, axis=axis, keepdims=True), eps)


def wrap_distribution_non_zero(x: Any, zero_limit: float, limit: float) -> tf.Tensor:
    """Maps ``[-limit, limit]`` onto ``[-limit, -zero_limit] ∪ [zero_limit, limit]`` linearly per sign (``x >= 0``
    goes to the positive part): e.g. to draw initial values away from zero.

    :param x: float tensor, values in ``[-limit, limit]``
    :param zero_limit: smallest absolute result
    :param limit: largest absolute value of ``x`` and the result
    :return: same shape
    """
    with tf.name_scope("wrap_distribution_non_zero"):
        x = tf.convert_to_tensor(x, dtype=tf.float32) if not isinstance(x, tf.Tensor) else x
        scale = (limit - zero_limit) / limit
        pos = zero_limit + x * scale
        neg = -zero_limit + x * scale
        return tf.where(tf.greater_equal(x, 0.0), pos, neg)


def nan_to_num(x: Any, nan_num: float = 0, inf_num: float = 1e30) -> tf.Tensor:
    """:return: ``x`` with NaN replaced by ``nan_num``, +inf by ``inf_num``, -inf by ``-inf_num``"""
    with tf.name_scope("nan_to_num"):
        x = tf.convert_to_tensor(x)
        x = tf.where(tf.math.is_nan(x), tf.fill(tf.shape(x), tf.cast(nan_num, x.dtype)), x)
        x = tf.where(tf.equal(x, float("inf")), tf.fill(tf.shape(x), tf.cast(inf_num, x.dtype)), x)
        return tf.where(tf.equal(x, float("-inf")), tf.fill(tf.shape(x), tf.cast(-inf_num, x.dtype)), x)


def l1_normalized(x: Any, axis: int = -1, eps: float = 1e-20, use_logsumexp: bool = False,
                  is_not_negative: bool = False) -> tf.Tensor:
    """:param x: float tensor
    :param axis: the axis to normalize
    :param eps: lower bound of the norm
    :param use_logsumexp: divide in log space (``x`` must be non-negative)
    :param is_not_negative: ``x`` is known to be >= 0 (no ``abs``)
    :return: ``x / max(sum(|x|, axis), eps)``"""
    with tf.name_scope("l1_normalized"):
        x = tf.convert_to_tensor(x)
        if use_logsumexp:
            log_x = tf.math.log(tf.maximum(x, eps))
            return tf.exp(log_x - tf.reduce_logsumexp(log_x, axis=axis, keepdims=True))
        norm = tf.reduce_sum(x if is_not_negative else tf.abs(x), axis=axis, keepdims=True)
        return x / tf.maximum(norm, eps)
