"""Loops: ``rf.while_loop`` (a state updated while a condition holds) and ``rf.scan`` (over the frames of a dim, or
while a per-sequence condition holds, stacking per-step outputs). The state is any nest (tuples, lists, dicts,
``rf.State``) of Tensors and ``TensorArray`` s; each Tensor keeps its dims across iterations."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, TypeVar, Union

from returnn.errors import FrontendError
from returnn.frontend import _nest, _utils
from returnn.frontend._backend import Backend, get_selected_backend
from returnn.frontend.tensor_array import TensorArray
from returnn.tensor import Dim, Tensor

__all__ = ["while_loop", "scan"]

S = TypeVar("S")


def _is_loop_var(x: Any) -> bool:
    return isinstance(x, (Tensor, TensorArray))


def _to_raw(x: Any, template: Any, backend: Backend) -> Any:
    if isinstance(x, TensorArray):
        return x.raw
    if isinstance(x, Tensor):
        if set(x.dims) != set(template.dims) or len(x.dims) != len(template.dims):
            raise FrontendError("while_loop", f"a state tensor changed its dims: {template.dims} → {x.dims}")
        raw = _utils.aligned_raw(x, template.dims, backend=backend)
        if x.dtype != template.dtype:
            raise FrontendError("while_loop", f"a state tensor changed its dtype: {template.dtype} → {x.dtype}")
        return raw
    raise FrontendError("while_loop", "the state may only hold Tensors and TensorArrays here", got=x)


def _from_raw(raw: Any, template: Any) -> Any:
    if isinstance(template, TensorArray):
        return template.with_raw(raw)
    return _utils.make_tensor(template.name, template.dims, template.dtype, raw, sparse_dim=template.sparse_dim,
                              feature_dim=template.feature_dim)


def while_loop(cond: Callable[[S], Union[bool, Tensor]], body: Callable[[S], S], initial: S) -> S:
    """:return: the state after ``state = body(state)`` as long as ``cond(state)`` (a bool scalar Tensor)

    :raises FrontendError: the state's structure or a tensor's dims change in ``body``
    """
    flat = _nest.flatten(initial)
    if any(isinstance(x, (int, float)) and not isinstance(x, bool) for x in flat):  # numbers become loop state too
        from returnn.frontend.const import convert_to_tensor
        flat = [convert_to_tensor(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else x for x in flat]
        initial = _nest.unflatten_as(initial, flat)
    idx = [i for i, x in enumerate(flat) if _is_loop_var(x)]
    templates = [flat[i] for i in idx]
    backend = _utils.backend_of(*[x for x in templates if isinstance(x, Tensor)]) if any(
        isinstance(x, Tensor) and x.raw_tensor is not None for x in templates) else get_selected_backend()

    def _state(raws: Sequence[Any]) -> Any:
        new_flat = list(flat)
        for i, t, r in zip(idx, templates, raws):
            new_flat[i] = _from_raw(r, t)
        return _nest.unflatten_as(initial, new_flat)

    def _cond(*raws: Any) -> Any:
        c = cond(_state(raws))
        return c.raw_tensor if isinstance(c, Tensor) else backend.convert(bool(c), "bool")

    def _body(*raws: Any) -> Any:
        new = _nest.flatten(body(_state(raws)))
        if len(new) != len(flat):
            raise FrontendError("while_loop", f"body changed the state's structure ({len(flat)} → {len(new)} values)")
        return [_to_raw(new[i], t, backend) for i, t in zip(idx, templates)]

    raws = [_to_raw(t, t, backend) for t in templates]
    invariants = [None if isinstance(t, TensorArray) else [d.dimension for d in t.dims] for t in templates]
    out = backend.while_loop(_cond, _body, raws, shape_invariants=invariants)
    if not isinstance(out, (list, tuple)):
        out = [out]
    return _state(list(out))


def scan(*, spatial_dim: Optional[Dim] = None, cond_dims: Optional[Sequence[Dim]] = None,
         cond_before_body: bool = True, initial: Any = None, xs: Any = None, ys: Any = None,
         cond: Optional[Callable[[Any, Any], Tensor]] = None, body: Callable[[Any, Any], Tuple[Any, Any]],
         max_seq_len: Optional[Union[int, Tensor]] = None, return_tensor_arrays: bool = False
         ) -> Tuple[Any, Any, Dim]:
    """``(y_t, state) = body(x_t, state)`` for each step.

    With ``spatial_dim``: one step per frame of ``spatial_dim`` (``x_t``: ``xs`` at that frame); beyond a sequence's
    length (dynamic ``spatial_dim``) its state stays. With ``cond`` (no ``spatial_dim``): steps while
    ``cond(x, state)`` (bool over ``cond_dims``, e.g. ``[batch]``) holds for some entry, at most ``max_seq_len``;
    the states of ended entries stay; the new out dim's lengths are the steps per entry.

    :param ys: templates (Tensors without raw tensors) of the per-step outputs
    :return: (``ys`` stacked along the out dim (first), or as TensorArrays; the final state; the out dim)
    """
    if spatial_dim is None and cond is None:
        raise FrontendError("scan", "needs spatial_dim or cond")
    backend = get_selected_backend()
    y_tas = _nest.map_structure(lambda t: TensorArray(t), ys) if ys is not None else None
    if spatial_dim is not None:
        n = _utils.dim_value(spatial_dim, backend)
        n = n if isinstance(n, int) else _utils.make_tensor("n", [], "int32", backend.cast(n, "int32"))
        i0 = _utils.make_tensor("i", [], "int32", backend.convert(0, "int32"))

        def _cond(s: Any) -> Any:
            return s[0] < n

        def _body(s: Any) -> Any:
            i, state, tas = s
            x_t = _nest.map_structure(lambda x: _frame(x, spatial_dim, i), xs) if xs is not None else None
            y_t, new_state = body(x_t, state)
            if spatial_dim.need_masking():
                active = spatial_dim.dyn_size_ext > i
                new_state = _masked_state(active, new_state, state)
            tas = _nest.map_structure(lambda ta, y: ta.push_back(y), tas, y_t) if tas is not None else None
            return i + 1, new_state, tas

        _, final, tas = while_loop(_cond, _body, (i0, initial, y_tas))
        out_dim = spatial_dim
    else:
        final, tas, out_dim = _scan_cond(cond, body, xs, initial, y_tas, cond_dims, cond_before_body, max_seq_len,
                                         backend)
    if tas is None:
        return None, final, out_dim
    if return_tensor_arrays:
        return tas, final, out_dim
    return _nest.map_structure(lambda ta: ta.stack(axis=out_dim), tas), final, out_dim


def _frame(x: Tensor, dim: Dim, i: Tensor) -> Tensor:
    from returnn.frontend.array_ import gather
    return gather(x, indices=i, axis=dim)


def _masked_state(active: Tensor, new: Any, old: Any) -> Any:
    """:return: ``new`` where ``active``, else ``old``; a state tensor without all of ``active``'s dims (e.g. a
    scalar step counter, shared by all sequences) is not per sequence: it takes ``new`` and keeps its dims"""
    from returnn.frontend.array_ import where

    def _sel(a: Any, b: Any) -> Any:
        if isinstance(a, Tensor) and isinstance(b, Tensor) and all(d in b.dims for d in active.dims):
            return where(active, a, b, allow_broadcast_all_sources=True, dim_order=b.dims)
        return a
    return _nest.map_structure(_sel, new, old)


def _scan_cond(cond: Callable, body: Callable, xs: Any, initial: Any, y_tas: Any, cond_dims: Any,
               cond_before_body: bool, max_seq_len: Any, backend: Backend) -> Tuple[Any, Any, Dim]:
    from returnn.frontend.math_ import cast, logical_and
    from returnn.frontend.reduce import reduce_any
    active0 = cond(xs, initial) if cond_before_body else None
    if active0 is None:
        from returnn.frontend.const import full
        active0 = full(dims=list(cond_dims or []), fill_value=True)
    lens0 = cast(active0, "int32") * 0
    i0 = _utils.make_tensor("i", [], "int32", backend.convert(0, "int32"))

    def _cond(s: Any) -> Any:
        i, active, _, _, _ = s
        c = reduce_any(active, axis=list(active.dims)) if active.dims else active
        if max_seq_len is not None:
            c = logical_and(c, i < max_seq_len)
        return c

    def _body(s: Any) -> Any:
        i, active, lens, state, tas = s
        y_t, new_state = body(xs, state)
        new_state = _masked_state(active, new_state, state)
        tas = _nest.map_structure(lambda ta, y: ta.push_back(y), tas, y_t) if tas is not None else None
        lens = lens + cast(active, "int32")
        active = logical_and(active, cond(xs, new_state))
        return i + 1, active, lens, new_state, tas

    _, _, lens, final, tas = while_loop(_cond, _body, (i0, active0, lens0, initial, y_tas))
    out_dim = Dim(None, name="scan")
    out_dim.dyn_size_ext = lens
    return final, tas, out_dim
