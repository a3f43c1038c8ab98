"""Random ops: ``rf.random`` (uniform, normal, truncated normal, bernoulli), ``rf.random_uniform``,
``rf.random_normal``, ``rf.random_truncated_normal``, ``rf.set_random_seed``. Each op draws with its own seed,
derived from the seed set by :func:`set_random_seed` (default 42) and a running counter, so a model built twice the
same way draws the same numbers. While an engine builds a model's step function (:mod:`._call_names` active), a
backend with ``random_with_state`` draws from a generator whose state is a variable named as the reference's
``tensorflow-net-dict`` backend names it (``<scope>/random/random_generator/StateVar``), saved in checkpoints."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from returnn.errors import FrontendError
from returnn.frontend import _call_names, _utils
from returnn.frontend._backend import get_selected_backend
from returnn.frontend.dtype import get_default_float_dtype
from returnn.tensor import Dim, Tensor

__all__ = ["random", "random_uniform", "random_normal", "random_truncated_normal", "set_random_seed",
           "get_random_seed_for_op"]

_state: List[int] = [42, 0]


def set_random_seed(seed: int) -> None:
    """Sets the seed of the following random ops (and restarts their counter)."""
    _state[0], _state[1] = int(seed), 0


def get_random_seed_for_op() -> int:
    """:return: the next op seed (from the seed and the counter)"""
    _state[1] += 1
    return (_state[0] * 1000003 + _state[1] * 7919) % (2 ** 31 - 1)


def random(dims: Sequence[Dim], *, dtype: Optional[str] = None, device: Optional[str] = None,
           sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None, distribution: str,
           mean: Any = None, stddev: Any = None, bound: Any = None, minval: Any = None, maxval: Any = None,
           seed: Any = None, algorithm: Optional[str] = None, explicit_state: Any = None,
           auto_update_state: Optional[bool] = None, static: Optional[bool] = None,
           out: Optional[Tensor] = None) -> Tensor:
    """:return: random values of ``dims``: ``distribution`` ``"uniform"`` (``[minval, maxval)``, or
    ``[-bound, bound)``), ``"normal"``, ``"truncated_normal"`` (``mean``, ``stddev``), ``"bernoulli"`` (``mean``:
    the probability of 1)"""
    dtype = dtype or get_default_float_dtype()
    backend = get_selected_backend()
    shape = [_utils.dim_value(d, backend) for d in dims]
    if bound is not None:
        minval, maxval = -bound, bound
    op_seed = seed if isinstance(seed, int) else get_random_seed_for_op()
    if distribution not in ("uniform", "normal", "truncated_normal", "bernoulli"):
        raise FrontendError("random", f"unknown distribution {distribution!r}",
                            expected="uniform, normal, truncated_normal, bernoulli")
    draw = backend.random
    state_name = _call_names.random_state_name() if hasattr(backend, "random_with_state") else None
    if state_name is not None:  # an engine's model: the generator state is a variable of the reference's name
        def draw(*args: Any, **kwargs: Any) -> Any:
            return backend.random_with_state(*args, state_name=state_name, **kwargs)
    if distribution == "bernoulli":
        u = draw(shape, "uniform", "float32", minval=0.0, maxval=1.0, seed=op_seed)
        raw = backend.cast(backend.compare(u, "less", backend.convert(mean, "float32")), dtype)
    else:
        raw = draw(shape, distribution, dtype, minval=minval, maxval=maxval, mean=mean, stddev=stddev, seed=op_seed)
    return _utils.make_tensor("random", dims, dtype, raw, sparse_dim=sparse_dim, feature_dim=feature_dim)


def random_uniform(dims: Sequence[Dim], *, dtype: Optional[str] = None, device: Optional[str] = None,
                   sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None, minval: Any = 0,
                   maxval: Any = 1, seed: Any = None) -> Tensor:
    """:return: uniform in ``[minval, maxval)``"""
    return random(dims=dims, dtype=dtype, sparse_dim=sparse_dim, feature_dim=feature_dim, distribution="uniform",
                  minval=minval, maxval=maxval, seed=seed)


def random_normal(dims: Sequence[Dim], *, dtype: Optional[str] = None, device: Optional[str] = None,
                  sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None, mean: Any = 0.0,
                  stddev: Any = 1.0, seed: Any = None) -> Tensor:
    """:return: normal with ``mean``, ``stddev``"""
    return random(dims=dims, dtype=dtype, sparse_dim=sparse_dim, feature_dim=feature_dim, distribution="normal",
                  mean=mean, stddev=stddev, seed=seed)


def random_truncated_normal(dims: Sequence[Dim], *, dtype: Optional[str] = None, device: Optional[str] = None,
                            sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None, mean: Any = 0.0,
                            stddev: Any = 1.0, seed: Any = None) -> Tensor:
    """:return: normal truncated at 2 stddev"""
    return random(dims=dims, dtype=dtype, sparse_dim=sparse_dim, feature_dim=feature_dim,
                  distribution="truncated_normal", mean=mean, stddev=stddev, seed=seed)
