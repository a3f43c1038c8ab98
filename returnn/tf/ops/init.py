"""``forward_weights_init`` & co: initializer specs → TF initializers (the reference's ``get_initializer``).

Accepted specs (as documented by the reference):

- a number: constant initializer with that value
- a name of a TF initializer, lowercase, with or without the ``_initializer`` suffix: ``"glorot_uniform"``,
  ``"glorot_normal"``, ``"orthogonal"``, ``"zeros"``, ``"ones"``, ``"random_normal"``, ``"truncated_normal"``,
  ``"random_uniform"``, ``"variance_scaling"``, ``"he_normal"``, ``"lecun_uniform"``, ...; also an expression
  calling one with literal positional and/or keyword arguments (those of the TF initializer), e.g.
  ``"variance_scaling_initializer(scale=0.5)"``, ``"RandomUniform(0., 1.)"`` (CamelCase names as the dict form)
- a dict ``{"class": "VarianceScaling", "scale": 0.5, "mode": "fan_out"}`` (class name in any case, with or without
  ``Initializer``/``_initializer``)
- an initializer object or callable (passed through)
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Optional, Tuple

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.util.suggest import close_matches

_v1 = tf.compat.v1  # TensorFlow's own graph-mode initializers (init_ops), with their defaults, as the reference


def _vs(scale: float, mode: str, distribution: str) -> Callable[..., Any]:
    def make(*args: Any, seed: Optional[int] = None, **kwargs: Any) -> Any:
        opts = dict(scale=scale, mode=mode, distribution=distribution)
        opts.update(zip(("scale", "mode", "distribution"), args))
        opts.update(kwargs)
        return _v1.variance_scaling_initializer(seed=seed, **opts)
    return make


def _seeded(factory: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, seed=None, **kw: factory(*args, seed=seed, **kw)


def _unseeded(factory: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, seed=None, **kw: factory(*args, **kw)


# defaults are TensorFlow's: random_normal mean 0 stddev 1, random_uniform [0, 1), truncated_normal stddev 1
# (cut at 2 stddev), variance_scaling scale 1 fan_in truncated_normal -- what the reference's checkpoints show
_NAMED: Dict[str, Callable[..., Any]] = {
    "glorot_uniform": _seeded(_v1.glorot_uniform_initializer),
    "xavier": _seeded(_v1.glorot_uniform_initializer),
    "glorot_normal": _seeded(_v1.glorot_normal_initializer),
    "orthogonal": _seeded(_v1.orthogonal_initializer),
    "zeros": _unseeded(_v1.zeros_initializer),
    "zero": _unseeded(_v1.zeros_initializer),
    "ones": _unseeded(_v1.ones_initializer),
    "constant": lambda *args, seed=None, **kw: _v1.constant_initializer(*args, **kw),
    "random_normal": _seeded(_v1.random_normal_initializer),
    "random_uniform": _seeded(_v1.random_uniform_initializer),
    "truncated_normal": _seeded(_v1.truncated_normal_initializer),
    "uniform_unit_scaling": _vs(1.0, "fan_in", "uniform"),
    "variance_scaling": _seeded(_v1.variance_scaling_initializer),
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
        return _v1.constant_initializer(value=float(spec))
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
        args: Tuple[Any, ...] = ()
        kwargs: Dict[str, Any] = {}
        if match.group(3):
            try:
                args, kwargs = eval(f"_args({match.group(3)})",  # noqa: S307 (config expression)
                                    {"__builtins__": {}, "_args": lambda *a, **k: (a, k)}, {})
            except Exception as exc:
                raise ConfigValueError(key, expected="arguments of Python literals like '0., 1.' or 'scale=0.5'",
                                       got=spec) from exc
        return factory(*args, seed=seed, **kwargs)
    if callable(spec):
        return spec
    raise ConfigValueError(key, expected="an initializer spec (number, name, dict with 'class')", got=spec)
