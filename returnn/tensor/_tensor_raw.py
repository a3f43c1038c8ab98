"""Methods of :class:`returnn.tensor.Tensor` that compute raw (backend) tensors: lengths, masks, shape values,
the raw tensor in another axis order, masking (a mixin).

They need the raw backend (:mod:`returnn.tensor.raw_backend`, installed by ``returnn.tf.ops``). Follows the
reference's ``Data`` methods of the same names, as observed: axes count the batch axis; a mask is bool; lengths
are int32 ``[B]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from returnn.errors import TensorArgError
from returnn.tensor.raw_backend import get_raw_backend

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


class TensorRawMixin:
    """Raw-tensor computations; mixed into :class:`returnn.tensor.Tensor`."""

    def _need_placeholder(self: Tensor, what: str) -> Any:
        if self.placeholder is None:
            raise TensorArgError(f"{self!r}.{what}", "needs the raw tensor (placeholder), but this is a template",
                                 hint="call it on a layer's output or in an eval function, not on a template")
        return self.placeholder

    # ---- lengths
    def get_sequence_lengths(self: Tensor) -> Any:
        """:return: raw int32 ``[B]`` lengths of the time axis (filled with the static size if it is static)

        :raises TensorArgError: no time axis, or its lengths are not known (yet)
        """
        if self.time_dim_axis is None:
            raise TensorArgError(f"{self!r}.get_sequence_lengths()", "needs a time axis")
        time_dim = self.dims[self.time_dim_axis]
        if time_dim.dimension is not None:
            return get_raw_backend().seq_lens_of_static(self._need_placeholder("get_sequence_lengths()"),
                                                        self.batch_dim_axis, time_dim.dimension)
        if time_dim.dyn_size is None:
            raise TensorArgError(f"{self!r}.get_sequence_lengths()", "the lengths of the time axis are not known")
        return time_dim.dyn_size

    def get_dynamic_size(self: Tensor, axis: int) -> Any:
        """:return: raw int32 ``[B]`` lengths of ``axis`` (counting batch, as ``get_dynamic_axes()`` gives it)

        :raises TensorArgError: the axis has no lengths (static, batch, or not known yet)
        """
        size = self.dims[axis].dyn_size if self.dims[axis].is_dynamic() else None
        if size is None:
            raise TensorArgError(f"{self!r}.get_dynamic_size({axis})", f"axis {axis} has no dyn size",
                                 hint=f"dynamic axes: {self.get_dynamic_axes()}")
        return size

    def set_dynamic_size(self: Tensor, axis: int, sizes: Any) -> None:
        """Sets the raw int32 ``[B]`` lengths of ``axis`` (counting batch)."""
        self.dims[axis].dyn_size = sizes

    def get_sequence_lengths_broadcast(self: Tensor, axis: Optional[int] = None) -> Any:
        """:return: the lengths of ``axis`` (default: time) with size-1 axes for all other non-batch axes, e.g.
        ``[B,1,1]`` for ``[B,T,F]``; None if the axis has no lengths"""
        axis = self.time_dim_axis if axis is None else axis % self.batch_ndim
        size = self.dims[axis].dyn_size if axis is not None else None
        if size is None:
            return None
        backend = get_raw_backend()
        for i in range(self.batch_ndim):
            if i != self.batch_dim_axis:
                size = backend.expand_dims(size, i)
        return size

    # ---- masks
    def get_sequence_mask(self: Tensor) -> Any:
        """:return: raw bool mask of valid frames of the time axis, ``[B, T]`` if batch-major else ``[T, B]``"""
        backend = get_raw_backend()
        raw = self._need_placeholder("get_sequence_mask()")
        mask = backend.sequence_mask(self.get_sequence_lengths(), backend.shape_of(raw, self.time_dim_axis))
        bd, td = self.batch_dim_axis, self.time_dim_axis
        if bd is not None and td is not None and td < bd:
            mask = backend.transpose(mask, [1, 0])
        return mask

    def get_sequence_mask_broadcast(self: Tensor, axis: Optional[int] = None) -> Any:
        """:return: raw bool mask of valid frames of ``axis`` (default: time), with the batch axis and ``axis`` at
        their places and size 1 elsewhere (e.g. ``[B,T,1]`` for ``[B,T,F]``), to broadcast against the raw tensor

        :raises TensorArgError: ``axis`` has no lengths, or there is no batch axis
        """
        axis = self.time_dim_axis if axis is None else axis % self.batch_ndim
        if axis is None or self.batch_dim_axis is None:
            raise TensorArgError(f"{self!r}.get_sequence_mask_broadcast()", "needs a batch axis and a time axis")
        backend = get_raw_backend()
        raw = self._need_placeholder("get_sequence_mask_broadcast()")
        mask = backend.sequence_mask(self.get_dynamic_size(axis), backend.shape_of(raw, axis))  # [B, T]
        if axis < self.batch_dim_axis:
            mask = backend.transpose(mask, [1, 0])
        for i in range(self.batch_ndim):
            if i not in (axis, self.batch_dim_axis):
                mask = backend.expand_dims(mask, i)
        return mask

    def get_sequence_mask_tensor(self: Tensor, axis: Optional[int] = None) -> Tensor:
        """:return: the mask of valid frames of ``axis`` (default: time) as a bool Tensor ``[B, axis]``"""
        from returnn.tensor.dim import batch_dim
        from returnn.tensor.tensor import Tensor
        axis = self.time_dim_axis if axis is None else axis % self.batch_ndim
        if axis is None or self.batch_dim_axis is None:
            raise TensorArgError(f"{self!r}.get_sequence_mask_tensor()", "needs a batch axis and a time axis")
        backend = get_raw_backend()
        raw = self._need_placeholder("get_sequence_mask_tensor()")
        mask = backend.sequence_mask(self.get_dynamic_size(axis), backend.shape_of(raw, axis))
        return Tensor(name=f"{self.name}:mask", dims=[batch_dim, self.dims[axis]], dtype="bool", placeholder=mask)

    def copy_masked(self: Tensor, mask_value: Any) -> Tensor:
        """:return: a copy whose frames beyond the lengths of every dynamic axis are ``mask_value``"""
        backend = get_raw_backend()
        raw = self._need_placeholder("copy_masked()")
        for axis in self.get_dynamic_axes():
            if self.dims[axis].dyn_size is not None and self.batch_dim_axis is not None:
                raw = backend.where(self.get_sequence_mask_broadcast(axis), raw, mask_value)
        out = self.copy()
        out.placeholder = raw
        return out

    # ---- shape values
    def get_batch_dim(self: Tensor) -> Any:
        """:return: the batch size, a raw int32 scalar (from the raw tensor, else from a lengths tensor)

        :raises TensorArgError: no batch axis, or neither a raw tensor nor lengths to take it from
        """
        if self.batch_dim_axis is None:
            raise TensorArgError(f"{self!r}.get_batch_dim()", "has no batch axis")
        backend = get_raw_backend()
        if self.placeholder is not None:
            return backend.shape_of(self.placeholder, self.batch_dim_axis)
        for d in self.dims:
            if d.is_dynamic() and d.dyn_size is not None:
                return backend.shape_of(d.dyn_size, 0)
        raise TensorArgError(f"{self!r}.get_batch_dim()", "needs the raw tensor or known lengths")

    def get_static_batch_dim(self: Tensor) -> Optional[int]:
        """:return: the static batch size: the size of a static batch dim (1 for the broadcast batch dim that
        ``copy_compatible_to`` adds), else that of the batch info if static and known, else None"""
        if self.batch_dim_axis is not None and self.dims[self.batch_dim_axis].dimension is not None:
            return self.dims[self.batch_dim_axis].dimension
        if self.batch is not None:
            static = self.batch.static_dim
            return static if static is not None and static >= 0 else None
        return None

    # ---- flattening
    def get_placeholder_flattened(self: Tensor, keepdims: bool = False) -> Any:
        """:return: the raw tensor with all axes but the feature axis merged into the first one; batch and time
        are packed to the valid frames (``sum(lengths)``, batch-major) when both exist. With ``keepdims`` the
        merged axes stay as size-1 axes (same rank). A tensor without feature axis gets a flat ``[N]``."""
        x = self._need_placeholder("get_placeholder_flattened()")
        backend = get_raw_backend()
        dims = list(range(self.batch_ndim))
        feature = self.feature_dim_axis
        if self.batch_dim_axis is not None and self.time_dim_axis is not None \
                and self.dims[self.time_dim_axis].dyn_size is not None:
            x = backend.flatten_with_seq_len_mask(x, self.dims[self.time_dim_axis].dyn_size, self.batch_dim_axis,
                                                  self.time_dim_axis)
            dims = [None] + [a for a in dims if a not in (self.batch_dim_axis, self.time_dim_axis)]
        if len(dims) == 1:
            return x
        if feature is not None and feature in dims:
            f_pos = dims.index(feature)
            if f_pos != len(dims) - 1:
                perm = [i for i in range(len(dims)) if i != f_pos] + [f_pos]
                x = backend.transpose(x, perm)
            feat_size = self.dims[feature].dimension
            if feat_size is None:
                feat_size = backend.shape_of(x, len(dims) - 1)
            out_shape: List[Any] = [-1, feat_size]
        else:
            out_shape = [-1]
        x = backend.reshape(x, out_shape)
        if keepdims and self.batch_ndim > len(out_shape):
            for _ in range(self.batch_ndim - len(out_shape)):
                x = backend.expand_dims(x, 1)
        return x

    def copy_time_flattened(self: Tensor) -> Tensor:
        """:return: copy with the batch and time axes packed into one new axis ``'<time>_flattened'`` of the valid
        frames (batch-major order), as the reference; no batch axis remains

        :raises TensorArgError: no batch or no time axis, or unknown time lengths
        """
        from returnn.tensor.dim import Dim
        if self.batch_dim_axis is None or self.time_dim_axis is None:
            raise TensorArgError(f"{self!r}.copy_time_flattened()", "needs a batch and a time axis")
        time_dim = self.dims[self.time_dim_axis]
        new_dim = Dim(None, description=f"{time_dim.description}_flattened", kind=Dim.Types.Spatial,
                      auto_generated=True)
        dims = [new_dim] + [d for i, d in enumerate(self.dims) if i not in (self.batch_dim_axis, self.time_dim_axis)]
        feature = self.feature_dim_axis
        new_feature: Any = None
        if feature is not None:
            new_feature = dims.index(self.dims[feature])
        out = self._new(dims, time_axis=None, feature_axis=new_feature, placeholder=None)
        if self.placeholder is not None:
            if time_dim.dyn_size is None:
                raise TensorArgError(f"{self!r}.copy_time_flattened()", "needs the time lengths")
            out.placeholder = get_raw_backend().flatten_with_seq_len_mask(
                self.placeholder, time_dim.dyn_size, self.batch_dim_axis, self.time_dim_axis)
        return out

    def get_dim(self: Tensor, axis: int) -> Any:
        """:return: the size of ``axis`` (counting batch): an int if static, else a raw int32 scalar"""
        static = self.batch_shape[axis]
        if static is not None:
            return static
        return get_raw_backend().shape_of(self._need_placeholder(f"get_dim({axis})"), axis % self.batch_ndim)

    def time_dimension(self: Tensor) -> Any:
        """:return: the size of the time axis (raw int32 scalar, or int if static)

        :raises TensorArgError: no time axis
        """
        if self.time_dim_axis is None:
            raise TensorArgError(f"{self!r}.time_dimension()", "needs a time axis")
        return self.get_dim(self.time_dim_axis)

    def get_dynamic_batch_shape(self: Tensor) -> List[Any]:
        """:return: per axis its size: an int if static, else a raw int32 scalar"""
        return [self.get_dim(i) for i in range(self.batch_ndim)]

    # ---- raw tensor in another layout
    def get_placeholder_as_batch_major(self: Tensor) -> Any:
        """:return: the raw tensor with the batch axis first"""
        self._need_placeholder("get_placeholder_as_batch_major()")
        return self.copy_as_batch_major().placeholder

    def get_placeholder_as_time_major(self: Tensor) -> Any:
        """:return: the raw tensor with the time axis first"""
        self._need_placeholder("get_placeholder_as_time_major()")
        return self.copy_as_time_major().placeholder

    def get_placeholder_with_runtime_sanity_checks(self: Tensor) -> Any:
        """:return: the raw tensor (no extra checks are added here)"""
        return self.placeholder
