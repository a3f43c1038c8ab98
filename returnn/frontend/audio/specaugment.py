"""SpecAugment (``rf.audio.specaugment``): random masks over time and over the features, in training only; the
building blocks ``rf.audio.random_mask`` (a random number of masks at distinct random positions) and
``rf.audio.mask`` (one mask per entry at given positions)."""

from __future__ import annotations

from typing import Any, Collection, List, Optional, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["specaugment", "random_mask", "mask"]


def specaugment(x: Tensor, *, spatial_dim: Dim, feature_dim: Optional[Dim] = None,
                global_train_step_dependent: bool = True, only_on_train: bool = True,
                max_consecutive_spatial_dims: Union[int, Tensor] = 20, max_consecutive_feature_dims: Optional[int] = None,
                num_spatial_mask_factor: int = 100, num_masks_per_seq: Optional[bool] = None,
                steps: Tuple[int, int, int] = (0, 1000, 2000)) -> Tensor:
    """SpecAugment masking (no time warping): entries of ``x`` inside the masks become 0.

    Per sequence, with ``s1 = step >= steps[1]`` and ``s2 = step >= steps[2]`` (0/1; the run context's step; both
    1 without ``global_train_step_dependent``), and nothing masked before ``steps[0]``:

    * time masks: between ``s1 + s2`` and ``max(T // num_spatial_mask_factor, 2) * (1 + s1 + 2 * s2)`` masks, each
      ``1 .. max_consecutive_spatial_dims`` frames wide, over all features; ``T`` is the sequence's length with
      ``num_masks_per_seq``, else the longest length in the batch;
    * feature masks: between ``s1 + s2`` and ``2 + s1 + 2 * s2`` masks, each ``1 .. max_consecutive_feature_dims``
      (default ``feature_dim // 5``) features wide, over all frames.

    :param x: float, with ``spatial_dim`` and ``feature_dim`` (default ``x.feature_dim``)
    :param only_on_train: mask only when the run context's train flag is set (a bool, or a bool Tensor: then
        ``rf.cond``), else return ``x`` itself
    :return: same dims and dtype as ``x``
    :raises FrontendError: a dim not in ``x``, no feature dim
    """
    from returnn.frontend.run_ctx import get_run_ctx
    call = "audio.specaugment"
    if feature_dim is None:
        feature_dim = x.feature_dim
        if feature_dim is None:
            raise FrontendError(call, f"{x.name!r} has no feature dim; pass feature_dim", got=x)
    _utils.check_dims(call, x, [spatial_dim, feature_dim])
    if max_consecutive_feature_dims is None:
        max_consecutive_feature_dims = max(feature_dim.dimension // 5, 1)
    ctx = get_run_ctx()
    train = ctx.train_flag if only_on_train else True
    if train is False:
        return x

    def _masked() -> Tensor:
        if global_train_step_dependent:
            s0, s1, s2 = (_step_ge(ctx.step, s) for s in steps)
        else:
            s0, s1, s2 = 1, 1, 1
        if isinstance(s0, int) and s0 == 0:
            return x
        if num_masks_per_seq:
            length = spatial_dim.dyn_size_ext if spatial_dim.dimension is None else spatial_dim.dimension
        else:
            length = _dim_size(spatial_dim)
        y = random_mask(x, mask_axis=spatial_dim, broadcast_axis=feature_dim, min_num=_add(s1, s2),
                        max_num=_mul(_max2(_fdiv(length, num_spatial_mask_factor)), _add(1, _add(s1, _mul(s2, 2)))),
                        max_dims=max_consecutive_spatial_dims)
        y = random_mask(y, mask_axis=feature_dim, broadcast_axis=spatial_dim, min_num=_add(s1, s2),
                        max_num=_add(2, _add(s1, _mul(s2, 2))), max_dims=max_consecutive_feature_dims)
        if isinstance(s0, int):
            return y
        from returnn.frontend.array_ import where
        from returnn.frontend.math_ import compare_bc
        return where(compare_bc(s0, "not_equal", 0), y, x, allow_broadcast_all_sources=True, dim_order=x.dims)

    if train is True:
        return _masked()
    from returnn.frontend.cond import cond
    return cond(train, _masked, lambda: x)


def random_mask(x: Tensor, *, mask_axis: Dim, broadcast_axis: Union[Dim, Collection[Dim]],
                min_num: Union[int, Tensor], max_num: Union[int, Tensor], max_dims: Union[int, Tensor],
                mask_value: Union[int, float, Tensor] = 0.0, max_num_bound: Optional[int] = None) -> Tensor:
    """Sets ``mask_value`` in a random number of masks along ``mask_axis``.

    For each entry of the other dims (without ``mask_axis`` and ``broadcast_axis``: the masks are the same along
    those), a number of masks is drawn uniformly from ``min_num .. max_num`` (inclusive; Tensors may vary per
    entry); the masks start at distinct random positions within the entry's length of ``mask_axis`` and are
    ``1 .. max_dims`` wide each (uniform; cut at the end of ``mask_axis``).

    :param max_num_bound: a static upper bound of ``max_num`` (default: ``max_num`` itself, the maximum over the
        entries for a Tensor), at most the size of ``mask_axis``
    :return: same dims and dtype as ``x``
    """
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import cast, compare_bc, floor, log, minimum
    from returnn.frontend.rand import random_uniform
    from returnn.frontend.reduce import reduce_max, top_k
    call = "audio.random_mask"
    bc = _utils.as_dims(broadcast_axis)
    _utils.check_dims(call, x, [mask_axis] + bc)
    batch = [d for d in x.dims if d != mask_axis and d not in bc]
    _utils.register_dim_values(x)
    for v in (min_num, max_num, max_dims):
        if isinstance(v, Tensor):
            _check_sub_dims(call, v, batch)
    if max_num_bound is not None:
        k: Any = max_num_bound
    elif isinstance(max_num, Tensor):
        k = reduce_max(max_num, axis=max_num.dims) if max_num.dims else max_num
    else:
        k = max_num
    if isinstance(k, int):
        if mask_axis.dimension is not None:
            k = min(k, mask_axis.dimension)
        if k <= 0:
            return x
    else:
        k = minimum(k, _dim_size(mask_axis))
    u = random_uniform(batch, dtype="float32")
    span = _add(_sub(max_num, min_num), 1)
    num = minimum(cast(floor(u * (cast(span, "float32") if isinstance(span, Tensor) else float(span))), "int32")
                  + min_num, max_num)
    # distinct positions: top k of Gumbel noise over the frames inside the length
    g = random_uniform(batch + [mask_axis], dtype="float32", minval=1e-6, maxval=1.0)
    scores = -log(-log(g))
    if mask_axis.need_masking():
        from returnn.frontend.dims import mask_value as mask_value_
        scores = mask_value_(scores, mask_axis, -1e30)
    _, pos, k_dim = top_k(scores, axis=mask_axis, k=k)
    covered = _covered(mask_axis, pos, max_dims) & compare_bc(range_over_dim(k_dim), "less", num)
    return _apply_mask(x, covered, mask_value)


def mask(x: Tensor, *, mask_axis: Dim, pos: Tensor, max_amount: Union[int, Tensor],
         mask_value: Union[int, float, Tensor] = 0.0) -> Tensor:
    """Sets ``mask_value`` in ``[pos, pos + amount)`` along ``mask_axis`` (cut at its end), ``amount`` drawn
    uniformly from ``1 .. max_amount`` for each entry of ``pos``.

    :param pos: int positions into ``mask_axis``; its dims that ``x`` lacks (e.g. a dim over several masks) are
        reduced: an entry is masked if any of the masks covers it
    :return: same dims and dtype as ``x``
    """
    _utils.check_dims("audio.mask", x, [mask_axis])
    _utils.register_dim_values(x)
    _utils.register_dim_values(pos)
    return _apply_mask(x, _covered(mask_axis, pos, max_amount), mask_value)


def _covered(mask_axis: Dim, pos: Tensor, max_amount: Union[int, Tensor]) -> Tensor:
    """:return: bool ``[pos dims..., mask_axis]``: inside ``[pos, pos + amount)``, amount uniform in
    ``1 .. max_amount``"""
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import cast, floor
    from returnn.frontend.rand import random_uniform
    u = random_uniform(list(pos.dims), dtype="float32")
    amount = cast(floor(u * (cast(max_amount, "float32") if isinstance(max_amount, Tensor) else
                             float(max_amount))), "int32") + 1
    idx = range_over_dim(mask_axis)
    pos = cast(pos, "int32")
    from returnn.frontend.math_ import compare_bc
    return compare_bc(idx, "greater_equal", pos) & compare_bc(idx, "less", pos + amount)


def _apply_mask(x: Tensor, covered: Tensor, mask_value: Any) -> Tensor:
    """:return: ``mask_value`` where ``covered`` (any over its dims that ``x`` lacks), else ``x``"""
    from returnn.frontend.array_ import where
    from returnn.frontend.reduce import reduce_any
    extra: List[Dim] = [d for d in covered.dims if d not in x.dims]
    if extra:
        covered = reduce_any(covered, axis=extra)
    if not isinstance(mask_value, Tensor) and x.dtype.startswith("float"):
        mask_value = float(mask_value)
    return where(covered, mask_value, x, allow_broadcast_all_sources=True, dim_order=x.dims)


def _check_sub_dims(call: str, v: Tensor, allowed: List[Dim]) -> None:
    for d in v.dims:
        if d not in allowed:
            raise FrontendError(call, f"{v.name!r} has dim {d!r}, which the masks cannot vary over",
                                expected=f"dims among {_utils.dims_repr(allowed)}", got=v)


def _dim_size(dim: Dim) -> Union[int, Tensor]:
    """:return: the size of ``dim`` (static int, or an int32 scalar Tensor: the longest length)"""
    if dim.dimension is not None:
        return dim.dimension
    from returnn.frontend.reduce import reduce_max
    lens = dim.dyn_size_ext
    return reduce_max(lens, axis=lens.dims) if lens.dims else lens


def _step_ge(step: Any, threshold: int) -> Union[int, Tensor]:
    """:return: 1 if ``step >= threshold`` else 0, an int for an int step, else an int32 Tensor"""
    if isinstance(step, (int, float)):
        return int(step >= threshold)
    from returnn.frontend.math_ import cast
    t = step if isinstance(step, Tensor) else _utils.to_tensor("audio.specaugment", step)
    return cast(t >= threshold, "int32")


def _add(a: Any, b: Any) -> Any:
    return a + b if isinstance(a, Tensor) or not isinstance(b, Tensor) else b + a


def _sub(a: Any, b: Any) -> Any:
    return a - b if isinstance(a, Tensor) or not isinstance(b, Tensor) else -b + a


def _mul(a: Any, b: Any) -> Any:
    return a * b if isinstance(a, Tensor) or not isinstance(b, Tensor) else b * a


def _fdiv(a: Any, b: int) -> Any:
    return a // b


def _max2(a: Any) -> Any:
    if isinstance(a, Tensor):
        from returnn.frontend.math_ import maximum
        return maximum(a, 2)
    return max(a, 2)
