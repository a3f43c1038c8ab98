"""``Tensor`` (alias ``Data``): dims, dtype, sparse dim and the raw-tensor slot of a layer output.

Pure shape model; never imports TensorFlow. The raw tensor (``placeholder``/``raw_tensor``) is an opaque
slot filled by the backend. Follows the reference's ``Data`` constructor and attribute API
(``Data(name, shape=..., dim=..., sparse=..., dtype=..., time_dim_axis=..., batch_dim_axis=...,
size_placeholder=..., placeholder=...)``, ``placeholder``, ``size_placeholder``, ``batch_shape``, ``shape``,
``dim``, ...). The methods are grouped in mixins: axis queries (:mod:`returnn.tensor._tensor_axes`), copies and
templates (:mod:`returnn.tensor._tensor_copy`), raw-tensor computations (:mod:`returnn.tensor._tensor_raw`).

Defaults, as observed in the reference: ``batch_dim_axis=0``; without ``shape``, the shape is ``(None, dim)``
(dense) or ``(None,)`` (sparse), or dynamic axes up to a given ``feature_dim_axis``; the time and feature axes
not given are derived from the dims whenever asked (:mod:`returnn.tensor._special_axes`: the time axis is the
first dynamic non-batch axis, the feature axis the last static non-batch, non-time axis; dense only) and
``time_dim_axis_or_unspecified``/``feature_dim_axis_or_unspecified`` tell them apart from given ones; the dims made
from a shape are auto-generated (``'time:var-unk:<name>'``, ``'feature:<name>'``, ``'spatial<i>:...'``); the
dtype is ``int32`` for sparse, else ``float32``. With
``shape`` given, ``dim`` only sets the number of classes of a sparse tensor and is otherwise ignored (the
reference does not check it against the shape). ``size_placeholder={axis: lengths}`` takes the dim already
recorded on the lengths tensor (:meth:`returnn.tensor.Dim.get_tag_from_size_tensor`), so a tensor built from
another one's ``get_sequence_lengths()`` shares its time dim; else the new dim is named
``"time:var:'<lengths name>':<name>"``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy

from returnn.errors import TensorArgError
from returnn.tensor import _special_axes as _special
from returnn.tensor import axes as _axes
from returnn.tensor._tensor_axes import TensorAxesMixin
from returnn.tensor._tensor_copy import TensorCopyMixin
from returnn.tensor._tensor_ops import TensorCompareMixin, TensorOpsMixin, TensorRunCtxMixin
from returnn.tensor._tensor_out_shape import TensorOutShapeMixin
from returnn.tensor._tensor_raw import TensorRawMixin
from returnn.tensor._tensor_sanity import TensorSanityMixin
from returnn.tensor.dim import Dim, FeatureDim, SpatialDim, batch_dim
from returnn.util.values import NotSpecified as _UtilNotSpecified


NotSpecified: Any = _special.NotSpecified


def _spec(value: Any) -> Any:
    """The reference's ``returnn.util.basic.NotSpecified`` (a class) means "not given" too."""
    return NotSpecified if value is _UtilNotSpecified else value


class Tensor(TensorAxesMixin, TensorCopyMixin, TensorRawMixin, TensorOutShapeMixin, TensorSanityMixin,
             TensorOpsMixin, TensorCompareMixin, TensorRunCtxMixin):
    """A tensor template with named axes.

    :param name: e.g. ``"data"`` or ``"<layer>_output"``
    :param shape: shape without the batch axis, ``None`` for dynamic axes
    :param dtype: e.g. ``"float32"``, ``"int32"``; default int32 if sparse else float32
    :param placeholder: the raw (backend) tensor, if already known
    :param sparse: whether the values are class indices into ``sparse_dim``
    :param sparse_dim: the Dim of the class indices (created from ``dim`` if not given)
    :param dim: feature dimension (dense, without ``shape``) or number of classes (sparse)
    :param size_placeholder: dict axis-without-batch → raw int32 ``[B]`` lengths
    :param batch_dim_axis: axis of the batch dim (None: no batch axis)
    :param time_dim_axis: axis of the time dim (counting batch), None for none; default: auto
    :param feature_dim_axis: axis of the feature dim (counting batch); default: auto
    :param available_for_inference: False for targets
    :param dims: explicit Dim objects (with batch), alternative to ``shape``/``batch_dim_axis`` (the second
        positional argument, as the reference's ``Tensor(name, dims, dtype)``; a sequence of ints/None there is
        taken as ``shape``)
    :param raw_tensor: the same as ``placeholder`` (the reference's newer name)
    :param feature_dim: the dim (one of ``dims``) of the feature axis
    :param auto_create_placeholders: create raw placeholders for the tensor and the unknown lengths (TF backend),
        named as extern data
    :param same_time_dim_as: dict axis description → Dim that these axes are unified with
    :param same_dim_tags_as: the reference's newer name of ``same_time_dim_as`` (merged with it)
    :raises TensorArgError: inconsistent arguments (a time axis on the batch axis, ``shape`` disagreeing with
        ``dims``, an axis out of range)
    """

    def __init__(self, name: str, dims: Optional[Sequence[Dim]] = None, dtype: Optional[str] = None, *,
                 shape: Optional[Sequence[Optional[int]]] = None,
                 placeholder: Any = None, raw_tensor: Any = None, sparse: Optional[bool] = None,
                 sparse_dim: Any = NotSpecified, feature_dim: Optional[Dim] = None,
                 dim: Any = NotSpecified, size_placeholder: Optional[Dict[int, Any]] = None,
                 batch_dim_axis: Any = NotSpecified, time_dim_axis: Any = NotSpecified,
                 feature_dim_axis: Any = NotSpecified, available_for_inference: bool = True,
                 dim_tags: Optional[Sequence[Dim]] = None,
                 same_time_dim_as: Optional[Dict[Any, Dim]] = None, same_dim_tags_as: Optional[Dict[Any, Dim]] = None,
                 vocab: Any = None, beam: Any = None, batch: Any = None, control_flow_ctx: Any = None,
                 auto_create_placeholders: bool = False, version: Any = None):
        if dims is not None and shape is None and any(not isinstance(d, Dim) for d in dims):
            dims, shape = None, dims  # a shape (ints/None) given where the dims go
        if placeholder is None:
            placeholder = raw_tensor
        sparse_dim, dim, batch_dim_axis = _spec(sparse_dim), _spec(dim), _spec(batch_dim_axis)
        time_dim_axis, feature_dim_axis = _spec(time_dim_axis), _spec(feature_dim_axis)
        self.name = name
        self._vocab = vocab
        self.beam = beam
        self.batch = batch
        self.version = 1
        self.control_flow_ctx = control_flow_ctx
        self.available_for_inference = available_for_inference
        self.auto_create_placeholders = auto_create_placeholders
        if dims is None:
            dims = dim_tags
        if sparse_dim is not NotSpecified and sparse_dim is not None:
            sparse = True
        sparse = bool(sparse)
        auto_dims = dims is None
        if dims is not None:
            self._dims: Tuple[Dim, ...] = tuple(dims)
            if shape is not None and tuple(shape) != tuple(d.dimension for d in self._dims if not d.is_batch_dim()):
                raise TensorArgError(f"Tensor {name!r}", "shape does not match dims", expected=repr(tuple(shape)),
                                     got=repr(self._dims))
        else:
            self._init_dims_from_shape(name, shape, sparse, dim, batch_dim_axis, time_dim_axis, feature_dim_axis)
        self._init_axes(name, time_dim_axis, feature_dim_axis, sparse)
        self.sparse_dim: Optional[Dim] = self._checked_sparse_dim(name, sparse, sparse_dim, dim, auto_dims)
        self.dtype = dtype or ("int32" if sparse else "float32")
        if self.batch_dim_axis is not None:
            for d in self._dims:
                if d.is_dynamic():
                    d.get_same_base()._with_batch = True  # noqa: SLF001 (lengths are per batch entry: [B])
        same_time_dim_as = {**(same_time_dim_as or {}), **(same_dim_tags_as or {})}
        if same_time_dim_as:
            for key, tag in same_time_dim_as.items():
                for axis in _axes.get_axes_from_description(self, key):
                    self._dims[axis].declare_same_as(tag)
        if feature_dim is not None:
            if feature_dim not in self._dims:
                raise TensorArgError(f"Tensor {name!r}", "feature_dim is not one of the dims", got=feature_dim,
                                     expected=repr(self._dims))
            self._feature_dim_axis = self._dims.index(feature_dim)
        self.placeholder = placeholder
        if size_placeholder:
            self._init_sizes(size_placeholder, rename=auto_dims)
        if auto_create_placeholders and placeholder is None:
            self._create_placeholders()

    def _init_axes(self, name: str, time_dim_axis: Any, feature_dim_axis: Any, sparse: bool) -> None:
        """Sets the time and feature axis as given (NotSpecified: found from the dims when asked for; negative: from
        the end).

        :raises TensorArgError: an axis out of range, a feature axis of a sparse tensor, the time axis on the batch
            axis
        """
        ndim = len(self._dims)
        for axis in (time_dim_axis, feature_dim_axis):
            if axis is not NotSpecified and axis is not None and not -ndim <= axis < ndim:
                raise TensorArgError(f"Tensor {name!r}", f"axis {axis} out of range for dims {self._dims}")
        self._time_dim_axis: Any = time_dim_axis % ndim if isinstance(time_dim_axis, int) else time_dim_axis
        self._feature_dim_axis: Any = (feature_dim_axis % ndim if isinstance(feature_dim_axis, int)
                                       else feature_dim_axis)
        if sparse and self._feature_dim_axis is not NotSpecified and self._feature_dim_axis is not None:
            raise TensorArgError(f"Tensor {name!r}", "a sparse tensor cannot have a feature axis",
                                 got=f"feature_dim_axis={feature_dim_axis}")
        if self.time_dim_axis is not None and self.time_dim_axis == self.batch_dim_axis:
            raise TensorArgError(f"Tensor {name!r}", f"time_dim_axis ({self.time_dim_axis}) must be different from "
                                 f"batch_dim_axis ({self.batch_dim_axis})")

    def _checked_sparse_dim(self, name: str, sparse: bool, sparse_dim: Any, dim: Any, auto_dims: bool
                            ) -> Optional[Dim]:
        """:return: the sparse dim (for a sparse tensor without one: a new ``'<name>:sparse-dim'`` of size ``dim``),
        or None for a dense tensor
        :raises TensorArgError: ``dim`` disagrees with ``sparse_dim``, or (dense, dims given) with the feature dim
        """
        if sparse:
            if sparse_dim is NotSpecified or sparse_dim is None:
                return FeatureDim(f"{name}:sparse-dim", None if dim is NotSpecified else dim, auto_generated=True)
            if dim is not NotSpecified and dim is not None and sparse_dim.dimension != dim:
                raise TensorArgError(f"Tensor {name!r}", f"dim {dim} does not match sparse_dim {sparse_dim}")
            return sparse_dim
        self.sparse_dim = None  # self.dim below reads it
        if not auto_dims and dim is not NotSpecified and dim is not None and self.dim != dim:
            raise TensorArgError(f"Tensor {name!r}", f"dim={dim} does not match the dims {self._dims}")
        return None

    def _create_placeholders(self) -> None:
        """``auto_create_placeholders``: names the dynamic dims as extern data (``'time:var:extern_data:<name>'``)
        and creates the raw placeholders ``extern_data/placeholders/<name>/<name>`` and ``<name>_dim<i>_size``
        through the raw backend, as the reference."""
        from returnn.tensor.raw_backend import get_raw_backend
        for i, d in enumerate(self._dims):
            if d.is_batch_dim() or d.dimension is not None or d.dyn_size is not None:
                continue
            if i == self.time_dim_axis and self.batch_dim_axis is not None:
                d.description = f"time:var:extern_data:{self.name}"
            elif d.description and ":var-unk:" in d.description:
                d.description = d.description.replace(":var-unk:", ":var:extern_data:")
        get_raw_backend().create_placeholders(self)

    def _init_dims_from_shape(self, name: str, shape: Any, sparse: bool, dim: Any, bd_axis: Any, time_dim_axis: Any,
                              feature_dim_axis: Any) -> None:
        """Creates the dims from ``shape``/``dim`` as the reference names them: ``'time:var-unk:<name>'`` (the time
        axis, with a batch axis), ``'feature:<name>'`` (the feature axis, feature kind), else
        ``'spatial<i>:var-unk:<name>'``/``'spatial<i>:static<n>:<name>'`` (``i`` counts the axes that are neither
        batch nor feature)."""
        bd_axis = 0 if bd_axis is NotSpecified else bd_axis
        if shape is None:
            feat_size = dim if dim is not NotSpecified else None
            if isinstance(feature_dim_axis, int) and not sparse:
                # the feature axis where given, the other non-batch axes dynamic (as the reference)
                n = max(feature_dim_axis % 99 + 1, 3 if bd_axis is not None else 2)
                if feature_dim_axis < 0:
                    feature_dim_axis += n
                shape = tuple(feat_size if i == feature_dim_axis else None
                              for i in range(n) if bd_axis is None or i != bd_axis)
            else:
                with_time = time_dim_axis is not None and bd_axis is not None
                with_feature = not sparse and feature_dim_axis is not None
                shape = (None,) * with_time + (feat_size,) * with_feature
        batch_shape: List[Optional[int]] = list(shape)
        if bd_axis is not None:
            if bd_axis < 0:
                bd_axis += len(batch_shape) + 1
            batch_shape.insert(bd_axis, None)
        n = len(batch_shape)
        if time_dim_axis is NotSpecified:
            candidates = [i for i, s in enumerate(batch_shape) if i != bd_axis and s is None]
            time_axis = candidates[0] if candidates else None
        else:
            time_axis = None if time_dim_axis is None else time_dim_axis % n
        if feature_dim_axis is NotSpecified:
            feat_axis = None
            if not sparse:
                candidates = [i for i in range(n) if i not in (bd_axis, time_axis)]
                static = [i for i in candidates if batch_shape[i] is not None]
                feat_axis = static[-1] if static else (candidates[-1] if candidates else None)
        else:
            feat_axis = None if feature_dim_axis is None else feature_dim_axis % n
        new_dims: List[Dim] = []
        spatial_idx = 0
        for i, size in enumerate(batch_shape):
            if i == bd_axis:
                new_dims.append(batch_dim)
                continue
            if i == feat_axis and not (i == time_axis and bd_axis is not None):
                new_dims.append(FeatureDim(f"feature:{name}", size, auto_generated=True))
                continue
            if i == time_axis and (bd_axis is not None or time_dim_axis is not NotSpecified):  # (as the reference)
                kind = "var-unk" if size is None else f"static{size}"
                new_dims.append(SpatialDim(f"time:{kind}:{name}", size, auto_generated=True, undefined=size is None))
            elif size is None:
                new_dims.append(SpatialDim(f"spatial{spatial_idx}:var-unk:{name}", None, auto_generated=True,
                                           undefined=True))
            else:
                new_dims.append(SpatialDim(f"spatial{spatial_idx}:static{size}:{name}", size, auto_generated=True))
            spatial_idx += 1
        self._dims = tuple(new_dims)

    def _init_sizes(self, size_placeholder: Dict[int, Any], rename: bool) -> None:
        dims = list(self._dims)
        for axis_wo_batch, size in size_placeholder.items():
            axis = self.get_batch_axis(axis_wo_batch)
            tag = Dim.get_tag_from_size_tensor(size)
            if tag is not None and tag.dimension is None and tag is not dims[axis]:
                dims[axis] = tag
                continue
            if rename and dims[axis].dyn_size is None:
                size_name = getattr(size, "name", None)
                role = "time" if axis == self.time_dim_axis else f"spatial{axis_wo_batch}"
                var = f"var:{size_name!r}" if isinstance(size_name, str) else "var-unk"
                dims[axis].description = f"{role}:{var}:{self.name}"
            dims[axis].dyn_size = size
        self._dims = tuple(dims)

    # ---- pickling / copy.copy: a numpy raw tensor is kept (the same array object in a copy.copy), any other
    # (a TF tensor belongs to one graph) is dropped, as the reference does
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if not isinstance(state.get("placeholder"), numpy.ndarray):
            state["placeholder"] = None
        return state

    # ---- basic properties
    @property
    def vocab(self) -> Any:
        """The vocabulary: the one given, else the one of the sparse dim (sparse) or of the feature dim."""
        if self._vocab is not None:
            return self._vocab
        dim = self.sparse_dim if self.sparse_dim is not None else self.feature_dim
        return None if dim is None else dim.vocab

    @vocab.setter
    def vocab(self, value: Any) -> None:
        self._vocab = value

    @property
    def dims(self) -> Tuple[Dim, ...]:
        """All axes, including batch, in raw-tensor order."""
        return self._dims

    @property
    def dim_tags(self) -> Tuple[Dim, ...]:
        """The same as :attr:`dims` (the reference's older name)."""
        return self._dims

    @property
    def raw_tensor(self) -> Any:
        return self.placeholder

    @raw_tensor.setter
    def raw_tensor(self, value: Any) -> None:
        self.placeholder = value

    @property
    def device(self) -> Optional[str]:
        """The device of the raw tensor: None unless one was assigned (numpy, or TF, which places its ops itself;
        the reference's TF backend gives None too, observed), e.g. for ``Dim.get_size_tensor(device=x.device)``."""
        return self.__dict__.get("_device")

    @device.setter
    def device(self, value: Optional[str]) -> None:
        self.__dict__["_device"] = value

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
        """The time axis (counting batch): the explicit one, or derived from the dims (see
        :mod:`returnn.tensor._special_axes`); None for none."""
        return _special.effective_time_axis(self._dims, self._time_dim_axis)

    @time_dim_axis.setter
    def time_dim_axis(self, axis: Any) -> None:
        """Sets the time axis explicitly (``NotSpecified``: derive it from the dims again)."""
        self._time_dim_axis = axis % len(self._dims) if isinstance(axis, int) else _spec(axis)

    @property
    def feature_dim_axis(self) -> Optional[int]:
        """The feature axis (counting batch): the explicit one, or derived from the dims (see
        :mod:`returnn.tensor._special_axes`); None for none (always for a sparse tensor)."""
        if self._feature_dim_axis is NotSpecified:
            return _special.auto_feature_axis(self._dims, self.sparse, self.time_dim_axis)
        return self._feature_dim_axis

    @feature_dim_axis.setter
    def feature_dim_axis(self, axis: Any) -> None:
        """Sets the feature axis explicitly (``NotSpecified``: derive it from the dims again)."""
        self._feature_dim_axis = axis % len(self._dims) if isinstance(axis, int) else _spec(axis)

    @property
    def time_dim_axis_or_unspecified(self) -> Any:
        """The explicitly set time axis, or ``NotSpecified`` if it is derived from the dims."""
        return self._time_dim_axis

    @property
    def feature_dim_axis_or_unspecified(self) -> Any:
        """The explicitly set feature axis, or ``NotSpecified`` if it is derived from the dims."""
        return self._feature_dim_axis

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
        if self.feature_dim_axis is None:
            return None
        return self._dims[self.feature_dim_axis].dimension

    @property
    def feature_dim(self) -> Optional[Dim]:
        return None if self.feature_dim_axis is None else self._dims[self.feature_dim_axis]

    @feature_dim.setter
    def feature_dim(self, dim: Optional[Dim]) -> None:
        """Sets the feature axis to that of ``dim`` (one of the dims; None: no feature axis); not for a sparse
        tensor, as the reference (observed)."""
        if self.sparse_dim is not None:
            raise TensorArgError(f"{self}.feature_dim = ...", "a sparse tensor has no feature axis to set", got=dim)
        if dim is not None and dim not in self._dims:
            raise TensorArgError(f"{self}.feature_dim = ...", "the dim must be one of the dims",
                                 expected=repr(self._dims), got=dim)
        self.feature_dim_axis = None if dim is None else self._dims.index(dim)

    @property
    def time_dim(self) -> Optional[Dim]:
        return None if self.time_dim_axis is None else self._dims[self.time_dim_axis]

    @property
    def feature_dim_or_sparse_dim(self) -> Optional[Dim]:
        return self.sparse_dim if self.sparse_dim is not None else self.feature_dim

    @property
    def time_dim_axis_excluding_batch(self) -> Optional[int]:
        return None if self.time_dim_axis is None else self.get_batch_axis_excluding_batch(self.time_dim_axis)

    @property
    def feature_dim_axis_excluding_batch(self) -> Optional[int]:
        axis = self.feature_dim_axis
        return None if axis is None else self.get_batch_axis_excluding_batch(axis)

    def get_batch_axis_excluding_batch(self, axis: int) -> Optional[int]:
        """:return: ``axis`` (counting batch) as index into :attr:`shape`; None for the batch axis itself"""
        if axis < 0:
            axis += self.batch_ndim
        bd = self.batch_dim_axis
        if bd is None or axis < bd:
            return axis
        if axis == bd:
            return None
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
        return self.time_dim_axis is not None

    def have_feature_axis(self) -> bool:
        return self.feature_dim_axis is not None

    def get_dynamic_axes(self) -> List[int]:
        """:return: non-batch axes without static size (counting batch)"""
        return [i for i, d in enumerate(self._dims) if d.is_dynamic()]

    def get_static_axes(self) -> List[int]:
        return [i for i, d in enumerate(self._dims) if not d.is_batch_dim() and d.dimension is not None]

    def get_spatial_batch_axes(self) -> List[int]:
        return [i for i in range(self.batch_ndim) if i not in (self.batch_dim_axis, self.feature_dim_axis)]

    # ---- sizes
    @property
    def size_placeholder(self) -> Dict[int, Any]:
        """Dict axis-without-batch → raw int32 ``[B]`` per-sequence lengths, for dynamic axes with known sizes
        (item assignment sets that axis's lengths; ``as_dict()`` gives a plain dict)."""
        from returnn.tensor._size_placeholder import SizePlaceholderProxy
        result = {}
        for i, d in enumerate(self._dims):
            if d.is_batch_dim() or d.dimension is not None:
                continue
            size = d.dyn_size
            if size is not None:
                result[self.get_batch_axis_excluding_batch(i)] = size
        return SizePlaceholderProxy(self, result)

    @size_placeholder.setter
    def size_placeholder(self, sizes: Optional[Dict[int, Any]]) -> None:
        """Sets the lengths of these axes; a lengths tensor that already names a dim makes the axis that dim."""
        dims = list(self._dims)
        for axis_wo_batch, size in (sizes or {}).items():
            axis = self.get_batch_axis(axis_wo_batch)
            tag = Dim.get_tag_from_size_tensor(size)
            if tag is not None and tag.dimension is None and tag != dims[axis]:
                dims[axis] = tag
            else:
                dims[axis].dyn_size = size
        self._dims = tuple(dims)

    # ---- other
    @staticmethod
    def template_from_constant(x: Any, name: str, dtype: Optional[str] = None, shape: Any = None,
                               with_batch_dim: bool = False, sparse_dim: Optional[Dim] = None) -> Tensor:
        """See :func:`returnn.tensor._compat.template_from_constant`."""
        from returnn.tensor._compat import template_from_constant
        return template_from_constant(x, name, dtype=dtype, shape=shape, with_batch_dim=with_batch_dim,
                                      sparse_dim=sparse_dim)

    @staticmethod
    def get_common_data(sources: List[Optional[Tensor]], ignore_feature_dim: bool = False,
                        allow_broadcast_all_sources: Any = NotSpecified,
                        name: Optional[str] = None) -> Optional[Tensor]:
        """See :func:`returnn.tensor._compat.get_common_data`."""
        from returnn.tensor._compat import get_common_data
        return get_common_data(sources, ignore_feature_dim=ignore_feature_dim,
                               allow_broadcast_all_sources=allow_broadcast_all_sources, name=name)

    def get_kwargs(self) -> Dict[str, Any]:
        """:return: kwargs reproducing this template (``Tensor(**kwargs)``)"""
        return dict(name=self.name, dims=self._dims, dtype=self.dtype, sparse_dim=self.sparse_dim,
                    time_dim_axis=self._time_dim_axis, feature_dim_axis=self._feature_dim_axis,
                    available_for_inference=self.available_for_inference, vocab=self.vocab)

    # ---- rendering
    def get_dims_repr(self) -> str:
        """E.g. ``[B,T|'time:var:extern_data:data'[B],F|F'feature:data'(9)]`` as the reference prints."""
        return "[" + ",".join(self.get_batch_axes_short_description()) + "]"

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
