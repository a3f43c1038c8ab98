"""Reductions over dims: ``rf.reduce`` and ``rf.reduce_sum/mean/max/min/argmax/argmin/logsumexp/logmeanexp/all/any``,
``rf.reduce_out``, ``rf.moments``, ``rf.top_k``. With ``use_mask`` (default), the padded frames of a dynamic axis do
not count (a mean divides by the lengths)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["reduce", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_argmax", "reduce_argmin",
           "reduce_logsumexp", "reduce_logmeanexp", "reduce_all", "reduce_any", "reduce_out", "moments", "top_k",
           "RawTensorTypes", "RunningMean"]

RawTensorTypes = Union[int, float, complex, bool]

_NEUTRAL = {"sum": 0, "mean": 0, "max": float("-inf"), "min": float("inf"), "logsumexp": float("-inf"),
            "all": True, "any": False, "argmax": float("-inf"), "argmin": float("inf")}


def _neutral(mode: str, dtype: str) -> Any:
    value = _NEUTRAL[mode]
    if dtype.startswith(("int", "uint")) and isinstance(value, float):
        import numpy as np
        return int(np.iinfo(dtype).min if value < 0 else np.iinfo(dtype).max)
    return value


def reduce(source: Tensor, *, mode: str, axis: Union[Dim, Sequence[Dim]], use_mask: bool = True) -> Tensor:
    """Reduces ``axis`` (one dim or several) with ``mode`` (sum, mean, max, min, logsumexp, all, any, argmax,
    argmin; argmax/argmin: one dim, int32 result with that dim as sparse dim).

    :return: ``source``'s other dims, in their order
    :raises FrontendError: an unknown mode, a dim not in ``source``
    """
    from returnn.frontend.dims import mask_value
    if mode not in _NEUTRAL:
        raise FrontendError("reduce", f"unknown mode {mode!r}", expected=", ".join(_NEUTRAL))
    call = f"reduce_{mode}"
    axes_dims = _utils.as_dims(axis)
    if mode in ("argmax", "argmin") and len(axes_dims) != 1:
        raise FrontendError(call, "needs exactly one axis", got=_utils.dims_repr(axes_dims))
    _utils.check_dims(call, source, axes_dims)
    if mode in ("all", "any") and source.dtype != "bool":
        raise FrontendError(call, f"needs a bool tensor, {source.name!r} is {source.dtype}")
    x = source
    if use_mask:
        for d in axes_dims:
            if d.need_masking():
                x = mask_value(x, d, _neutral(mode, x.dtype))
    backend = _utils.backend_of(x)
    raw = _utils.aligned_raw(x, x.dims, backend=backend)
    out_dims = [d for d in x.dims if d not in axes_dims]
    axes = [x.dims.index(d) for d in axes_dims]
    if mode == "mean" and use_mask and any(d.need_masking() for d in axes_dims):
        from returnn.frontend.math_ import cast, combine_bc
        summed = _utils.make_tensor(call, out_dims, x.dtype, backend.reduce(raw, "sum", axes))
        return combine_bc(summed, "truediv", cast(count_frames(axes_dims), x.dtype), dim_order=out_dims)
    out = backend.reduce(raw, mode, axes)
    if mode in ("argmax", "argmin"):
        return _utils.make_tensor(call, out_dims, "int32", out, sparse_dim=axes_dims[0])
    return _utils.make_tensor(call, out_dims, "bool" if mode in ("all", "any") else x.dtype, out,
                              sparse_dim=x.sparse_dim if mode in ("max", "min") else None,
                              feature_dim=x.feature_dim)


def count_frames(axes: Sequence[Dim]) -> Tensor:
    """:return: the number of frames within the lengths over ``axes``, per entry of the lengths' other dims (e.g.
    ``[B]`` for a time axis), int32"""
    from returnn.frontend.const import convert_to_tensor
    from returnn.frontend.dims import sequence_mask
    from returnn.frontend.math_ import cast
    static = 1
    for d in axes:
        if d.dimension is not None:
            static *= d.dimension
    dyn = [d for d in axes if d.dimension is None]
    if not dyn:
        return convert_to_tensor(static, dtype="int32")
    mask = cast(sequence_mask(dyn), "int32")
    n = reduce(mask, mode="sum", axis=[d for d in mask.dims if d in axes], use_mask=False)
    return n * static if static != 1 else n


def _reduce_fn(mode: str) -> Any:
    def fn(source: Tensor, *, axis: Union[Dim, Sequence[Dim]], use_mask: bool = True) -> Tensor:
        return reduce(source, mode=mode, axis=axis, use_mask=use_mask)
    fn.__name__ = fn.__qualname__ = f"reduce_{mode}"
    fn.__doc__ = f":func:`reduce` with mode {mode!r}."
    return fn


reduce_sum = _reduce_fn("sum")
reduce_mean = _reduce_fn("mean")
reduce_max = _reduce_fn("max")
reduce_min = _reduce_fn("min")
reduce_argmax = _reduce_fn("argmax")
reduce_argmin = _reduce_fn("argmin")
reduce_logsumexp = _reduce_fn("logsumexp")
reduce_all = _reduce_fn("all")
reduce_any = _reduce_fn("any")


def reduce_logmeanexp(source: Tensor, *, axis: Union[Dim, Sequence[Dim]], use_mask: bool = True) -> Tensor:
    """``log(mean(exp(x)))`` over ``axis`` (``logsumexp - log(num elements)``)."""
    from returnn.frontend.math_ import cast, combine_bc, log
    lse = reduce_logsumexp(source, axis=axis, use_mask=use_mask)
    axes = _utils.as_dims(axis)
    if use_mask:
        n = count_frames(axes)
    else:
        n = 1
        for d in axes:
            n = n * (d.dimension if d.dimension is not None else _utils.dim_value(d))
        if isinstance(n, int):
            import math
            return lse - math.log(n)
        n = _utils.make_tensor("n", [], "int32", n)
    return combine_bc(lse, "sub", log(cast(n, source.dtype)), dim_order=lse.dims)


def reduce_out(source: Tensor, *, mode: str, num_pieces: int, out_dim: Optional[Dim] = None) -> Tensor:
    """Reduces groups of ``num_pieces`` consecutive features (maxout for ``mode="max"``) of the feature dim."""
    from returnn.frontend.array_ import split_dims
    in_dim = source.feature_dim
    if in_dim is None or in_dim.dimension is None or in_dim.dimension % num_pieces:
        raise FrontendError("reduce_out", f"the feature dim {in_dim!r} must be a multiple of {num_pieces}")
    out_dim = out_dim or Dim(in_dim.dimension // num_pieces, name=f"{in_dim.name}:reduce-out")
    pieces = Dim(num_pieces, name="readout-parts")
    x = split_dims(source, axis=in_dim, dims=[out_dim, pieces])
    return reduce(x, mode=mode, axis=pieces)


def moments(x: Tensor, axis: Union[Dim, Sequence[Dim]], *, use_mask: bool = True, correction: int = 0
            ) -> Tuple[Tensor, Tensor]:
    """:return: (mean, variance) over ``axis``"""
    mean = reduce_mean(x, axis=axis, use_mask=use_mask)
    from returnn.frontend.math_ import combine_bc, square
    var = reduce_mean(square(combine_bc(x, "sub", mean, dim_order=x.dims)), axis=axis, use_mask=use_mask)
    return mean, var


def top_k(source: Tensor, *, axis: Union[Dim, Sequence[Dim]], k: Union[int, Tensor, None] = None,
          k_dim: Optional[Dim] = None, sorted: bool = True) -> Tuple[Tensor, Union[Tensor, Sequence[Tensor]], Dim]:
    """The ``k`` largest values over ``axis`` (several axes: over their flattened product).

    :return: (values ``[other dims..., k_dim]``, indices into ``axis`` (sparse dim ``axis``; for ``axis`` a sequence
        of dims, even of one, a list with the indices per axis), ``k_dim``)
    """
    from returnn.frontend.array_ import merge_dims
    axes = _utils.as_dims(axis)
    _utils.check_dims("top_k", source, axes)
    if k_dim is None:
        if k is None:
            raise FrontendError("top_k", "needs k or k_dim")
        k_dim = Dim(k, name="top-k-dim") if isinstance(k, int) else Dim(k, name="top-k-dim")
    x, merged = (source, axes[0]) if len(axes) == 1 else merge_dims(source, dims=axes)
    other = [d for d in x.dims if d != merged]
    backend = _utils.backend_of(x)
    raw = _utils.aligned_raw(x, other + [merged], backend=backend)
    values, indices = backend.top_k(raw, _utils.dim_value(k_dim, backend))
    dims = other + [k_dim]
    out_values = _utils.make_tensor("top_k", dims, x.dtype, values)
    if len(axes) == 1:
        out_idx = _utils.make_tensor("top_k_indices", dims, "int32", indices, sparse_dim=axes[0])
        # a sequence of axes (even of one) gives a list of indices, as the reference (observed)
        return out_values, out_idx if isinstance(axis, Dim) else [out_idx], k_dim
    idx = _utils.make_tensor("top_k_indices", dims, "int32", indices, sparse_dim=merged)
    out_indices = []
    for i, d in enumerate(axes):
        stride = 1
        for d2 in axes[i + 1:]:
            stride *= d2.dimension
        from returnn.frontend.dims import set_sparse_dim
        out_indices.append(set_sparse_dim((idx // stride) % d.dimension if i else idx // stride, d))
    return out_values, out_indices, k_dim


def _make_running_mean() -> type:
    from returnn.frontend.module import Module
    from returnn.frontend.parameter import Parameter

    class _RunningMean(Module):
        """The running mean ``mean = (1 - alpha) * mean + alpha * mean_of_x`` of ``x`` over all dims but
        ``in_dim`` (parameter ``mean``, auxiliary, initially 0), updated in training (``update_only_in_train``).
        ``__call__(x)`` returns the updated mean."""

        def __init__(self, in_dim: Union[Dim, Sequence[Dim]], *, alpha: float, dtype: Optional[str] = None,
                     is_prob_distribution: Optional[bool] = None, update_only_in_train: bool = True):
            super().__init__()
            self.in_dim, self.alpha, self.update_only_in_train = in_dim, alpha, update_only_in_train
            self.shape = _utils.as_dims(in_dim)
            self.mean = Parameter(self.shape, dtype=dtype, auxiliary=True, initial=0.0)

        def __call__(self, x: Tensor) -> Tensor:
            from returnn.frontend.run_ctx import get_run_ctx
            axes = [d for d in x.dims if d not in self.shape]
            x_mean = reduce_mean(x, axis=axes) if axes else x
            if self.update_only_in_train and get_run_ctx().train_flag is False:
                return self.mean
            new = self.mean * (1.0 - self.alpha) + x_mean * self.alpha
            backend = _utils.backend_of(new)
            raw = backend.with_assignments(_utils.aligned_raw(new, self.shape, backend=backend),
                                           [(self.mean.raw_tensor, _utils.aligned_raw(new, self.shape))])
            return _utils.make_tensor("running_mean", self.shape, new.dtype, raw)

    _RunningMean.__name__ = _RunningMean.__qualname__ = "RunningMean"
    return _RunningMean


RunningMean = _make_running_mean()
