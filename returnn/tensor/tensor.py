"""``Tensor`` (alias ``Data``): dims, dtype, sparse dim and the raw-tensor slot of a layer output.

Pure shape model; never imports TensorFlow. The raw tensor (``placeholder``/``raw_tensor``) is an opaque
slot filled by the backend. Follows the reference's ``Data`` constructor and attribute API
(``Data(name, shape=..., dim=..., sparse=..., dtype=..., time_dim_axis=..., batch_dim_axis=...)``,
``placeholder``, ``size_placeholder``, ``batch_shape``, ``shape``, ``dim``, ``get_sequence_lengths()``).

Defaults, as observed in the reference: ``batch_dim_axis=0``; without ``shape``, the shape is ``(None, dim)``
(dense) or ``(None,)`` (sparse); the time axis is the first non-batch axis of unknown size; the feature axis is
the last non-batch, non-time axis (dense only); the dtype is ``int32`` for sparse, else ``float32``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from returnn.tensor import axes as _axes
from returnn.tensor.dim import Dim, FeatureDim, SpatialDim, batch_dim
from returnn.tensor.raw_backend import get_raw_backend


class _NotSpecifiedType:
    def __repr__(self) -> str:
        return "NotSpecified"

    def __bool__(self) -> bool:
        return False


NotSpecified: Any = _NotSpecifiedType()


class Tensor:
    """A tensor template with named axes.

    :param name: e.g. ``"data"`` or ``"<layer>_output"``
    :param shape: shape without the batch axis, ``None`` for dynamic axes
    :param dtype: e.g. ``"float32"``, ``"int32"``; default int32 if sparse else float32
    :param placeholder: the raw (backend) tensor, if already known
    :param sparse: whether the values are class indices into ``sparse_dim``
    :param sparse_dim: the Dim of the class indices (created from ``dim`` if not given)
    :param dim: feature dimension (dense) or number of classes (sparse)
    :param size_placeholder: dict axis-without-batch → raw int32 ``[B]`` lengths
    :param batch_dim_axis: axis of the batch dim (None: no batch axis)
    :param time_dim_axis: axis of the time dim (counting batch), None for none; default: auto
    :param feature_dim_axis: axis of the feature dim (counting batch); default: auto
    :param available_for_inference: False for targets
    :param dims: explicit Dim objects (with batch), alternative to ``shape``/``batch_dim_axis``
    :param same_time_dim_as: dict axis description → Dim that these axes are unified with
    :param same_dim_tags_as: the reference's newer name of ``same_time_dim_as`` (merged with it)
    :raises TypeError/ValueError: for inconsistent arguments (e.g. ``dim`` disagreeing with ``shape``)
    """

    def __init__(self, name: str, shape: Optional[Sequence[Optional[int]]] = None, dtype: Optional[str] = None,
                 placeholder: Any = None, sparse: Optional[bool] = None, sparse_dim: Any = NotSpecified,
                 dim: Any = NotSpecified, size_placeholder: Optional[Dict[int, Any]] = None,
                 batch_dim_axis: Any = NotSpecified, time_dim_axis: Any = NotSpecified,
                 feature_dim_axis: Any = NotSpecified, available_for_inference: bool = True,
                 dims: Optional[Sequence[Dim]] = None, dim_tags: Optional[Sequence[Dim]] = None,
                 same_time_dim_as: Optional[Dict[Any, Dim]] = None, same_dim_tags_as: Optional[Dict[Any, Dim]] = None,
                 vocab: Any = None, beam: Any = None,
                 batch: Any = None, auto_create_placeholders: bool = False, version: Any = None):
        self.name = name
        self.vocab = vocab
        self.beam = beam
        self.batch = batch
        self.available_for_inference = available_for_inference
        self.auto_create_placeholders = auto_create_placeholders
        if dims is None:
            dims = dim_tags
        if sparse_dim is not NotSpecified and sparse_dim is not None:
            sparse = True
        sparse = bool(sparse)
        if dims is not None:
            self._dims: Tuple[Dim, ...] = tuple(dims)
            self._time_dim_axis = self._auto_time_axis() if time_dim_axis is NotSpecified else time_dim_axis
        else:
            bd_axis = 0 if batch_dim_axis is NotSpecified else batch_dim_axis
            if shape is None:
                if time_dim_axis is None:
                    shape = () if sparse else (dim if dim is not NotSpecified else None,)
                else:
                    shape = (None,) if sparse else (None, dim if dim is not NotSpecified else None)
            shape = tuple(shape)
            batch_shape: List[Optional[int]] = list(shape)
            if bd_axis is not None:
                batch_shape.insert(bd_axis, None)
            if time_dim_axis is NotSpecified:
                candidates = [i for i, s in enumerate(batch_shape) if i != bd_axis and s is None]
                time_dim_axis = candidates[0] if candidates else None
            if feature_dim_axis is NotSpecified and not sparse:
                candidates = [i for i in range(len(batch_shape)) if i not in (bd_axis, time_dim_axis)]
                feat_axis = candidates[-1] if candidates else None
            else:
                feat_axis = None if feature_dim_axis is NotSpecified else feature_dim_axis
            new_dims: List[Dim] = []
            for i, size in enumerate(batch_shape):
                wo_batch = i if bd_axis is None or i < bd_axis else i - 1
                if i == bd_axis:
                    new_dims.append(batch_dim)
                elif i == feat_axis:
                    new_dims.append(FeatureDim(f"feature:{name}", size))
                elif i == time_dim_axis and bd_axis is not None:
                    new_dims.append(SpatialDim(f"time:var-unk:{name}", size))
                elif size is None:
                    new_dims.append(SpatialDim(f"spatial{wo_batch}:var-unk:{name}", None))
                else:
                    new_dims.append(SpatialDim(f"spatial{wo_batch}:static{size}:{name}", size))
            self._dims = tuple(new_dims)
            self._time_dim_axis = time_dim_axis
            if feature_dim_axis is NotSpecified:
                feature_dim_axis = feat_axis
        self._feature_dim_axis = self._auto_feature_axis(sparse) if feature_dim_axis is NotSpecified else feature_dim_axis
        for axis in (self._time_dim_axis, self._feature_dim_axis):
            if axis is not None and not 0 <= axis < len(self._dims):
                raise ValueError(f"Tensor {name!r}: axis {axis} out of range for dims {self._dims}")
        if sparse:
            if sparse_dim is NotSpecified or sparse_dim is None:
                sparse_dim = FeatureDim(f"{name}:sparse-dim", None if dim is NotSpecified else dim)
            elif dim is not NotSpecified and dim is not None and sparse_dim.dimension != dim:
                raise ValueError(f"Tensor {name!r}: dim {dim} does not match sparse_dim {sparse_dim}")
            self.sparse_dim: Optional[Dim] = sparse_dim
        else:
            self.sparse_dim = None
            if dim is not NotSpecified and dim is not None:
                if self._feature_dim_axis is None:
                    raise ValueError(f"Tensor {name!r}: dim={dim} given but there is no feature axis (shape {shape})")
                if self._dims[self._feature_dim_axis].dimension != dim:
                    raise ValueError(f"Tensor {name!r}: dim={dim} does not match shape {self.shape}")
        self.dtype = dtype or ("int32" if sparse else "float32")
        same_time_dim_as = {**(same_time_dim_as or {}), **(same_dim_tags_as or {})}
        if same_time_dim_as:
            for key, tag in same_time_dim_as.items():
                for axis in _axes.get_axes_from_description(self, key):
                    self._dims[axis].declare_same_as(tag)
        self.placeholder = placeholder
        if size_placeholder:
            self.size_placeholder = size_placeholder

    # ---- auto axes
    def _auto_time_axis(self) -> Optional[int]:
        for i, d in enumerate(self._dims):
            if not d.is_batch_dim() and not d.is_feature_dim() and d.dimension is None:
                return i
        return None

    def _auto_feature_axis(self, sparse: bool) -> Optional[int]:
        if sparse:
            return None
        feats = [i for i, d in enumerate(self._dims) if d.is_feature_dim()]
        if feats:
            return feats[-1]
        static = [i for i, d in enumerate(self._dims)
                  if not d.is_batch_dim() and i != self._time_dim_axis and d.dimension is not None]
        return static[-1] if static else None

    # ---- basic properties
    @property
    def dims(self) -> Tuple[Dim, ...]:
        """All axes, including batch, in raw-tensor order."""
        return self._dims

    dim_tags = dims

    @property
    def raw_tensor(self) -> Any:
        return self.placeholder

    @raw_tensor.setter
    def raw_tensor(self, value: Any) -> None:
        self.placeholder = value

    @property
    def sparse(self) -> bool:
        return self.sparse_dim is not None

    @property
    def batch_dim_axis(self) -> Optional[int]:
        for i, d in enumerate(self._dims):
            if d.is_batch_dim():
                return i
        return None

    @property
    def time_dim_axis(self) -> Optional[int]:
        return self._time_dim_axis

    @time_dim_axis.setter
    def time_dim_axis(self, axis: Optional[int]) -> None:
        self._time_dim_axis = axis

    @property
    def feature_dim_axis(self) -> Optional[int]:
        return self._feature_dim_axis

    @feature_dim_axis.setter
    def feature_dim_axis(self, axis: Optional[int]) -> None:
        self._feature_dim_axis = axis

    @property
    def batch_ndim(self) -> int:
        return len(self._dims)

    @property
    def ndim(self) -> int:
        """Number of axes without the batch axis."""
        return len(self._dims) - (0 if self.batch_dim_axis is None else 1)

    @property
    def batch_shape(self) -> Tuple[Optional[int], ...]:
        return tuple(d.dimension for d in self._dims)

    @property
    def shape(self) -> Tuple[Optional[int], ...]:
        """Shape without the batch axis (None for dynamic axes)."""
        return tuple(d.dimension for d in self._dims if not d.is_batch_dim())

    @property
    def dim(self) -> Optional[int]:
        """Number of classes (sparse) or size of the feature axis (dense), or None."""
        if self.sparse_dim is not None:
            return self.sparse_dim.dimension
        if self._feature_dim_axis is None:
            return None
        return self._dims[self._feature_dim_axis].dimension

    @property
    def feature_dim(self) -> Optional[Dim]:
        return None if self._feature_dim_axis is None else self._dims[self._feature_dim_axis]

    @property
    def time_dim(self) -> Optional[Dim]:
        return None if self._time_dim_axis is None else self._dims[self._time_dim_axis]

    @property
    def feature_dim_or_sparse_dim(self) -> Optional[Dim]:
        return self.sparse_dim if self.sparse_dim is not None else self.feature_dim

    @property
    def time_dim_axis_excluding_batch(self) -> Optional[int]:
        return None if self._time_dim_axis is None else self.get_batch_axis_excluding_batch(self._time_dim_axis)

    @property
    def feature_dim_axis_excluding_batch(self) -> Optional[int]:
        axis = self._feature_dim_axis
        return None if axis is None else self.get_batch_axis_excluding_batch(axis)

    def get_batch_axis_excluding_batch(self, axis: int) -> int:
        """:return: ``axis`` (counting batch) as index into :attr:`shape`"""
        bd = self.batch_dim_axis
        if bd is None or axis < bd:
            return axis
        if axis == bd:
            raise ValueError(f"{self}: axis {axis} is the batch axis")
        return axis - 1

    def get_batch_axis(self, axis: int) -> int:
        """:return: ``axis`` (index into :attr:`shape`) counting the batch axis"""
        bd = self.batch_dim_axis
        if bd is None or axis < bd:
            return axis
        return axis + 1

    def have_batch_axis(self) -> bool:
        return self.batch_dim_axis is not None

    def have_time_axis(self) -> bool:
        return self._time_dim_axis is not None

    def have_feature_axis(self) -> bool:
        return self._feature_dim_axis is not None

    def is_batch_major(self) -> bool:
        return self.batch_dim_axis == 0

    def is_time_major(self) -> bool:
        return self._time_dim_axis == 0

    def get_dynamic_axes(self) -> List[int]:
        """:return: non-batch axes without static size (counting batch)"""
        return [i for i, d in enumerate(self._dims) if d.is_dynamic()]

    def get_static_axes(self) -> List[int]:
        return [i for i, d in enumerate(self._dims) if not d.is_batch_dim() and d.dimension is not None]

    def get_spatial_batch_axes(self) -> List[int]:
        return [i for i in range(self.batch_ndim) if i not in (self.batch_dim_axis, self._feature_dim_axis)]

    # ---- sizes
    @property
    def size_placeholder(self) -> Dict[int, Any]:
        """Dict axis-without-batch → raw int32 ``[B]`` per-sequence lengths, for dynamic axes with known sizes."""
        result = {}
        for i, d in enumerate(self._dims):
            if d.is_batch_dim() or d.dimension is not None:
                continue
            size = d.dyn_size
            if size is not None:
                result[self.get_batch_axis_excluding_batch(i)] = size
        return result

    @size_placeholder.setter
    def size_placeholder(self, sizes: Optional[Dict[int, Any]]) -> None:
        for axis_wo_batch, size in (sizes or {}).items():
            self._dims[self.get_batch_axis(axis_wo_batch)].dyn_size = size

    def get_sequence_lengths(self) -> Any:
        """:return: raw int32 ``[B]`` lengths of the time axis (filled with the static size if it is static)

        :raises ValueError: if there is no time axis or its lengths are not set yet
        """
        if self._time_dim_axis is None:
            raise ValueError(f"{self}: get_sequence_lengths() needs a time axis")
        time_dim = self._dims[self._time_dim_axis]
        if time_dim.dimension is not None:
            return get_raw_backend().seq_lens_of_static(self.placeholder, self.batch_dim_axis, time_dim.dimension)
        if time_dim.dyn_size is None:
            raise ValueError(f"{self}: sequence lengths of the time axis are not known (yet)")
        return time_dim.dyn_size

    def get_placeholder_as_batch_major(self) -> Any:
        """:return: the raw tensor with the batch axis first"""
        return self.copy_as_batch_major().placeholder

    def get_placeholder_as_time_major(self) -> Any:
        """:return: the raw tensor with the time axis first"""
        return self.copy_as_time_major().placeholder

    def get_sequence_mask(self) -> Any:
        """:return: raw bool mask of valid frames of the time axis, ``[B, T]`` if batch-major else ``[T, B]``"""
        backend = get_raw_backend()
        mask = backend.sequence_mask(self.get_sequence_lengths(), backend.shape_of(self.placeholder, self.time_dim_axis))
        if self.batch_dim_axis is not None and self.time_dim_axis is not None and self.time_dim_axis < self.batch_dim_axis:
            mask = backend.transpose(mask, [1, 0])
        return mask

    # ---- axis descriptions
    def get_axes_from_description(self, axes: Any, allow_int: bool = True) -> List[int]:
        """See :mod:`returnn.tensor.axes`."""
        return _axes.get_axes_from_description(self, axes, allow_int=allow_int)

    def get_axis_from_description(self, axis: Any, allow_int: bool = True) -> int:
        """See :mod:`returnn.tensor.axes`."""
        return _axes.get_axis_from_description(self, axis, allow_int=allow_int)

    def get_axis_by_tag_name(self, description: str) -> int:
        return self.get_axis_from_description("stag:" + description)

    # ---- copies
    def _new(self, dims: Sequence[Dim], *, time_axis: Optional[int], feature_axis: Optional[int], placeholder: Any,
             name: Optional[str] = None, **overrides: Any) -> Tensor:
        kwargs = dict(name=name or self.name, dims=tuple(dims), dtype=self.dtype, sparse_dim=self.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis, placeholder=placeholder,
                      available_for_inference=self.available_for_inference, vocab=self.vocab, beam=self.beam,
                      batch=self.batch)
        kwargs.update(overrides)
        return Tensor(**kwargs)

    def copy(self, name: Optional[str] = None) -> Tensor:
        """:return: a shallow copy (same dims, same raw tensor)"""
        return self._new(self._dims, time_axis=self._time_dim_axis, feature_axis=self._feature_dim_axis,
                         placeholder=self.placeholder, name=name)

    def copy_template(self, name: Optional[str] = None, dtype: Optional[str] = None) -> Tensor:
        """:return: same dims, no raw tensor"""
        return self._new(self._dims, time_axis=self._time_dim_axis, feature_axis=self._feature_dim_axis,
                         placeholder=None, name=name, dtype=dtype or self.dtype)

    def copy_transpose(self, perm: Sequence[int]) -> Tensor:
        """:return: axes permuted: new axis ``i`` is old axis ``perm[i]``; the raw tensor is transposed too"""
        perm = list(perm)
        if sorted(perm) != list(range(self.batch_ndim)):
            raise ValueError(f"{self}: invalid permutation {perm}")
        placeholder = self.placeholder
        if placeholder is not None and perm != list(range(self.batch_ndim)):
            placeholder = get_raw_backend().transpose(placeholder, perm)

        def new_axis(old: Optional[int]) -> Optional[int]:
            return None if old is None else perm.index(old)

        return self._new([self._dims[i] for i in perm], time_axis=new_axis(self._time_dim_axis),
                         feature_axis=new_axis(self._feature_dim_axis), placeholder=placeholder)

    def copy_move_axis(self, old_axis: int, new_axis: int) -> Tensor:
        """:return: copy with axis ``old_axis`` moved to position ``new_axis`` (both counting batch)"""
        old_axis %= self.batch_ndim
        new_axis %= self.batch_ndim
        perm = [i for i in range(self.batch_ndim) if i != old_axis]
        perm.insert(new_axis, old_axis)
        return self.copy_transpose(perm)

    def copy_with_batch_dim_axis(self, batch_dim_axis: int) -> Tensor:
        if self.batch_dim_axis is None:
            raise ValueError(f"{self} has no batch axis")
        return self.copy_move_axis(self.batch_dim_axis, batch_dim_axis)

    def copy_with_time_dim_axis(self, time_dim_axis: int) -> Tensor:
        if self._time_dim_axis is None:
            raise ValueError(f"{self} has no time axis")
        return self.copy_move_axis(self._time_dim_axis, time_dim_axis)

    def copy_as_batch_major(self) -> Tensor:
        """:return: copy with the batch axis first (raw tensor transposed if needed)"""
        return self.copy_with_batch_dim_axis(0)

    def copy_as_time_major(self) -> Tensor:
        """:return: copy with the time axis first (raw tensor transposed if needed)"""
        return self.copy_with_time_dim_axis(0)

    def copy_as_bt_or_tb_major(self) -> Tensor:
        """:return: batch-major with time second, unless already time-major with batch second"""
        if self.batch_dim_axis == 1 and self._time_dim_axis == 0:
            return self.copy()
        out = self.copy_as_batch_major()
        if out.time_dim_axis is not None:
            out = out.copy_with_time_dim_axis(1)
        return out

    def copy_with_feature_dim_axis(self, feature_dim_axis: int) -> Tensor:
        if self._feature_dim_axis is None:
            raise ValueError(f"{self} has no feature axis")
        return self.copy_move_axis(self._feature_dim_axis, feature_dim_axis)

    def copy_with_feature_last(self) -> Tensor:
        return self.copy_with_feature_dim_axis(-1)

    def copy_template_excluding_axis(self, axis: int) -> Tensor:
        """:return: template without ``axis`` (counting batch)"""
        axis %= self.batch_ndim
        dims = [d for i, d in enumerate(self._dims) if i != axis]

        def shift(old: Optional[int]) -> Optional[int]:
            if old is None or old == axis:
                return None
            return old - 1 if old > axis else old

        return self._new(dims, time_axis=shift(self._time_dim_axis), feature_axis=shift(self._feature_dim_axis),
                         placeholder=None)

    def copy_template_excluding_time_dim(self) -> Tensor:
        if self._time_dim_axis is None:
            return self.copy_template()
        return self.copy_template_excluding_axis(self._time_dim_axis)

    def copy_template_excluding_batch(self) -> Tensor:
        if self.batch_dim_axis is None:
            return self.copy_template()
        return self.copy_template_excluding_axis(self.batch_dim_axis)

    def copy_template_replace_dim(self, axis: int, new_dim: Dim) -> Tensor:
        """:return: template with the dim at ``axis`` replaced by ``new_dim``"""
        axis %= self.batch_ndim
        dims = list(self._dims)
        dims[axis] = new_dim
        return self._new(dims, time_axis=self._time_dim_axis, feature_axis=self._feature_dim_axis, placeholder=None)

    copy_template_replace_dim_tag = copy_template_replace_dim

    def copy_template_new_dims(self, dims: Sequence[Dim], *, time_dim_axis: Any = NotSpecified,
                               feature_dim_axis: Any = NotSpecified, name: Optional[str] = None) -> Tensor:
        """:return: template with the given dims (time/feature axes auto-detected unless given)"""
        return Tensor(name=name or self.name, dims=dims, dtype=self.dtype, sparse_dim=self.sparse_dim,
                      time_dim_axis=time_dim_axis, feature_dim_axis=feature_dim_axis,
                      available_for_inference=self.available_for_inference, vocab=self.vocab)

    def copy_add_dim(self, axis: int, new_dim: Dim, *, as_time: bool = False, as_feature: bool = False) -> Tensor:
        """:return: copy with ``new_dim`` inserted at ``axis`` (raw tensor gets a size-1 axis if it has size 1)"""
        if axis < 0:
            axis += self.batch_ndim + 1
        dims = list(self._dims)
        dims.insert(axis, new_dim)

        def shift(old: Optional[int]) -> Optional[int]:
            return None if old is None else (old + 1 if old >= axis else old)

        placeholder = self.placeholder
        if placeholder is not None:
            placeholder = get_raw_backend().expand_dims(placeholder, axis)
        return self._new(dims, time_axis=axis if as_time else shift(self._time_dim_axis),
                         feature_axis=axis if as_feature else shift(self._feature_dim_axis), placeholder=placeholder)

    def copy_add_batch_dim(self, batch_dim_axis: int = 0) -> Tensor:
        if self.batch_dim_axis is not None:
            return self.copy()
        return self.copy_add_dim(batch_dim_axis, batch_dim)

    def copy_add_spatial_dim(self, spatial_dim_axis: Optional[int] = None, dim: int = 1) -> Tensor:
        axis = self.batch_ndim if spatial_dim_axis is None else spatial_dim_axis
        new = SpatialDim(f"{self.name}:spatial-new", dim)
        return self.copy_add_dim(axis, new, as_time=self._time_dim_axis is None)

    def copy_add_feature_dim(self, axis: Optional[int] = None) -> Tensor:
        axis = self.batch_ndim if axis is None else axis
        return self.copy_add_dim(axis, FeatureDim(f"{self.name}:feature-unit", 1), as_feature=True)

    def copy_with_dtype(self, dtype: str) -> Tensor:
        """:return: template with a different dtype (dense; sparse dim dropped unless int)"""
        sparse_dim = self.sparse_dim if dtype.startswith("int") else None
        return self._new(self._dims, time_axis=self._time_dim_axis, feature_axis=self._feature_dim_axis,
                         placeholder=None, dtype=dtype, sparse_dim=sparse_dim)

    def copy_as_dense_template(self, dim_description: Optional[str] = None) -> Tensor:
        """:return: template where a sparse tensor becomes a one-hot float tensor with a feature axis"""
        if not self.sparse:
            return self.copy_template()
        feat = self.sparse_dim
        dims = list(self._dims) + [feat]
        return Tensor(name=self.name, dims=dims, dtype="float32", time_dim_axis=self._time_dim_axis,
                      feature_dim_axis=len(dims) - 1, available_for_inference=self.available_for_inference)

    def get_kwargs(self) -> Dict[str, Any]:
        """:return: kwargs reproducing this template (``Tensor(**kwargs)``)"""
        return dict(name=self.name, dims=self._dims, dtype=self.dtype, sparse_dim=self.sparse_dim,
                    time_dim_axis=self._time_dim_axis, feature_dim_axis=self._feature_dim_axis,
                    available_for_inference=self.available_for_inference, vocab=self.vocab)

    # ---- rendering
    def get_dims_repr(self) -> str:
        """E.g. ``[B,T|'time:var:extern_data:data'[B],F|F'feature:data'(9)]`` as the reference prints."""
        parts = []
        for i, d in enumerate(self._dims):
            prefix = ""
            if i == self._time_dim_axis:
                prefix += "T|"
            if i == self._feature_dim_axis:
                prefix += "F|"
            parts.append(prefix + d.short_repr())
        return "[" + ",".join(parts) + "]"

    def get_description(self, with_name: bool = True) -> str:
        """Reference-style ``Tensor{'name', [dims], dtype='int32', sparse_dim=...}``."""
        items = []
        if with_name:
            items.append(repr(self.name))
        items.append(self.get_dims_repr())
        if self.dtype != "float32":
            items.append(f"dtype={self.dtype!r}")
        if self.sparse_dim is not None:
            items.append(f"sparse_dim={self.sparse_dim!r}")
        if not self.available_for_inference:
            items.append("available_for_inference=False")
        return "Tensor{" + ", ".join(items) + "}"

    def __repr__(self) -> str:
        return self.get_description()


Data = Tensor
