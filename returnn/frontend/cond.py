"""``rf.cond``: a branch chosen by a bool scalar (Python bool: just that branch; a Tensor: the backend's
conditional, both branches built, each returning the same structure of Tensors with the same dims)."""

from __future__ import annotations

from typing import Any, Callable, List, TypeVar

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Tensor

__all__ = ["cond"]

T = TypeVar("T")


def cond(pred: Any, true_fn: Callable[[], T], false_fn: Callable[[], T]) -> T:
    """:return: ``true_fn()`` if ``pred`` else ``false_fn()``

    :raises FrontendError: ``pred`` is not a bool scalar, the branches return different structures or dims
    """
    if isinstance(pred, bool):
        return true_fn() if pred else false_fn()
    if isinstance(pred, Tensor):
        if pred.dims or pred.dtype != "bool":
            raise FrontendError("cond", f"pred must be a bool scalar, got {pred!r}")
        backend, raw_pred = _utils.backend_of(pred), pred.raw_tensor
    else:
        from returnn.frontend._backend import get_backend_by_raw
        backend, raw_pred = get_backend_by_raw(pred), pred
    if backend.name == "numpy":
        return true_fn() if bool(raw_pred) else false_fn()
    from returnn.frontend import _nest
    templates: List[Any] = []

    def _branch(fn: Callable[[], Any], which: str) -> Callable[[], Any]:
        def run() -> Any:
            out = fn()
            flat = _nest.flatten(out)
            if templates:  # the false branch: its tensors' axes in the order of the true branch's
                _check_same(templates[0][2], flat)
                flat = [_utils.make_tensor(x.name, t.dims, x.dtype, _utils.aligned_raw(x, t.dims, backend=backend))
                        if isinstance(x, Tensor) else x for x, t in zip(flat, templates[0][2])]
            templates.append((which, out, flat))
            raws = [x.raw_tensor if isinstance(x, Tensor) else x for x in flat]
            return raws if raws else [backend.convert(0, "int32")]
        return run

    from returnn.frontend._call_names import cond_scope
    with cond_scope():  # names of call sites inside (random states), as the reference's net-dict layers
        raws = backend.cond(raw_pred, _branch(true_fn, "true"), _branch(false_fn, "false"))
    (_, true_out, true_flat), (_, _, false_flat) = templates[0], templates[1]
    if not true_flat:
        return true_out
    new_flat = [_utils.make_tensor(x.name, x.dims, x.dtype, r, sparse_dim=x.sparse_dim, feature_dim=x.feature_dim)
                if isinstance(x, Tensor) else r for x, r in zip(true_flat, raws)]
    return _nest.unflatten_as(true_out, new_flat)


def _check_same(a: List[Any], b: List[Any]) -> None:
    if len(a) != len(b):
        raise FrontendError("cond", f"the branches return different structures ({len(a)} vs {len(b)} values)")
    for x, y in zip(a, b):
        if isinstance(x, Tensor) and isinstance(y, Tensor) and set(x.dims) != set(y.dims):
            raise FrontendError("cond", f"the branches return different dims: {x.dims} vs {y.dims}")
