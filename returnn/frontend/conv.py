"""Convolution and pooling: ``rf.Conv1d``/``rf.Conv2d``/``rf.Conv3d``, ``rf.conv``, ``rf.pool``/``rf.max_pool1d``/
``rf.pool1d``/``rf.pool2d``, ``rf.make_conv_out_spatial_dims``.

The filter is ``[out_dim, in_dim // groups, filter dims...]``; the bias ``[out_dim]``. Padded frames of a dynamic
input dim are set to 0 before the convolution. Out spatial dims: with ``padding="same"`` and stride 1 the input dim
itself; else ``ceil((size - (filter - 1) * dilation) / stride)`` (valid) or ``ceil(size / stride)`` (same).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend import init as _init
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.tensor import Dim, Tensor

__all__ = ["Conv1d", "Conv2d", "Conv3d", "conv", "make_conv_out_spatial_dims", "calc_conv_out_length", "pool",
           "max_pool", "max_pool1d", "pool1d", "pool2d", "pool3d"]


def _tuple(call: str, value: Any, n: int, default: int) -> List[int]:
    if value is None:
        return [default] * n
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise FrontendError(call, f"expected {n} values, got {value}")
    return value


def calc_conv_out_length(in_len: Any, *, filter_size: int, stride: int, padding: str, dilation_rate: int = 1) -> Any:
    """:return: the number of output frames for ``in_len`` input frames (int or raw)"""
    if padding == "valid":
        in_len = in_len - (filter_size - 1) * dilation_rate
    if stride == 1:
        return in_len
    return -((-in_len) // stride)


def make_conv_out_spatial_dims(in_spatial_dims: Sequence[Dim], *, filter_size: Union[int, Sequence[int]],
                               padding: str, strides: Union[int, Sequence[int]] = 1,
                               dilation_rate: Union[int, Sequence[int]] = 1, description_prefix: Optional[str] = None
                               ) -> List[Dim]:
    """:return: the out spatial dims (see the module doc)"""
    n = len(in_spatial_dims)
    fs = _tuple("make_conv_out_spatial_dims", filter_size, n, 1)
    st = _tuple("make_conv_out_spatial_dims", strides, n, 1)
    dl = _tuple("make_conv_out_spatial_dims", dilation_rate, n, 1)
    padding = padding.lower()
    if padding not in ("same", "valid"):
        raise FrontendError("conv", f"unknown padding {padding!r}", expected="same, valid")
    out = []
    for d, f, s, r in zip(in_spatial_dims, fs, st, dl):
        o = d
        if padding == "valid" and (f - 1) * r:
            o = o.sub_right((f - 1) * r)
        if s != 1:
            o = o.ceildiv_right(s)
        out.append(o)
    return out


def conv(source: Tensor, *, in_dim: Dim, out_dim: Dim, in_spatial_dims: Sequence[Dim], out_spatial_dims: Any = None,
         filter: Tensor, filter_size: Sequence[Dim], padding: str, strides: Any = None, dilation_rate: Any = None,
         groups: Optional[int] = None, bias: Optional[Tensor] = None, use_mask: Optional[bool] = None
         ) -> Tuple[Tensor, Sequence[Dim]]:
    """Convolution of ``source`` over ``in_spatial_dims`` with ``filter`` ``[out_dim, in_dim // groups,
    filter_size...]``. :return: (result: the other dims, out spatial dims, ``out_dim``; the out spatial dims)

    :param use_mask: zero the padded frames of dynamic spatial dims first; None: as the reference, only from
        ``behavior_version`` 23 on (observed: before, the padded frames' values reach the last valid frames)
    """
    from returnn.frontend.array_ import merge_dims, split_dims
    from returnn.frontend.dims import mask_value
    in_spatial_dims = list(in_spatial_dims)
    _utils.check_dims("conv", source, list(in_spatial_dims) + [in_dim])
    n = len(in_spatial_dims)
    st, dl = _tuple("conv", strides, n, 1), _tuple("conv", dilation_rate, n, 1)
    groups = groups or 1
    fs = [d.dimension for d in filter_size]
    if out_spatial_dims is None:
        out_spatial_dims = make_conv_out_spatial_dims(in_spatial_dims, filter_size=fs, padding=padding, strides=st,
                                                      dilation_rate=dl)
    if use_mask is None:
        from returnn.util.behavior_version import BehaviorVersion
        use_mask = BehaviorVersion.get() >= 23
    for d in in_spatial_dims:
        if use_mask and d.need_masking():
            source = mask_value(source, d, 0)
    batch = [d for d in source.dims if d not in in_spatial_dims and d != in_dim]
    x, bdim = (source, batch[0]) if len(batch) == 1 else merge_dims(source, dims=batch) if batch else (source, None)
    backend = _utils.backend_of(x, filter)
    order = ([bdim] if bdim is not None else []) + in_spatial_dims + [in_dim]
    raw = _utils.aligned_raw(x, order, backend=backend)
    if bdim is None:
        raw = backend.expand_dims(raw, 0)
    f_in = filter.dims[1] if len(filter.dims) > 1 else in_dim
    raw_f = _utils.aligned_raw(filter, list(filter_size) + [f_in, out_dim], backend=backend)
    out_raw = backend.conv(raw, raw_f, n_spatial=n, padding=padding, strides=st, dilation_rate=dl, groups=groups)
    if bdim is None:
        out_raw = backend.reshape(out_raw, backend.shape_of(out_raw)[1:])
    out_dims = ([bdim] if bdim is not None else []) + list(out_spatial_dims) + [out_dim]
    out = _utils.make_tensor("conv", out_dims, source.dtype, out_raw, feature_dim=out_dim)
    if bias is not None:
        out = out + bias
    if bdim is not None and len(batch) > 1:
        out = split_dims(out, axis=bdim, dims=batch)
    return _utils.make_tensor("conv", out.dims, out.dtype, out.raw_tensor, feature_dim=out_dim), out_spatial_dims


class _ConvNd(Module):
    nd = 1

    def __init__(self, in_dim: Dim, out_dim: Dim, filter_size: Any, *, padding: str, strides: Any = None,
                 dilation_rate: Any = None, groups: Optional[int] = None, with_bias: bool = True):
        super().__init__()
        call = type(self).__name__
        if not isinstance(in_dim, Dim) or not isinstance(out_dim, Dim):
            raise FrontendError(call, "in_dim and out_dim must be Dims", got=(in_dim, out_dim))
        if isinstance(filter_size, (int, Dim)):
            filter_size = [filter_size] * self.nd
        if len(filter_size) != self.nd:
            raise FrontendError(call, f"expected {self.nd} filter sizes, got {filter_size}")
        self.filter_size = [d if isinstance(d, Dim) else Dim(d, name=f"filter-dim{i}")
                            for i, d in enumerate(filter_size)]
        if padding.lower() not in ("same", "valid"):
            raise FrontendError(call, f"unknown padding {padding!r}", expected="same, valid")
        self.in_dim, self.out_dim, self.padding = in_dim, out_dim, padding.lower()
        self.strides, self.dilation_rate, self.groups, self.with_bias = strides, dilation_rate, groups, with_bias
        groups = groups or 1
        if in_dim.dimension % groups or out_dim.dimension % groups:
            raise FrontendError(call, f"in_dim {in_dim!r} and out_dim {out_dim!r} must be multiples of groups={groups}")
        f_in = in_dim if groups == 1 else in_dim // groups
        self.filter = Parameter([out_dim, f_in] + self.filter_size)
        self.filter.initial = _init.Glorot()
        self.bias = None
        if with_bias:
            self.bias = Parameter([out_dim])
            self.bias.initial = 0.0

    def _conv(self, source: Tensor, in_spatial_dims: Sequence[Dim], out_spatial_dims: Any) -> Tuple[Tensor, Any]:
        if self.in_dim not in source.dims:
            raise FrontendError(type(self).__name__, f"the input {source.name!r} has no dim {self.in_dim!r}",
                                got=source.dims)
        return conv(source, in_dim=self.in_dim, out_dim=self.out_dim, in_spatial_dims=in_spatial_dims,
                    out_spatial_dims=out_spatial_dims, filter=self.filter, filter_size=self.filter_size,
                    padding=self.padding, strides=self.strides, dilation_rate=self.dilation_rate, groups=self.groups,
                    bias=self.bias)


class Conv1d(_ConvNd):
    """1D convolution. ``__call__(source, *, in_spatial_dim, out_spatial_dim=None) -> (out, out_spatial_dim)``."""

    nd = 1

    def __call__(self, source: Tensor, *, in_spatial_dim: Dim, out_spatial_dim: Optional[Dim] = None
                 ) -> Tuple[Tensor, Dim]:
        out, dims = self._conv(source, [in_spatial_dim], [out_spatial_dim] if out_spatial_dim else None)
        return out, dims[0]


class Conv2d(_ConvNd):
    """2D convolution. ``__call__(source, *, in_spatial_dims, out_spatial_dims=None) -> (out, out_spatial_dims)``."""

    nd = 2

    def __call__(self, source: Tensor, *, in_spatial_dims: Sequence[Dim],
                 out_spatial_dims: Optional[Sequence[Dim]] = None) -> Tuple[Tensor, Sequence[Dim]]:
        return self._conv(source, in_spatial_dims, out_spatial_dims)


class Conv3d(Conv2d):
    """3D convolution (as :class:`Conv2d` with three spatial dims)."""

    nd = 3


def pool(source: Tensor, *, mode: str, pool_size: Union[int, Sequence[int]], padding: str = "valid",
         dilation_rate: Any = 1, strides: Any = None, in_spatial_dims: Sequence[Dim],
         out_spatial_dims: Optional[Sequence[Dim]] = None) -> Tuple[Tensor, Sequence[Dim]]:
    """Max or average pooling over ``in_spatial_dims`` (strides default: the pool size).

    :return: (result with the out spatial dims in place, the out spatial dims)
    """
    from returnn.frontend.array_ import merge_dims, split_dims
    in_spatial_dims = list(in_spatial_dims)
    n = len(in_spatial_dims)
    ps = _tuple("pool", pool_size, n, 1)
    st = _tuple("pool", strides if strides is not None else ps, n, 1)
    dl = _tuple("pool", dilation_rate, n, 1)
    if mode not in ("max", "avg"):
        raise FrontendError("pool", f"unknown mode {mode!r}", expected="max, avg")
    _utils.check_dims("pool", source, in_spatial_dims)
    if out_spatial_dims is None:
        out_spatial_dims = make_conv_out_spatial_dims(in_spatial_dims, filter_size=ps, padding=padding, strides=st,
                                                      dilation_rate=dl)
    # padded frames are pooled as they are, without masking (as the reference's TF backend, observed: a max pool
    # window that reaches into the padding takes its values)
    rest = [d for d in source.dims if d not in in_spatial_dims]
    feat = rest[-1:] if rest and rest[-1].dimension is not None else []
    batch = [d for d in rest if d not in feat]
    x, bdim = (source, batch[0]) if len(batch) == 1 else merge_dims(source, dims=batch) if batch else (source, None)
    backend = _utils.backend_of(x)
    order = ([bdim] if bdim else []) + in_spatial_dims + feat
    raw = _utils.aligned_raw(x, order, backend=backend)
    if bdim is None:
        raw = backend.expand_dims(raw, 0)
    if not feat:
        raw = backend.expand_dims(raw, n + 1)
    out = backend.pool(raw, mode=mode, pool_size=ps, padding=padding, strides=st, dilation_rate=dl)
    shape = backend.shape_of(out)
    keep = ([shape[0]] if bdim else []) + shape[1:n + 1] + ([shape[-1]] if feat else [])
    out = backend.reshape(out, keep)
    res = _utils.make_tensor("pool", ([bdim] if bdim else []) + list(out_spatial_dims) + feat, source.dtype, out)
    if bdim is not None and len(batch) > 1:
        res = split_dims(res, axis=bdim, dims=batch)
    return res, out_spatial_dims


def max_pool(source: Tensor, **kwargs: Any) -> Tuple[Tensor, Sequence[Dim]]:
    """:func:`pool` with ``mode="max"``."""
    return pool(source, mode="max", **kwargs)


def pool1d(source: Tensor, *, mode: str, pool_size: int, padding: str = "valid", dilation_rate: int = 1,
           strides: Optional[int] = None, in_spatial_dim: Dim, out_spatial_dim: Optional[Dim] = None
           ) -> Tuple[Tensor, Dim]:
    """1D :func:`pool`. :return: (result, out spatial dim)"""
    out, dims = pool(source, mode=mode, pool_size=pool_size, padding=padding, dilation_rate=dilation_rate,
                     strides=strides, in_spatial_dims=[in_spatial_dim],
                     out_spatial_dims=[out_spatial_dim] if out_spatial_dim else None)
    return out, dims[0]


def max_pool1d(source: Tensor, **kwargs: Any) -> Tuple[Tensor, Dim]:
    """:func:`pool1d` with ``mode="max"``."""
    return pool1d(source, mode="max", **kwargs)


def pool2d(source: Tensor, *, mode: str, pool_size: Any, padding: str = "valid", dilation_rate: Any = 1,
           strides: Any = None, in_spatial_dims: Sequence[Dim], out_spatial_dims: Optional[Sequence[Dim]] = None
           ) -> Tuple[Tensor, Sequence[Dim]]:
    """2D :func:`pool`."""
    return pool(source, mode=mode, pool_size=pool_size, padding=padding, dilation_rate=dilation_rate,
                strides=strides, in_spatial_dims=in_spatial_dims, out_spatial_dims=out_spatial_dims)


pool3d = pool2d
