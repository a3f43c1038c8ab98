"""``BatchInfo``: what the batch axis of a tensor is made of (``Tensor.batch``, ``Dim.batch``). Backend-free.

The batch axis of a tensor is the global batch (the sequences of the mini-batch), possibly merged with other
*virtual* dims: a beam (``B*K``), a packed dim (the frames of all sequences, ``sum(lengths)``), a padded dim
(``B*T``) or a fixed dim (``B*5``). A ``BatchInfo`` is a chain: each one is its ``base`` with one more virtual dim;
the root is made by :meth:`BatchInfo.make_global_batch_info`. Extending the same base the same way gives the same
object, so batch infos are compared by identity.

As observed in the reference (``returnn.tf.util.data.BatchInfo``):

- ``repr`` is ``BatchInfo{B, Beam{'x'}(3), F(5)}`` (the virtual dims' short forms, in axis order);
- :attr:`BatchInfo.dim` is the product of the virtual dims' sizes (a raw scalar when one is a raw tensor; with a
  packed dim, the sum of the packed lengths), :attr:`BatchInfo.static_dim` the same when all are ints, else None
  (``make_global_batch_info(-1)`` with a beam of 3 gives ``-3``);
- a beam goes right after the global batch dim; a padded/fixed dim goes last (``batch_major=True``) or first;
- :meth:`BatchInfo.get_common_batch_info` merges the virtual dims of several batch infos.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from returnn.errors import TensorArgError


class VirtualDimBase:
    """One part of a merged batch axis."""

    def short_repr(self) -> str:
        raise NotImplementedError

    def _key(self) -> Tuple[Any, ...]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}{{{self.short_repr()}}}"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, VirtualDimBase) and self._key() == other._key()

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._key())


class FixedDim(VirtualDimBase):
    """A dim of the same size for every entry.

    :param size: an int or a raw scalar
    :param dim_tag: the :class:`returnn.tensor.Dim` it comes from, if any
    """

    def __init__(self, size: Any, dim_tag: Any = None):
        self.size = size
        self.dim_tag = dim_tag

    def short_repr(self) -> str:
        return f"F({self.size})" if isinstance(self.size, int) else "F(?)"

    def _key(self) -> Tuple[Any, ...]:
        return (type(self), self.dim_tag) if self.dim_tag is not None else (type(self), id(self.size))


class GlobalBatchDim(FixedDim):
    """The global batch: the sequences of the mini-batch."""

    def short_repr(self) -> str:
        if isinstance(self.size, int) and self.size >= 0:
            return f"B({self.size})"
        return "B"

    def _key(self) -> Tuple[Any, ...]:
        return (type(self),)


class BeamDim(FixedDim):
    """The hypotheses of a beam search. :param beam: a :class:`returnn.tensor.search_beam.SearchBeam`"""

    def __init__(self, beam: Any):
        super().__init__(size=beam.beam_size)
        self.beam = beam

    def short_repr(self) -> str:
        return f"Beam{{{self.beam.name!r}}}({self.beam.beam_size})"

    def _key(self) -> Tuple[Any, ...]:
        return type(self), self.beam


class PaddedDim(FixedDim):
    """A dynamic dim merged with padding: its size is the maximum length. :param dim_tag: the dynamic Dim"""

    def __init__(self, dim_tag: Any):
        super().__init__(size=dim_tag.get_dim_value() if dim_tag.is_dim_known() else None, dim_tag=dim_tag)

    def short_repr(self) -> str:
        return f"Padded{{{self.dim_tag.description!r}}}"


class PackedDim(VirtualDimBase):
    """A dynamic dim merged without padding with the virtual dims ``key_axes`` (the frames of all sequences).

    :param dim_tag: the dynamic Dim
    :param key_axes: the virtual dims its lengths are indexed by (usually the global batch dim)
    """

    def __init__(self, dim_tag: Any, key_axes: Sequence[VirtualDimBase]):
        self.dim_tag = dim_tag
        self.key_axes = list(key_axes)

    @property
    def sizes(self) -> Any:
        """:return: the raw lengths of :attr:`dim_tag`"""
        return self.dim_tag.dyn_size

    def short_repr(self) -> str:
        return f"Packed{{{self.dim_tag.description!r}}}"

    def _key(self) -> Tuple[Any, ...]:
        return type(self), self.dim_tag


class BatchInfo:
    """The batch axis as a chain of virtual dims (see the module docstring).

    :param base: the batch info this one extends, or None for a root
    :param new_dim: the virtual dim added to ``base`` (for a root: the global batch dim, or None for a broadcast
        batch)
    :param new_dim_index: where ``new_dim`` goes in ``base.virtual_dims`` (default: last)
    """

    VirtualDimBase = VirtualDimBase
    FixedDim = FixedDim
    GlobalBatchDim = GlobalBatchDim
    BeamDim = BeamDim
    PaddedDim = PaddedDim
    PackedDim = PackedDim

    _global_broadcast_batch: Optional[BatchInfo] = None

    def __init__(self, base: Optional[BatchInfo], new_dim: Optional[VirtualDimBase],
                 new_dim_index: Optional[int] = None):
        if base is not None and not isinstance(base, BatchInfo):
            raise TensorArgError("BatchInfo(base=...)", "expected a BatchInfo or None", got=base)
        if new_dim is not None and not isinstance(new_dim, VirtualDimBase):
            raise TensorArgError("BatchInfo(new_dim=...)", "expected a BatchInfo virtual dim or None", got=new_dim)
        self.base = base
        self.new_dim = new_dim
        virtual_dims = list(base.virtual_dims) if base is not None else []
        if new_dim is not None:
            if new_dim_index is None:
                new_dim_index = len(virtual_dims)
            virtual_dims.insert(new_dim_index, new_dim)
        self.new_dim_index = new_dim_index
        self.virtual_dims: List[VirtualDimBase] = virtual_dims
        self._extensions: Dict[Tuple[Any, ...], BatchInfo] = {}  # (new dim key, index) -> the extended batch info

    # ---- construction
    @classmethod
    def make_global_batch_info(cls, batch_dim: Any) -> BatchInfo:
        """:param batch_dim: the number of sequences (an int, -1 for unknown, or a raw int32 scalar)
        :return: a new root batch info with only the global batch dim"""
        return BatchInfo(base=None, new_dim=GlobalBatchDim(size=batch_dim))

    @classmethod
    def make_global_broadcast_batch_info(cls) -> BatchInfo:
        """:return: the one batch info without any virtual dim (size 1, broadcasts against every batch)"""
        if cls._global_broadcast_batch is None:
            BatchInfo._global_broadcast_batch = BatchInfo(base=None, new_dim=None)
        return BatchInfo._global_broadcast_batch

    @classmethod
    def get_common_batch_info(cls, batches: Sequence[Optional[BatchInfo]]) -> Optional[BatchInfo]:
        """:return: a batch info with the virtual dims of all ``batches`` (None entries and broadcast batches
            ignored; the first one with the most dims is the start), or None if none is given"""
        given = [b for b in batches if b is not None]
        if not given:
            return None
        non_broadcast = [b for b in given if not b.is_broadcast()]
        if not non_broadcast:
            return given[0]
        common = max(non_broadcast, key=lambda b: len(b.virtual_dims))  # max keeps the first on ties
        for batch in non_broadcast:
            for dim in batch.virtual_dims:
                if dim in common.virtual_dims:
                    continue
                if isinstance(dim, BeamDim):
                    common = common.copy_extend_with_beam(dim.beam)
                else:
                    common = common._copy_extend_dim(dim, len(common.virtual_dims))
        return common

    # ---- queries
    def short_repr(self) -> str:
        """:return: e.g. ``B&Beam{'x'}(3)`` (the virtual dims joined by ``&``)"""
        return "&".join(d.short_repr() for d in self.virtual_dims) or "Bcast"

    def __repr__(self) -> str:
        return "BatchInfo{" + ", ".join(d.short_repr() for d in self.virtual_dims) + "}"

    @property
    def dim(self) -> Any:
        """:return: the size of the merged batch axis: an int, or a raw scalar (1 for a broadcast batch)

        :raises NotImplementedError: a packed dim together with other virtual dims than its keys
        """
        packed = [d for d in self.virtual_dims if isinstance(d, PackedDim)]
        if packed:
            if len(packed) > 1 or any(d not in packed[0].key_axes for d in self.virtual_dims if d is not packed[0]):
                raise NotImplementedError(f"{self!r}.dim: a packed dim together with other virtual dims")
            from returnn.tensor.raw_backend import get_raw_backend
            return get_raw_backend().reduce_sum(packed[0].sizes)
        result: Any = None
        for dim in self.virtual_dims:
            assert isinstance(dim, FixedDim)
            if dim.size is None:
                raise TensorArgError(repr(self), f"the size of {dim!r} is not known")
            result = dim.size if result is None else result * dim.size
        return 1 if result is None else result

    @property
    def static_dim(self) -> Optional[int]:
        """:return: the size of the merged batch axis if all virtual dims have static int sizes, else None"""
        result = 1
        for dim in self.virtual_dims:
            size = getattr(dim, "size", None)
            if not isinstance(size, int):
                return None
            result *= size
        return result

    @property
    def beam(self) -> Any:
        """:return: the :class:`returnn.tensor.search_beam.SearchBeam` merged into the batch, or None"""
        beams = [d.beam for d in self.virtual_dims if isinstance(d, BeamDim)]
        return beams[-1] if beams else None

    def get_base_chain(self) -> List[BatchInfo]:
        """:return: the bases of this batch info, nearest first (empty for a root)"""
        chain = []
        base = self.base
        while base is not None:
            chain.append(base)
            base = base.base
        return chain

    def get_global_base(self) -> BatchInfo:
        """:return: the root of the chain (the global batch info)"""
        chain = self.get_base_chain()
        return chain[-1] if chain else self

    def get_global_batch_dim(self) -> GlobalBatchDim:
        """:raises TensorArgError: no global batch dim (a broadcast batch)"""
        for dim in self.virtual_dims:
            if isinstance(dim, GlobalBatchDim):
                return dim
        raise TensorArgError(repr(self), "has no global batch dim")

    def is_global_batch(self) -> bool:
        """:return: whether the batch axis is only the global batch"""
        return len(self.virtual_dims) == 1 and isinstance(self.virtual_dims[0], GlobalBatchDim)

    def is_broadcast(self) -> bool:
        """:return: whether this is the broadcast batch (no virtual dim, size 1)"""
        return not self.virtual_dims

    # ---- extending / removing
    def _copy_extend_dim(self, new_dim: VirtualDimBase, new_dim_index: int) -> BatchInfo:
        key = (new_dim, new_dim_index)
        if key not in self._extensions:
            self._extensions[key] = BatchInfo(base=self, new_dim=new_dim, new_dim_index=new_dim_index)
        return self._extensions[key]

    def _next_spatial_major_index(self) -> int:
        for i, dim in enumerate(self.virtual_dims):
            if isinstance(dim, GlobalBatchDim):
                return i
        return 0

    def copy_extend_with_beam(self, beam: Any) -> BatchInfo:
        """:return: this batch with the beam merged in right after the global batch dim (``B*K``); the same object
            for the same beam"""
        if self.beam == beam:
            return self
        index = self._next_spatial_major_index() + 1 if self.virtual_dims else 0
        return self._copy_extend_dim(BeamDim(beam), index)

    def copy_remove_beam(self) -> BatchInfo:
        """:return: this batch without its beam (a base in the chain, or rebuilt without it)"""
        if self.beam is None:
            return self
        return self.copy_remove_dim(next(d for d in self.virtual_dims if isinstance(d, BeamDim)))

    def copy_set_beam(self, beam: Any) -> BatchInfo:
        """:return: this batch with ``beam`` as its beam (None: without beam)"""
        batch = self.copy_remove_beam()
        return batch if beam is None else batch.copy_extend_with_beam(beam)

    def copy_remove_dim(self, remove_dim: VirtualDimBase) -> BatchInfo:
        """:return: this batch without the virtual dim ``remove_dim``"""
        if remove_dim not in self.virtual_dims:
            return self
        if self.new_dim == remove_dim:
            assert self.base is not None
            return self.base
        assert self.base is not None and self.new_dim is not None and self.new_dim_index is not None
        base = self.base.copy_remove_dim(remove_dim)
        index = self.new_dim_index
        if self.base.virtual_dims.index(remove_dim) < index:
            index -= 1
        if isinstance(self.new_dim, BeamDim):
            return base.copy_extend_with_beam(self.new_dim.beam)
        return base._copy_extend_dim(self.new_dim, index)

    def copy_extend_with_packed_dim_tag(self, dim_tag: Any, batch_major: bool) -> BatchInfo:
        """:return: this batch with the dynamic ``dim_tag`` packed in (its lengths must be known)"""
        if dim_tag.dyn_size is None:
            raise TensorArgError(f"{self!r}.copy_extend_with_packed_dim_tag", "the dim has no known lengths",
                                 got=dim_tag)
        new_dim = PackedDim(dim_tag, key_axes=[d for d in self.virtual_dims if isinstance(d, GlobalBatchDim)])
        index = len(self.virtual_dims) if batch_major else self._next_spatial_major_index()
        return self._copy_extend_dim(new_dim, index)

    def copy_extend_with_padded_dim_tag(self, dim_tag: Any, batch_major: Optional[bool] = None,
                                        new_dim_idx: Optional[int] = None) -> BatchInfo:
        """:return: this batch with the dynamic ``dim_tag`` merged in with padding (last if ``batch_major``,
            else first; or at ``new_dim_idx``)"""
        return self._copy_extend_dim(PaddedDim(dim_tag), self._index_for(batch_major, new_dim_idx))

    def copy_extend_with_padded_or_fixed_dim_tag(self, dim_tag: Any, batch_major: Optional[bool] = None,
                                                 new_dim_idx: Optional[int] = None) -> BatchInfo:
        """:return: this batch with ``dim_tag`` merged in: a fixed dim if it is static, else padded"""
        if dim_tag.dimension is not None:
            new_dim: VirtualDimBase = FixedDim(size=dim_tag.dimension, dim_tag=dim_tag)
        else:
            new_dim = PaddedDim(dim_tag)
        return self._copy_extend_dim(new_dim, self._index_for(batch_major, new_dim_idx))

    def _index_for(self, batch_major: Optional[bool], new_dim_idx: Optional[int]) -> int:
        if new_dim_idx is not None:
            return new_dim_idx
        if batch_major is None:
            raise TensorArgError(f"{self!r}.copy_extend_with_...", "pass batch_major or new_dim_idx")
        return len(self.virtual_dims) if batch_major else self._next_spatial_major_index()
