"""Test helpers of the reference's ``returnn.tensor.utils``: filling the tensors of a :class:`TensorDict` with
random numpy data (for tests of code that consumes batches, e.g. writers of forwarded outputs).

The random values are this implementation's own (the reference draws other numbers): the batch size and the
lengths of dynamic dims are drawn once per dim, sparse tensors get class indices below their sparse dim, other
integer tensors values in ``[min_val, max_val)``, float tensors standard normal values. The batch dim itself
(global) is not changed: its size is only used for the tensors filled in the same call.
"""

from __future__ import annotations

from typing import Dict, Optional, Union

import numpy

from returnn.tensor.dim import Dim
from returnn.tensor.tensor import Tensor
from returnn.tensor.tensor_dict import TensorDict

#: lengths drawn for a dynamic dim without ``dyn_dim_min_sizes`` / ``dyn_dim_max_sizes``: ``[2, 20]``
DEFAULT_MIN_SIZE, DEFAULT_MAX_SIZE = 2, 20


def _rnd(rnd: Union[int, numpy.random.RandomState, None]) -> numpy.random.RandomState:
    return rnd if isinstance(rnd, numpy.random.RandomState) else numpy.random.RandomState(rnd)


def _dim_size(dim: Dim, batch_size: int, rnd: numpy.random.RandomState, min_sizes: Dict[Dim, int],
              max_sizes: Dict[Dim, int], batch: Dim) -> int:
    """The padded size of ``dim``; draws (and sets) the lengths of a dynamic dim that has none."""
    if dim.dimension is not None:
        return int(dim.dimension)
    if dim.is_batch_dim():
        return batch_size
    sizes = dim.dyn_size
    if sizes is None or not isinstance(sizes, numpy.ndarray):
        lo, hi = min_sizes.get(dim, DEFAULT_MIN_SIZE), max_sizes.get(dim, DEFAULT_MAX_SIZE)
        sizes = rnd.randint(lo, hi + 1, size=(batch_size,)).astype("int32")
        dim.dyn_size_ext = Tensor(dim.name or "size", dims=[batch], dtype="int32", raw_tensor=sizes)
    return int(numpy.max(sizes)) if numpy.size(sizes) else 0


def tensor_fill_random_numpy_(x: Tensor, *, min_val: int = 0, max_val: Optional[int] = None,
                              rnd: Optional[numpy.random.RandomState] = None,
                              dyn_dim_max_sizes: Optional[Dict[Dim, int]] = None,
                              dyn_dim_min_sizes: Optional[Dict[Dim, int]] = None,
                              batch_size: Optional[int] = None) -> bool:
    """Sets ``x.raw_tensor`` to random numpy data (see the module doc), unless it has one already.

    :param min_val: lowest value of integer tensors (sparse ones too)
    :param max_val: values below this (default: the sparse dim, else 10)
    :param rnd: the random state (default seed 42)
    :param dyn_dim_max_sizes: dim -> longest drawn length
    :param dyn_dim_min_sizes: dim -> shortest drawn length
    :param batch_size: the batch size to use (default: drawn, 2 to 5)
    :return: whether ``x`` was filled
    """
    if x.raw_tensor is not None:
        return False
    rnd = _rnd(42 if rnd is None else rnd)
    batch = next((d for d in x.dims if d.is_batch_dim()), None)
    if batch_size is None:
        batch_size = int(rnd.randint(2, 6))
    shape = [_dim_size(d, batch_size, rnd, dyn_dim_min_sizes or {}, dyn_dim_max_sizes or {}, batch)
             for d in x.dims]
    dtype = numpy.dtype(x.dtype)
    if x.sparse_dim is not None or dtype.kind in "iu":
        high = max_val if max_val is not None else (x.sparse_dim.dimension if x.sparse_dim is not None else 10)
        value = rnd.randint(min_val, high, size=shape).astype(dtype)
    elif dtype.kind == "b":
        value = rnd.randint(0, 2, size=shape).astype(bool)
    else:
        value = rnd.normal(size=shape).astype(dtype)
    x.raw_tensor = value
    return True


def tensor_dict_fill_random_numpy_(tensor_dict: TensorDict, *, rnd: Union[int, numpy.random.RandomState] = 42,
                                   dyn_dim_max_sizes: Optional[Dict[Dim, int]] = None,
                                   dyn_dim_min_sizes: Optional[Dict[Dim, int]] = None) -> None:
    """Fills every tensor of ``tensor_dict`` without a raw tensor (:func:`tensor_fill_random_numpy_`), with one
    batch size and one set of lengths per dynamic dim for all of them.

    :param rnd: seed or random state
    :param dyn_dim_max_sizes: dim -> longest drawn length
    :param dyn_dim_min_sizes: dim -> shortest drawn length
    """
    rnd = _rnd(rnd)
    batch_size = int(rnd.randint(2, 6))
    for value in tensor_dict.data.values():
        tensor_fill_random_numpy_(value, rnd=rnd, dyn_dim_max_sizes=dyn_dim_max_sizes,
                                  dyn_dim_min_sizes=dyn_dim_min_sizes, batch_size=batch_size)
