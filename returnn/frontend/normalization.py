"""Normalisation: ``rf.LayerNorm``, ``rf.RMSNorm``, ``rf.BatchNorm``, ``rf.GroupNorm``, ``rf.normalize``,
``rf.Normalize``, ``rf.moments``. Parameter names and initial values as the reference (observed):
LayerNorm ``scale`` (1), ``bias`` (0); RMSNorm ``scale``; BatchNorm ``running_mean`` (0), ``running_variance`` (1)
(auxiliary), ``gamma`` (1), ``beta`` (0)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.frontend.reduce import moments, reduce_mean
from returnn.tensor import Dim, Tensor

__all__ = ["LayerNorm", "RMSNorm", "BatchNorm", "GroupNorm", "normalize", "Normalize", "moments"]


def _check(call: str, x: Tensor, dims: Sequence[Dim]) -> None:
    for d in dims:
        if d not in x.dims:
            raise FrontendError(call, f"the input {x.name!r} has no dim {d!r}", got=x.dims)


def normalize(a: Tensor, *, axis: Union[Dim, Sequence[Dim]], epsilon: float = 1e-6) -> Tensor:
    """:return: ``(a - mean) / sqrt(variance + epsilon)`` over ``axis``"""
    from returnn.frontend.math_ import combine_bc, rsqrt
    mean, var = moments(a, axis=axis)
    return combine_bc(combine_bc(a, "sub", mean), "mul", rsqrt(var + epsilon), dim_order=a.dims)


class Normalize(Module):
    """:func:`normalize` with optional ``scale`` (1) and ``bias`` (0) over ``param_dims``."""

    def __init__(self, *, param_dims: Union[Dim, Sequence[Dim]], epsilon: float = 1e-6, scale: bool = True,
                 bias: bool = True):
        super().__init__()
        self.epsilon = epsilon
        dims = _utils.as_dims(param_dims)
        self.scale = Parameter(dims, initial=1.0) if scale else None
        self.bias = Parameter(dims, initial=0.0) if bias else None

    def __call__(self, a: Tensor, *, axis: Union[Dim, Sequence[Dim]]) -> Tensor:
        out = normalize(a, axis=axis, epsilon=self.epsilon)
        if self.scale is not None:
            out = out * self.scale
        if self.bias is not None:
            out = out + self.bias
        return out


class _ScaledNorm(Module):
    """A normalization over ``in_dim`` followed by ``* scale (+ bias)``: the parameters ``scale`` (ones) and, with
    ``with_bias``, ``bias`` (zeros), both of dims ``in_dim``."""

    def __init__(self, in_dim: Union[Dim, Sequence[Dim]], *, eps: float, with_bias: bool):
        super().__init__()
        self.in_dim, self.eps = in_dim, eps
        dims = _utils.as_dims(in_dim)
        self.scale = Parameter(dims, initial=1.0)
        self.bias = Parameter(dims, initial=0.0) if with_bias else None


class LayerNorm(_ScaledNorm):
    """``(x - mean) / sqrt(var + eps) * scale + bias`` over ``in_dim`` (eps 1e-6)."""

    def __init__(self, in_dim: Union[Dim, Sequence[Dim]], *, eps: float = 1e-6, with_bias: bool = True):
        super().__init__(in_dim, eps=eps, with_bias=with_bias)

    def __call__(self, x: Tensor) -> Tensor:
        dims = _utils.as_dims(self.in_dim)
        _check("LayerNorm", x, dims)
        out = normalize(x, axis=dims, epsilon=self.eps) * self.scale
        if self.bias is not None:
            out = out + self.bias
        return _utils.make_tensor("layer_norm", out.dims, out.dtype, out.raw_tensor, feature_dim=x.feature_dim)


class RMSNorm(_ScaledNorm):
    """``x / sqrt(mean(x**2) + eps) * scale (+ bias)`` over ``in_dim`` (eps 1e-6)."""

    def __init__(self, in_dim: Union[Dim, Sequence[Dim]], *, eps: float = 1e-6, with_bias: bool = False):
        super().__init__(in_dim, eps=eps, with_bias=with_bias)

    def __call__(self, x: Tensor) -> Tensor:
        from returnn.frontend.math_ import combine_bc, rsqrt, square
        dims = _utils.as_dims(self.in_dim)
        _check("RMSNorm", x, dims)
        ms = reduce_mean(square(x), axis=dims)
        out = combine_bc(x, "mul", rsqrt(ms + self.eps), dim_order=x.dims) * self.scale
        if self.bias is not None:
            out = out + self.bias
        return _utils.make_tensor("rms_norm", out.dims, out.dtype, out.raw_tensor, feature_dim=x.feature_dim)


class BatchNorm(Module):
    """Batch normalisation over all dims but ``in_dim``: in training (the run context's train flag), with the batch
    statistics (padded frames excluded with ``use_mask``), updating ``running_mean``/``running_variance`` by
    ``momentum``; else with the running statistics. ``(x - mean) / sqrt(var + eps) * gamma + beta``."""

    def __init__(self, in_dim: Dim, *, affine: bool = True, momentum: float = 0.1, eps: float = 1e-3,
                 track_running_stats: bool = True, use_mask: Optional[bool] = None,
                 distributed: Optional[bool] = None):
        super().__init__()
        self.in_dim, self.momentum, self.eps = in_dim, momentum, eps
        self.track_running_stats, self.use_mask = track_running_stats, use_mask
        self.running_mean = self.running_variance = None
        if track_running_stats:
            self.running_mean = Parameter([in_dim], auxiliary=True, initial=0.0)
            self.running_variance = Parameter([in_dim], auxiliary=True, initial=1.0)
        self.gamma = self.beta = None
        if affine:
            self.gamma = Parameter([in_dim], initial=1.0)
            self.beta = Parameter([in_dim], initial=0.0)

    def __call__(self, source: Tensor) -> Tensor:
        from returnn.frontend.cond import cond
        from returnn.frontend.run_ctx import get_run_ctx
        _check("BatchNorm", source, [self.in_dim])
        train = get_run_ctx().train_flag
        if not self.track_running_stats:
            return self._train(source, update=False)
        if train is True:
            return self._train(source, update=True)
        if train is False:
            return self._apply(source, self.running_mean, self.running_variance)
        return cond(train, lambda: self._train(source, update=True),
                    lambda: self._apply(source, self.running_mean, self.running_variance))

    def _train(self, source: Tensor, *, update: bool) -> Tensor:
        axes = [d for d in source.dims if d != self.in_dim]
        mean, var = moments(source, axis=axes, use_mask=self.use_mask is not False)
        out = self._apply(source, mean, var)
        if not update:
            return out
        m = self.momentum
        new_mean = self.running_mean * (1.0 - m) + mean * m
        new_var = self.running_variance * (1.0 - m) + var * m
        backend = _utils.backend_of(out)
        raw = backend.with_assignments(out.raw_tensor, [
            (self.running_mean.raw_tensor, _utils.aligned_raw(new_mean, self.running_mean.dims)),
            (self.running_variance.raw_tensor, _utils.aligned_raw(new_var, self.running_variance.dims))])
        return _utils.make_tensor(out.name, out.dims, out.dtype, raw, feature_dim=out.feature_dim)

    def _apply(self, x: Tensor, mean: Tensor, var: Tensor) -> Tensor:
        from returnn.frontend.math_ import combine_bc, rsqrt
        out = combine_bc(combine_bc(x, "sub", mean), "mul", rsqrt(var + self.eps), dim_order=x.dims)
        if self.gamma is not None:
            out = out * self.gamma + self.beta
        return _utils.make_tensor("batch_norm", out.dims, out.dtype, out.raw_tensor, feature_dim=x.feature_dim)


class GroupNorm(Module):
    """Normalisation over groups of ``in_dim``: ``in_dim`` splits into ``num_groups`` (major) times
    ``in_group_dim``; each group is normalised over its own channels (``eps`` 1e-6), then ``scale``, ``bias`` over
    ``in_dim`` (as the reference, observed: the statistics do not span the spatial dims)."""

    def __init__(self, in_dim: Dim, *, num_groups: Any, eps: float = 1e-6, affine: bool = True):
        super().__init__()
        n = num_groups.dimension if isinstance(num_groups, Dim) else num_groups
        if in_dim.dimension % n:
            raise FrontendError("GroupNorm", f"{in_dim!r} is not a multiple of num_groups={n}")
        self.in_dim, self.eps = in_dim, eps
        self.num_groups = num_groups if isinstance(num_groups, Dim) else Dim(n, name="groups")
        self.in_group_dim = Dim(in_dim.dimension // n, name=f"{in_dim.name}/groups")
        self.scale = Parameter([in_dim], initial=1.0) if affine else None
        self.bias = Parameter([in_dim], initial=0.0) if affine else None

    def __call__(self, x: Tensor, *, spatial_dims: Sequence[Dim] = ()) -> Tensor:
        from returnn.frontend.array_ import merge_dims, split_dims
        _check("GroupNorm", x, [self.in_dim])
        y = split_dims(x, axis=self.in_dim, dims=[self.num_groups, self.in_group_dim])
        y = normalize(y, axis=[self.in_group_dim] + list(spatial_dims), epsilon=self.eps)
        y, _ = merge_dims(y, dims=[self.num_groups, self.in_group_dim], out_dim=self.in_dim)
        if self.scale is not None:
            y = y * self.scale + self.bias
        return y
