"""``TensorArray``: a growing list of Tensors of one template (e.g. the per-step outputs of a loop); usable as loop
state of ``rf.while_loop``/``rf.scan``. Functional: :meth:`TensorArray.push_back` returns the new array."""

from __future__ import annotations

from typing import Any, Optional, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend._backend import Backend, get_selected_backend
from returnn.tensor import Dim, Tensor

__all__ = ["TensorArray"]


class TensorArray:
    """Tensors with the dims and dtype of ``tensor_template``.

    :param tensor_template: the dims/dtype of the entries (no raw tensor needed)
    :param capacity: an upper bound of the number of entries (a hint)
    """

    def __init__(self, tensor_template: Tensor, *, capacity: Optional[int] = None, _backend_tensor_array: Any = None,
                 _backend: Optional[Backend] = None, _enable_delayed_check: bool = False):
        self.tensor_template = tensor_template
        self.capacity = capacity
        self._backend = _backend or get_selected_backend()
        if _backend_tensor_array is None:
            shape = [d.dimension for d in tensor_template.dims]
            _backend_tensor_array = self._backend.tensor_array_new(tensor_template.dtype, shape)
        self._raw = _backend_tensor_array

    @property
    def raw(self) -> Any:
        """The backend's tensor array object."""
        return self._raw

    def with_raw(self, raw: Any) -> TensorArray:
        """:return: a TensorArray of the same template around ``raw``"""
        return TensorArray(self.tensor_template, capacity=self.capacity, _backend_tensor_array=raw,
                           _backend=self._backend)

    def push_back(self, tensor: Tensor) -> TensorArray:
        """:return: the array with ``tensor`` appended (its dims: the template's, in any order)

        :raises FrontendError: other dims or dtype than the template
        """
        t = self.tensor_template
        if set(tensor.dims) != set(t.dims) or len(tensor.dims) != len(t.dims) or tensor.dtype != t.dtype:
            raise FrontendError("TensorArray.push_back", f"expected dims {t.dims} and dtype {t.dtype}, got "
                                                         f"{tensor.dims} and {tensor.dtype}")
        raw = _utils.aligned_raw(tensor, t.dims, backend=self._backend)
        return self.with_raw(self._backend.tensor_array_push(self._raw, raw))

    def __getitem__(self, index: Union[int, Tensor]) -> Tensor:
        raw_index = index.raw_tensor if isinstance(index, Tensor) else index
        t = self.tensor_template
        return _utils.make_tensor(t.name, t.dims, t.dtype, self._backend.tensor_array_read(self._raw, raw_index),
                                  sparse_dim=t.sparse_dim, feature_dim=t.feature_dim)

    def stack(self, *, axis: Dim) -> Tensor:
        """:return: the entries stacked along the new dim ``axis`` (first), then the template's dims"""
        t = self.tensor_template
        return _utils.make_tensor(t.name, [axis] + list(t.dims), t.dtype, self._backend.tensor_array_stack(self._raw),
                                  sparse_dim=t.sparse_dim, feature_dim=t.feature_dim)

    @staticmethod
    def unstack(tensor: Tensor, *, axis: Dim) -> TensorArray:
        """:return: the entries of ``tensor`` along ``axis``"""
        _utils.check_dims("TensorArray.unstack", tensor, [axis])
        backend = _utils.backend_of(tensor)
        rest = [d for d in tensor.dims if d != axis]
        template = Tensor(tensor.name, dims=rest, dtype=tensor.dtype, sparse_dim=tensor.sparse_dim)
        raw = backend.tensor_array_unstack(_utils.aligned_raw(tensor, [axis] + rest, backend=backend))
        return TensorArray(template, _backend_tensor_array=raw, _backend=backend)
