"""The legacy ``TFUtil`` signatures of ``get_initializer`` and ``get_activation_function`` over the spec parsers in
:mod:`returnn.tf.ops.init` and :mod:`returnn.tf.ops.activations` (custom layers in configs call these)."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tf.ops.activations import get_activation_function as _get_activation
from returnn.tf.ops.init import get_initializer as _get_initializer

_CALL_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*", re.DOTALL)


def get_initializer(s: Any, seed: Any = None, eval_local_ns: Optional[Dict[str, Any]] = None,
                    dtype: Any = tf.float32) -> Any:
    """:param s: initializer spec: a number, a name (``"glorot_uniform"``), a call expression
        (``"variance_scaling_initializer(scale=0.5)"``; its arguments may use the names in ``eval_local_ns``,
        e.g. ``layer``; a ``seed`` there overrides ``seed``), a dict with ``"class"``, or an initializer object
    :param seed: op-level seed for random initializers
    :param eval_local_ns: names available in the arguments of a call expression
    :param dtype: accepted for compatibility; the variable's dtype is used when the initializer is called
    :return: an initializer for ``tf.compat.v1.get_variable(initializer=...)``
    :raises ConfigValueError: unknown initializer name or malformed spec
    """
    del dtype
    if isinstance(s, str):
        match = _CALL_RE.fullmatch(s)
        if match:
            namespace: Dict[str, Any] = {"dict": dict}
            namespace.update(eval_local_ns or {})
            try:
                kwargs = eval(f"dict({match.group(2)})", namespace)  # noqa: S307 (the config's own expression)
            except Exception as exc:
                raise ConfigValueError("get_initializer", expected="keyword arguments like 'scale=0.5'",
                                       got=s) from exc
            seed = kwargs.pop("seed", seed)  # a seed in the expression wins, as the reference
            return _get_initializer({"class": match.group(1), **kwargs}, seed=seed, key="get_initializer")
    return _get_initializer(s, seed=seed, key="get_initializer")


def get_activation_function(s: Optional[str]) -> Callable[[tf.Tensor], tf.Tensor]:
    """:param s: activation name (``"relu"``, ``"2*sigmoid"``, ``"relu+tanh"``), or None
    :return: the function; ``tf.identity`` for None, as the reference
    :raises UnknownNameError: unknown activation name
    """
    if s is None:
        return tf.identity
    return _get_activation(s)
