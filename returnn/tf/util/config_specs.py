"""The legacy ``TFUtil`` signatures of ``get_initializer`` and ``get_activation_function`` over the spec parsers in
:mod:`returnn.tf.ops.init` and :mod:`returnn.tf.ops.activations` (custom layers in configs call these)."""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Dict, Optional, Tuple

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tf.ops.activations import get_activation_function as _get_activation
from returnn.tf.ops.init import get_initializer as _get_initializer

_CALL_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*", re.DOTALL)


# positional arguments of TF's initializer classes, in order (normalized name: lowercase, no "_", no "initializer")
_POSITIONAL = {
    "randomuniform": ("minval", "maxval"),
    "randomnormal": ("mean", "stddev"),
    "truncatednormal": ("mean", "stddev"),
    "constant": ("value",),
    "variancescaling": ("scale", "mode", "distribution"),
    "orthogonal": ("gain",),
    "glorotuniform": (),
    "glorotnormal": (),
    "zeros": (),
    "ones": (),
}

_MATH_NAMES = {name: getattr(math, name) for name in ("log", "exp", "sqrt", "sin", "cos", "tanh", "pi", "e")}


def _norm_class_name(name: str) -> str:
    return name.lower().replace("_", "").replace("initializer", "")


def _eval_call_args(args_src: str, namespace: Dict[str, Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
    def collect(*args: Any, **kwargs: Any) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        return args, kwargs
    return eval(f"__collect({args_src})", dict(namespace, __collect=collect))  # noqa: S307 (config expression)


def get_initializer(s: Any, seed: Any = None, eval_local_ns: Optional[Dict[str, Any]] = None,
                    dtype: Any = tf.float32) -> Any:
    """:param s: initializer spec: a number, a name (``"glorot_uniform"``), a call expression with keyword or
        positional arguments (``"variance_scaling_initializer(scale=0.5)"``, ``"RandomUniform(-0.01, 0.01)"``,
        ``'VarianceScaling(scale=6.0, mode="fan_avg", distribution="normal")'``; its arguments may use the names in
        ``eval_local_ns``, e.g. ``layer``; a ``seed`` there overrides ``seed``), a numeric formula (``"log(1.0 /
        4.0)"``: a constant initializer; ``log exp sqrt sin cos tanh pi e`` available), a dict with ``"class"``, or
        an initializer object
    :param seed: op-level seed for random initializers
    :param eval_local_ns: names available in the arguments of a call expression
    :param dtype: accepted for compatibility; the variable's dtype is used when the initializer is called
    :return: an initializer for ``tf.compat.v1.get_variable(initializer=...)``
    :raises ConfigValueError: unknown initializer name or malformed spec
    """
    del dtype
    if isinstance(s, str):
        namespace: Dict[str, Any] = dict(_MATH_NAMES)
        namespace.update(eval_local_ns or {})
        match = _CALL_RE.fullmatch(s)
        if match:
            cls_name, args_src = match.group(1), match.group(2)
            positional = _POSITIONAL.get(_norm_class_name(cls_name))
            try:
                args, kwargs = _eval_call_args(args_src, namespace)
            except Exception as exc:
                raise ConfigValueError("get_initializer", expected="an initializer call like "
                                       "'RandomUniform(-0.01, 0.01)' or a numeric formula", got=s) from exc
            if positional is not None or not args:
                if positional is not None and len(args) > len(positional):
                    raise ConfigValueError("get_initializer", expected=f"at most {len(positional)} positional "
                                           f"arguments ({', '.join(positional)}) for {cls_name}", got=s)
                kwargs.update(zip(positional or (), args))
                seed = kwargs.pop("seed", seed)  # a seed in the expression wins, as the reference
                try:
                    return _get_initializer({"class": cls_name, **kwargs}, seed=seed, key="get_initializer")
                except ConfigValueError:
                    if positional is not None:
                        raise
        value = _eval_number(s, namespace)
        if value is not None:
            return _get_initializer(float(value), seed=seed, key="get_initializer")
    return _get_initializer(s, seed=seed, key="get_initializer")


def _eval_number(s: str, namespace: Dict[str, Any]) -> Optional[float]:
    """:return: the value of ``s`` as a numeric formula, or None if it is none"""
    try:
        value = eval(s, {"__builtins__": {}}, dict(namespace))  # noqa: S307 (the config's own expression)
    except Exception:  # noqa: BLE001 (not a formula: the caller reports the spec as unknown)
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def get_activation_function(s: Optional[str]) -> Callable[[tf.Tensor], tf.Tensor]:
    """:param s: activation name (``"relu"``, ``"2*sigmoid"``, ``"relu+tanh"``), or None
    :return: the function; ``tf.identity`` for None, as the reference
    :raises UnknownNameError: unknown activation name
    """
    if s is None:
        return tf.identity
    return _get_activation(s)
