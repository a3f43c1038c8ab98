"""``forward_weights_init`` & co: initializer specs → TF initializers (the reference's ``get_initializer``).

Accepted specs (as documented by the reference):

- a number: constant initializer with that value
- a name of a TF initializer, lowercase, with or without the ``_initializer`` suffix: ``"glorot_uniform"``,
  ``"glorot_normal"``, ``"orthogonal"``, ``"zeros"``, ``"ones"``, ``"random_normal"``, ``"truncated_normal"``,
  ``"random_uniform"``, ``"variance_scaling"``, ``"he_normal"``, ``"lecun_uniform"``, ...; also an expression
  calling one, e.g. ``"variance_scaling_initializer(scale=0.5)"``
- a dict ``{"class": "VarianceScaling", "scale": 0.5, "mode": "fan_out"}`` (class name in any case, with or without
  ``Initializer``/``_initializer``)
- an initializer object or callable (passed through)
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.util.suggest import close_matches

_init = tf.compat.v1.initializers


def _vs(scale: float, mode: str, distribution: str) -> Callable[..., Any]:
    def make(seed: Optional[int] = None, **kwargs: Any) -> Any:
        opts = dict(scale=scale, mode=mode, distribution=distribution)
        opts.update(kwargs)
        return tf.compat.v1.keras.initializers.VarianceScaling(seed=seed, **opts)
    return make


_NAMED: Dict[str, Callable[..., Any]] = {
    "glorot_uniform": lambda seed=None, **kw: tf.compat.v1.keras.initializers.glorot_uniform(seed=seed, **kw),
    "xavier": lambda seed=None, **kw: tf.compat.v1.keras.initializers.glorot_uniform(seed=seed, **kw),
    "glorot_normal": lambda seed=None, **kw: tf.compat.v1.keras.initializers.glorot_normal(seed=seed, **kw),
    "orthogonal": lambda seed=None, **kw: tf.compat.v1.keras.initializers.Orthogonal(seed=seed, **kw),
    "zeros": lambda seed=None, **kw: tf.compat.v1.keras.initializers.Zeros(**kw),
    "zero": lambda seed=None, **kw: tf.compat.v1.keras.initializers.Zeros(**kw),
    "ones": lambda seed=None, **kw: tf.compat.v1.keras.initializers.Ones(**kw),
    "constant": lambda seed=None, value=0.0, **kw: tf.compat.v1.keras.initializers.Constant(value=value, **kw),
    "random_normal": lambda seed=None, **kw: tf.compat.v1.keras.initializers.RandomNormal(seed=seed, **kw),
    "random_uniform": lambda seed=None, **kw: tf.compat.v1.keras.initializers.RandomUniform(seed=seed, **kw),
    "truncated_normal": lambda seed=None, **kw: tf.compat.v1.keras.initializers.TruncatedNormal(seed=seed, **kw),
    "uniform_unit_scaling": _vs(1.0, "fan_in", "uniform"),
    "variance_scaling": lambda seed=None, **kw: tf.compat.v1.keras.initializers.VarianceScaling(seed=seed, **kw),
    "he_normal": _vs(2.0, "fan_in", "truncated_normal"),
    "he_uniform": _vs(2.0, "fan_in", "uniform"),
    "lecun_normal": _vs(1.0, "fan_in", "truncated_normal"),
    "lecun_uniform": _vs(1.0, "fan_in", "uniform"),
}


def _normalize_name(name: str) -> str:
    key = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() if any(c.isupper() for c in name) else name.lower()
    for suffix in ("_initializer", "initializer"):
        if key.endswith(suffix):
            key = key[: -len(suffix)].rstrip("_")
    return key


def _lookup(name: str, key_for_errors: str) -> Callable[..., Any]:
    norm = _normalize_name(name)
    if norm not in _NAMED:
        raise ConfigValueError(key_for_errors, expected="an initializer: a number, one of " + ", ".join(sorted(_NAMED))
                               + " (with or without '_initializer'), or a dict with 'class'", got=name,
                               suggestions=close_matches(norm, _NAMED))
    return _NAMED[norm]


def get_initializer(spec: Any, *, seed: Optional[int] = None, key: str = "forward_weights_init") -> Any:
    """:param spec: see module doc
    :param seed: random seed for random initializers
    :param key: the layer arg name, for error messages (e.g. ``"forward_weights_init"`` or ``"lstm/bias_init"``)
    :return: an initializer usable with ``tf.compat.v1.get_variable(initializer=...)``
    :raises ConfigValueError: unknown name / malformed spec
    """
    if isinstance(spec, bool):
        raise ConfigValueError(key, expected="an initializer spec", got=spec)
    if isinstance(spec, (int, float)):
        return tf.compat.v1.keras.initializers.Constant(value=float(spec))
    if isinstance(spec, dict):
        opts = dict(spec)
        if "class" not in opts:
            raise ConfigValueError(key, expected="a dict with 'class', e.g. {'class': 'VarianceScaling', 'scale': 0.5}",
                                   got=spec)
        cls_name = opts.pop("class")
        return _lookup(cls_name, key)(seed=seed, **opts)
    if isinstance(spec, str):
        match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*", spec)
        if not match:
            raise ConfigValueError(key, expected="an initializer name or expression", got=spec)
        factory = _lookup(match.group(1), key)
        kwargs: Dict[str, Any] = {}
        if match.group(3):
            try:
                kwargs = eval(f"dict({match.group(3)})", {"__builtins__": {}, "dict": dict}, {})  # noqa: S307 (config expression)
            except Exception as exc:
                raise ConfigValueError(key, expected="keyword arguments like 'scale=0.5'", got=spec) from exc
        return factory(seed=seed, **kwargs)
    if callable(spec):
        return spec
    raise ConfigValueError(key, expected="an initializer spec (number, name, dict with 'class')", got=spec)
