"""``Tensor.sanity_check``: the consistency of a tensor's description and its raw tensor (:class:`TensorSanityMixin`).
Backend-free: the raw tensor is inspected only through its ``shape`` (``as_list()`` or a tuple) and ``dtype``
(``name`` or ``str``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from returnn.errors import TensorArgError

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


def _static_shape(raw: Any) -> Optional[List[Optional[int]]]:
    shape = getattr(raw, "shape", None)
    if shape is None:
        return None
    if hasattr(shape, "rank") and shape.rank is None:  # unknown rank (TF)
        return None
    as_list = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return [None if d is None else int(d) for d in as_list]


def _dtype_name(raw: Any) -> Optional[str]:
    dtype = getattr(raw, "dtype", None)
    if dtype is None:
        return None
    return getattr(getattr(dtype, "base_dtype", dtype), "name", None) or str(dtype)


class TensorSanityMixin:
    """:meth:`sanity_check` of ``Tensor``."""

    def sanity_check(self: Tensor, ignore_placeholder: bool = False, assume_complete: bool = True) -> None:
        """Checks that the tensor's description is consistent; raises on the first problem found.

        - ``batch_dim_axis``/``time_dim_axis``/``feature_dim_axis`` are None or valid axes, only the batch axis has a
          batch dim;
        - a sparse tensor has an integer dtype;
        - unless ``ignore_placeholder``: the raw tensor (if set) has rank ``batch_ndim``, each static dim of
          ``batch_shape`` where the raw tensor's static shape knows the size, and the dtype ``dtype``.

        :param ignore_placeholder: skip the raw tensor checks (e.g. a template whose raw tensor is set later)
        :param assume_complete: accepted for the reference's signature (dynamic sizes are not required here)
        :raises TensorArgError: naming the tensor, what is inconsistent, expected and found
        """
        what = f"{self}.sanity_check"
        ndim = self.batch_ndim
        for attr in ("batch_dim_axis", "time_dim_axis", "feature_dim_axis"):
            axis = getattr(self, attr)
            if axis is not None and not 0 <= axis < ndim:
                raise TensorArgError(what, f"{attr} out of range", expected=f"None or 0..{ndim - 1}", got=axis)
        batch_axes = [i for i, d in enumerate(self.dims) if d.is_batch_dim()]
        if len(batch_axes) > 1:
            raise TensorArgError(what, "more than one batch dim", got=batch_axes)
        if self.sparse and not (self.dtype.startswith("int") or self.dtype.startswith("uint")):
            raise TensorArgError(what, "sparse tensor with a non-integer dtype", expected="int32/int64/...",
                                 got=self.dtype)
        raw = self.placeholder
        if ignore_placeholder or raw is None:
            return
        shape = _static_shape(raw)
        if shape is not None:
            if len(shape) != ndim:
                raise TensorArgError(what, "raw tensor rank differs from batch_ndim", expected=ndim, got=shape)
            for axis, (want, have) in enumerate(zip(self.batch_shape, shape)):
                if want is not None and have is not None and want != have:
                    raise TensorArgError(what, f"raw tensor size of axis {axis} differs from batch_shape",
                                         expected=self.batch_shape, got=shape)
        dtype = _dtype_name(raw)
        if dtype is not None and dtype != self.dtype:
            raise TensorArgError(what, "raw tensor dtype differs", expected=self.dtype, got=dtype)
