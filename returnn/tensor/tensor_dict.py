"""``TensorDict``: named :class:`returnn.tensor.Tensor` s (e.g. the extern data, or one sequence of a dataset), at
the reference's path ``returnn.tensor.tensor_dict``.

The tensors are in the public dict :attr:`TensorDict.data` (name -> Tensor); the methods convert between the
tensors and a flat dict of raw values (``"<name>"`` for the raw tensor, ``"<name>:size<i>"`` for the sizes of its
axis ``i``), as the reference names them (observed).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Type, Union

import numpy as np

from returnn.errors import TensorArgError
from returnn.tensor.dim import Dim
from returnn.tensor.tensor import Tensor


def _raw_ndim(raw: Any) -> Optional[int]:
    shape = getattr(raw, "shape", None)
    if shape is None:
        return 0 if isinstance(raw, (int, float)) else None
    try:
        return len(shape)
    except TypeError:  # a TF shape of unknown rank
        return None


def _dim_size_raw(dim: Dim) -> Any:
    """The raw sizes of ``dim``: its lengths (dynamic), its static size, or None when not known."""
    if dim.dimension is not None:
        return dim.dimension
    return dim.dyn_size


def _batch_size_of(raw: Any, axis: int) -> Any:
    """The size of ``axis`` of ``raw`` as a scalar int32 (numpy array or backend tensor)."""
    if isinstance(raw, np.ndarray):
        return np.array(raw.shape[axis], dtype="int32")
    from returnn.tensor.raw_backend import get_raw_backend

    return get_raw_backend().shape_of(raw, axis)


class TensorDict:
    """A dict of name -> :class:`Tensor` (attribute :attr:`data`; the keys are usually the tensors' names).

    :param data: name -> Tensor (no conversion; see :meth:`update` with ``auto_convert=True`` for dicts of
        Tensor kwargs)
    :raises TensorArgError: a value that is not a Tensor
    """

    def __init__(self, data: Optional[Dict[str, Tensor]] = None):
        self.data: Dict[str, Tensor] = {}
        if data:
            self.update(data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data!r})"

    def __contains__(self, item: str) -> bool:
        return item in self.data

    def __getitem__(self, item: str) -> Tensor:
        """:raises KeyError: unknown name"""
        return self.data[item]

    def update(self, data: Union[Dict[str, Any], "TensorDict"], *, auto_convert: bool = False) -> None:
        """Adds (or replaces) entries.

        :param data: a TensorDict, or a dict name -> Tensor; with ``auto_convert``, a value may also be a dict of
            Tensor kwargs (``{"dims": [...], "dtype": "int32", "sparse_dim": ...}``, or the extern_data style
            ``{"shape": (None, 13)}``), made ``Tensor(name, **value)``
        :raises TensorArgError: a value that is not a Tensor (nor, with ``auto_convert``, a dict)
        """
        if isinstance(data, TensorDict):
            data = data.data
        if not isinstance(data, dict):
            raise TensorArgError("TensorDict.update", "expected a dict name -> Tensor or a TensorDict",
                                 got=type(data).__name__)
        for key, value in data.items():
            if auto_convert and isinstance(value, dict):
                value = Tensor(key, **value)
            if not isinstance(value, Tensor):
                raise TensorArgError(f"TensorDict.update, key {key!r}",
                                     "expected a Tensor" + (" or a dict of Tensor kwargs" if auto_convert else
                                                            " (auto_convert=True also takes a dict of Tensor kwargs)"),
                                     got=f"{type(value).__name__}: {value!r}")
            self.data[key] = value

    def copy_template(self) -> TensorDict:
        """:return: a new TensorDict of the tensors' templates (same dims, no raw tensors)"""
        return TensorDict({key: value.copy_template() for key, value in self.data.items()})

    def reset_content(self) -> None:
        """Drops the raw tensors (and the lengths of the tensors' dynamic dims, except the batch dim's)."""
        for value in self.data.values():
            value.raw_tensor = None
            for dim in value.dims:
                if dim.dimension is None and not dim.is_batch_dim():
                    dim.dyn_size = None

    def all_dims(self) -> List[Dim]:
        """:return: the dims of all tensors, each once, in order of first use"""
        dims: List[Dim] = []
        for value in self.data.values():
            for dim in value.dims:
                if not any(dim is d for d in dims):
                    dims.append(dim)
        return dims

    def as_raw_tensor_dict(self, *, include_const_sizes: bool = False, include_scalar_dyn_sizes: bool = True,
                           exclude_duplicate_dims: bool = False,
                           expected_value_type: Union[Type, Sequence[Type]] = object) -> Dict[str, Any]:
        """The raw values, flat: ``"<name>"`` -> raw tensor, ``"<name>:size<i>"`` -> sizes of axis ``i``.

        :param include_const_sizes: also the static sizes (ints)
        :param include_scalar_dyn_sizes: also dynamic sizes that are scalars (e.g. the batch size, or the length of
            a sequence without batch axis)
        :param exclude_duplicate_dims: a dim's sizes only under its first use
        :param expected_value_type: the type(s) every raw tensor and dynamic size must have
        :return: dict as above (static sizes only with ``include_const_sizes``)
        :raises TensorArgError: a raw tensor or a needed size is missing or of another type
        """
        expected = tuple(expected_value_type) if isinstance(expected_value_type, (list, tuple)) else (
            expected_value_type,)
        out: Dict[str, Any] = {}
        seen: List[Dim] = []
        for key, value in self.data.items():
            if value.raw_tensor is None or not isinstance(value.raw_tensor, expected):
                raise TensorArgError(f"TensorDict.as_raw_tensor_dict, key {key!r}",
                                     f"expected a raw tensor of type {expected}", got=repr(type(value.raw_tensor)))
            out[key] = value.raw_tensor
            for i, dim in enumerate(value.dims):
                if exclude_duplicate_dims and any(dim is d for d in seen):
                    continue
                seen.append(dim)
                size_key = f"{key}:size{i}"
                if dim.dimension is not None and not dim.is_batch_dim():
                    if include_const_sizes:
                        out[size_key] = dim.dimension
                    continue
                size = _dim_size_raw(dim)
                if size is None and dim.is_batch_dim():  # the batch size: from the raw tensor's shape
                    size = _batch_size_of(value.raw_tensor, i)
                if size is None:
                    raise TensorArgError(f"TensorDict.as_raw_tensor_dict, key {key!r}",
                                         f"the sizes of axis {i} ({dim!r}) are not known")
                if isinstance(size, int):  # batch dim with a known static size
                    if include_scalar_dyn_sizes:
                        out[size_key] = size
                    continue
                if _raw_ndim(size) == 0 and not include_scalar_dyn_sizes:
                    continue
                if not isinstance(size, expected):
                    raise TensorArgError(f"TensorDict.as_raw_tensor_dict, {size_key!r}",
                                         f"expected sizes of type {expected}", got=repr(type(size)))
                out[size_key] = size
        return out

    def assign_from_raw_tensor_dict_(self, raw_tensor_dict: Dict[str, Any], *, with_scalar_dyn_sizes: bool = True,
                                     duplicate_dims_are_excluded: bool = False) -> None:
        """The inverse of :meth:`as_raw_tensor_dict` (in place): sets the raw tensors and the lengths of the
        dynamic dims (the batch dim's size is not stored on the dim here; the raw tensors carry it).

        :param raw_tensor_dict: as :meth:`as_raw_tensor_dict` produced it (extra entries are ignored)
        :param with_scalar_dyn_sizes: whether scalar dynamic sizes were included
        :param duplicate_dims_are_excluded: whether a dim's sizes are only under its first use
        :raises TensorArgError: a raw tensor missing in ``raw_tensor_dict``
        """
        seen: List[Dim] = []
        for key, value in self.data.items():
            if key not in raw_tensor_dict:
                raise TensorArgError("TensorDict.assign_from_raw_tensor_dict_", f"no raw tensor for {key!r}",
                                     got=f"keys {sorted(raw_tensor_dict)}")
            value.raw_tensor = raw_tensor_dict[key]
            for i, dim in enumerate(value.dims):
                if duplicate_dims_are_excluded and any(dim is d for d in seen):
                    continue
                seen.append(dim)
                size_key = f"{key}:size{i}"
                if size_key not in raw_tensor_dict or dim.dimension is not None or dim.is_batch_dim():
                    continue
                dim.dyn_size = raw_tensor_dict[size_key]
        del with_scalar_dyn_sizes  # the entries present decide
