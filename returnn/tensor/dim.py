"""``Dim`` (alias ``DimensionTag``): one axis of a :class:`returnn.tensor.Tensor`, without TensorFlow.

A dim is either *static* (``dimension`` is an int) or *dynamic* (``dimension`` is None; the per-sequence
lengths live in ``dyn_size``, an int32 ``[B]`` raw tensor set by the backend when the graph is built).
Two dims are the *same* axis when they share a base (:meth:`Dim.declare_same_as`), which is how
``same_dim_tags_as`` in ``extern_data`` and ``reinterpret_data``'s ``size_base`` unify time axes.

Follows the reference's ``Dim`` / ``DimensionTag`` (``returnn.tensor.Dim``), as observed:

- constructor ``Dim(dimension, *, name=None, description=None, kind=None, dyn_size=None, ...)``: ``dimension``
  is the only positional argument (None for a dynamic axis); ``Dim(5, "name")`` is rejected. The current
  reference requires ``dimension`` ("missing 1 required positional argument: 'dimension'"); here the old form
  ``DimensionTag(kind=..., description="time")`` without it is accepted with the meaning it had in the releases
  of 2021-2022 (observed: ``dimension=None``, a dynamic axis) and a warning (:mod:`returnn.util.dropped_api`). ``name`` is an alias of ``description`` (and wins);
  the kind defaults to unspecified (``Dim.Types.Unspecified`` is None);
- ``Dim.Types.Batch``/``Spatial``/``Time`` (= ``Spatial``)/``Feature``;
- equality is identity of the same-base (two dims with equal size and name are different axes), ``is_equal``;
  a dim made by arithmetic equals the same expression of the same dims also when made in another graph (the
  reference has one object for it; here each graph has its own, see :mod:`returnn.tensor._dim_math`);
- arithmetic ``dim * 2``, ``2 * dim``, ``dim + 1``, ``dim - 1``, ``dim // 2``, ``dim.ceildiv_right(2)``, ``-dim``,
  ``dim + other_dim`` (see :mod:`returnn.tensor._dim_math`): the same expression gives the same Dim object;
- a size tensor remembers its dim (:meth:`Dim.get_tag_from_size_tensor`), so that
  ``Data(size_placeholder={0: other.get_sequence_lengths()})`` shares ``other``'s time dim;
- ``copy.copy``/``copy.deepcopy`` return the dim itself; pickling gives a new dim (sizes dropped, a new empty
  ``_extra``, see :mod:`returnn.tensor._dim_extra`), except ``batch_dim``, which stays the one global batch dim.
"""

from __future__ import annotations

import itertools
from typing import Any, Optional

from returnn.errors import TensorArgError
from returnn.tensor import _dim_batch_variant, _dim_math
from returnn.tensor._dim_auto import enter_layer_dims as enter_layer_dims  # the network marks layer construction
from returnn.tensor._dim_auto import layer_dims_active
from returnn.tensor._dim_auto import leave_layer_dims as leave_layer_dims
from returnn.tensor._dim_arith_ops import DimArithmetic
from returnn.tensor._dim_extra import DimExtra
from returnn.tensor._dim_order import DimOrder

_MISSING: Any = object()
_creation_counter = itertools.count()
_TAG_ATTR = "_returnn_dim_tag"  # set on a raw size tensor: the Dim whose lengths it holds


class _DimKind:
    """A dim kind, compared by identity; ``Dim.Types.Batch`` etc. Printed as the reference (``<spatial Entity>``)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name} Entity>"

    def __reduce__(self) -> Any:
        return _kind_by_name, (self.name,)


class _Types:
    """``Dim.Types``: ``Batch``, ``Spatial`` (``Time`` is the same kind), ``Feature``; ``Unspecified`` is None."""

    Batch = _DimKind("batch")
    Spatial = _DimKind("spatial")
    Time = Spatial
    Feature = _DimKind("feature")
    Unspecified = None
    Types = (Batch, Spatial, Feature)


def _kind_by_name(name: str) -> _DimKind:
    return {"batch": _Types.Batch, "spatial": _Types.Spatial, "feature": _Types.Feature}[name]


_KNOWN_KWARGS = ("dyn_size", "dyn_size_ext", "vocab", "auto_generated", "batch", "control_flow_ctx", "capacity",
                 "derived_from_tag", "derived_from_op", "undefined", "special", "match_priority", "generic",
                 "src_data", "src_axis", "same_as")


class Dim(DimArithmetic, DimOrder):
    """One axis.

    :param dimension: static size (an int), or None for a dynamic axis (or the batch axis). Left out (an old form
        the reference dropped): None, with a warning naming the form (:mod:`returnn.util.dropped_api`). A
        :class:`Tensor` of int dtype gives a dynamic dim with those lengths (its :attr:`dyn_size_ext`; e.g.
        ``Tensor("time", dims=(), dtype="int32")``: one length for the whole batch), named after the tensor
    :param name: a human-readable name, used in messages and for ``"stag:<name>"`` axis lookup
    :param description: the same as ``name`` (the reference's older keyword; ``name`` wins if both are given)
    :param kind: ``Dim.Types.Batch``, ``Dim.Types.Spatial`` (also time), ``Dim.Types.Feature``, or None
    :param dyn_size: raw int32 ``[B]`` per-sequence lengths (dynamic axes only), may be set later
    :param dyn_size_ext: the same as a :class:`Tensor` ``[B]`` (its raw tensor is taken)
    :raises TensorArgError: ``dimension`` not an int/None, an unknown keyword argument
    """

    Types = _Types

    def __init__(self, dimension: Optional[int] = _MISSING, *, name: Optional[str] = None,
                 description: Optional[str] = None, kind: Optional[_DimKind] = None, **kwargs: Any):
        self.kind, self.dimension, self.description = None, None, name if name is not None else description
        self.creation_index = next(_creation_counter)  # the order of creation, used for sorting
        self._extra = DimExtra()  # state of this object alone, not pickled
        self.same_as: Optional[Dim] = None
        self._dyn_size: Any = None
        self.dyn_size_fn: Any = None  # optional callable() -> raw sizes, resolved lazily
        self._with_batch = False  # lengths are per batch entry (shown as [B]), set when used in a batched Tensor
        if dimension is _MISSING:  # the old form without dimension (dropped by the reference): a dynamic axis
            from returnn.util.dropped_api import accept_dropped_api

            accept_dropped_api("dim_without_dimension")
            dimension = None
        size_template = None
        if _is_tensor(dimension):  # the lengths as a Tensor template (e.g. a scalar): a dynamic dim named after it
            if not str(dimension.dtype).startswith(("int", "uint")):
                raise TensorArgError("Dim(...)", f"unexpected dtype for dimension: {dimension.dtype}",
                                     expected="an int32 Tensor of the lengths (e.g. dims=() for one length for all)",
                                     got=dimension)
            size_template, dimension = dimension, None
            if self.description is None:
                self.description = size_template.name
        if dimension is not None and not isinstance(dimension, int):
            raise TensorArgError("Dim(...)", f"unexpected dimension type: {type(dimension)}",
                                 expected="an int (static size) or None (dynamic)", got=dimension)
        if kind is not None and not isinstance(kind, _DimKind):
            raise TensorArgError("Dim(...)", "invalid kind", got=kind,
                                 expected="Dim.Types.Batch, Dim.Types.Spatial, Dim.Types.Feature or None")
        unknown = [k for k in kwargs if k not in _KNOWN_KWARGS]
        if unknown:
            from returnn.util.suggest import close_matches
            raise TensorArgError("Dim(...)", f"unexpected keyword argument {unknown[0]!r}",
                                 expected="dimension, name, description, kind, " + ", ".join(_KNOWN_KWARGS),
                                 hint="did you mean " + " or ".join(map(repr, close_matches(unknown[0], _KNOWN_KWARGS)))
                                 if close_matches(unknown[0], _KNOWN_KWARGS) else None)
        self.kind = kind
        self.dimension = dimension
        self.vocab = kwargs.get("vocab")
        auto = kwargs.get("auto_generated")
        # as the reference: a static dim a layer makes (e.g. ``'lin:feature-dense'``) is auto-generated
        self.auto_generated = bool(auto) if auto is not None else (dimension is not None and layer_dims_active())
        self.capacity = kwargs.get("capacity")
        self.batch = kwargs.get("batch")
        self.control_flow_ctx = kwargs.get("control_flow_ctx")
        self._undefined = bool(kwargs.get("undefined", False))
        self.special = bool(kwargs.get("special", False))
        self.match_priority = kwargs.get("match_priority", 0)
        self.generic = bool(kwargs.get("generic", False))
        self._derived_from_op = kwargs.get("derived_from_op")
        if kwargs.get("derived_from_tag") is not None:
            self._derived_from_tag = kwargs["derived_from_tag"]
        if kwargs.get("dyn_size_ext") is not None or size_template is not None:
            self.dyn_size_ext = kwargs.get("dyn_size_ext") or size_template
        if kwargs.get("dyn_size") is not None:
            existing = self.get_tag_from_size_tensor(kwargs["dyn_size"])
            if existing is not None and existing.dimension is None:
                self.declare_same_as(existing)  # lengths that already name a dim: the same axis, as the reference
            else:
                self.dyn_size = kwargs["dyn_size"]
        if kwargs.get("same_as") is not None:
            self.declare_same_as(kwargs["same_as"])

    # ---- names
    @property
    def name(self) -> Optional[str]:
        """The same as :attr:`description`."""
        return self.description

    @name.setter
    def name(self, value: Optional[str]) -> None:
        self.description = value

    @property
    def size(self) -> Optional[int]:
        """The static size, or None (the reference's newer name of :attr:`dimension`)."""
        return self.dimension

    # ---- identity / unification
    def get_same_base(self) -> Dim:
        """:return: the representative of this dim's equivalence class"""
        base = self
        while base.same_as is not None:
            base = base.same_as
        return base

    def get_same_derived_base(self) -> Dim:
        """:return: the dim this one is (transitively) derived from (:attr:`derived_from_tag`, e.g. ``T`` for
        ``T * 2``), as its same-base dim; itself (its base) if it is not derived"""
        base = self.get_same_base()
        seen = {id(base)}
        while True:
            parent = base.derived_from_tag
            if parent is None:
                return base
            parent = parent.get_same_base()
            if id(parent) in seen:
                return base
            seen.add(id(parent))
            base = parent

    def declare_same_as(self, other: Dim) -> None:
        """Unifies this dim with ``other`` (``same_dim_tags_as``). Sizes set on either are shared.

        A dynamic dim without known lengths declared the same as a static one becomes static (whichever of the two
        is ``self``).

        :raises TensorArgError: if both are static with different dimensions, or one is static and the other dynamic
            with known lengths
        """
        if not isinstance(other, Dim):
            raise TensorArgError(f"{self!r}.declare_same_as(...)", "expected a Dim", got=other)
        base, other_base = self.get_same_base(), other.get_same_base()
        if base is other_base:
            return
        if base.dimension != other_base.dimension:
            # a dynamic dim without lengths yet takes the other's static size (as the reference: e.g. a config's
            # out_spatial_dims given to a layer whose output size is static)
            if base.dimension is None and not base.is_dim_known():
                base.dimension = other_base.dimension
            elif other_base.dimension is None and not other_base.is_dim_known():
                other_base.dimension = base.dimension
                other_base.same_as = base  # the static one names the axis, as the reference
                return
        if base.dimension != other_base.dimension:
            raise TensorArgError(f"{self!r}.declare_same_as({other!r})", "the dims have different sizes",
                                 expected=f"size {base.dimension}", got=f"size {other_base.dimension}")
        if other_base._dyn_size is None and base._dyn_size is not None:
            other_base._dyn_size = base._dyn_size
        if other_base.dyn_size_fn is None and base.dyn_size_fn is not None:
            other_base.dyn_size_fn = base.dyn_size_fn
        other_base._with_batch = other_base._with_batch or base._with_batch
        base.same_as = other_base

    def is_equal(self, other: Any, *, ignore_feature_dim: bool = False, allow_same_feature_dim: bool = False,
                 allow_same_spatial_dim: Optional[bool] = None, treat_feature_as_spatial: bool = False,
                 broadcast_matches: bool = False, unknown_spatial_matches: bool = False,
                 undefined_matches: bool = False, derived_matches: bool = False, **_kwargs: Any) -> bool:
        """Whether ``other`` counts as the same axis. Without options: the same dim (same base). The options
        loosen that, as observed in the reference:

        - the kinds must agree (``treat_feature_as_spatial``: all non-batch kinds count as spatial);
        - ``ignore_feature_dim``: any two feature dims match;
        - ``derived_matches``: dims with the same derived base (:meth:`get_same_derived_base`) match;
        - ``undefined_matches``: an ``undefined`` dim matches another dynamic one;
        - sizes must agree, except with ``broadcast_matches`` (together with ``allow_same_*``), where an
          auto-generated size-1 dim matches any;
        - ``allow_same_feature_dim``: feature dims of the same size match; ``allow_same_spatial_dim`` (default:
          ``allow_same_feature_dim``): static spatial dims of the same size match;
        - ``unknown_spatial_matches``: spatial dims of the same size (static) or both dynamic match.

        :return: whether they match
        """
        from returnn.tensor._dim_matching import is_equal
        return is_equal(self, other, ignore_feature_dim=ignore_feature_dim,
                        allow_same_feature_dim=allow_same_feature_dim, allow_same_spatial_dim=allow_same_spatial_dim,
                        treat_feature_as_spatial=treat_feature_as_spatial, broadcast_matches=broadcast_matches,
                        unknown_spatial_matches=unknown_spatial_matches, undefined_matches=undefined_matches,
                        derived_matches=derived_matches)

    @property
    def undefined(self) -> bool:
        """Whether this is a dynamic dim whose lengths are not defined yet although a tensor uses it: created with
        ``undefined=True`` (as a dynamic axis of ``Tensor(shape=...)`` without lengths is), or derived from such a
        dim (``T + 1``, ``derived_from_tag``), and no lengths set since. False for a static dim, for a dim with known
        lengths, and for a new user dim (``SpatialDim("time")``), as in the reference. Read-only."""
        seen = set()
        dim: Optional[Dim] = self
        while dim is not None and id(dim) not in seen:
            seen.add(id(dim))
            base = dim.get_same_base()
            if base.dimension is not None or base._dyn_size is not None \
                    or base.__dict__.get("_dyn_size_ext") is not None:
                return False  # (lengths computed lazily from an operand: that operand decides, below)
            if dim._undefined or base._undefined:
                return True
            dim = dim.derived_from_tag
        return False

    def is_undefined(self) -> bool:
        """:return: whether this is a dynamic dim without known lengths (or flagged ``undefined``)"""
        return self.undefined or (self.dimension is None and not self.is_batch_dim() and not self.is_dim_known())

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Dim):
            return False
        base, other_base = self.get_same_base(), other.get_same_base()
        return base is other_base or _dim_math.same_expression(base, other_base)

    def __hash__(self) -> int:
        return _dim_math.expression_hash(self.get_same_base())

    def __lt__(self, other: Any) -> bool:
        """Sorting: dims by creation order (of their same-base dim), before any marked dim."""
        from returnn.tensor.marked_dim import MarkedDim
        if isinstance(other, MarkedDim):
            return True
        if not isinstance(other, Dim):
            raise TypeError(f"cannot compare {self!r} with {other!r}")
        return self.get_same_base().creation_index < other.get_same_base().creation_index

    @staticmethod
    def get_all_dimension_tags(data_list: Any, is_equal_opts: Optional[dict] = None,
                               unique_separate_axes: bool = True) -> Any:
        """Collects the distinct dims of several tensors.

        :param data_list: list of :class:`returnn.tensor.Tensor`
        :param is_equal_opts: options of :meth:`is_equal` deciding whether a dim is already in the list
        :param unique_separate_axes: two axes of one tensor never map to the same listed dim
        :return: ``(all_dims, {tensor: [listed dim per axis]})``; a dim matching one already listed is not added
            (the one listed first is kept, unless its lengths are unknown and the new one's are known)
        """
        from returnn.tensor._dim_matching import get_all_dimension_tags
        return get_all_dimension_tags(data_list, is_equal_opts=is_equal_opts,
                                      unique_separate_axes=unique_separate_axes)

    # ---- copying / pickling
    def __copy__(self) -> Dim:
        return self

    def __deepcopy__(self, memo: Any) -> Dim:
        return self

    def __reduce__(self) -> Any:
        if self is batch_dim or self is single_step_dim or self is batch_broadcast_dim:
            return _get_global_dim, (self.description,)
        return object.__reduce__(self)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_dyn_size"] = None  # raw tensors belong to one graph
        state.pop("_dyn_size_ext", None)
        state["dyn_size_fn"] = None
        state.pop("_extra", None)
        state["batch"] = None  # a batch info holds the batch size of one graph
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._extra = DimExtra()

    def copy(self, same_as_self: bool = True, description: Optional[str] = None, kind: Optional[_DimKind] = None,
             match_priority: Optional[int] = None) -> Dim:
        """:return: a new dim with the same size; declared the same as this one if ``same_as_self`` (default)

        :raises TensorArgError: ``same_as_self=False`` without a new ``description``, as the reference
        """
        if not same_as_self and description is None:
            raise TensorArgError(f"{self!r}.copy(same_as_self=False)", "a copy that is not the same dim needs a new "
                                 "description", hint="pass description='...'")
        new = Dim(self.dimension, description=description if description is not None else self.description,
                  kind=kind if kind is not None else self.kind, vocab=self.vocab, auto_generated=self.auto_generated,
                  match_priority=self.match_priority if match_priority is None else match_priority)
        new._with_batch = self._with_batch
        if same_as_self:
            new.same_as = self
        return new

    # ---- sizes
    @property
    def dyn_size(self) -> Any:
        """Raw int32 ``[B]`` per-sequence lengths (dynamic dims), or None if not (yet) known.

        Setting it also records this dim on the size tensor (unless that already names a dim), see
        :meth:`get_tag_from_size_tensor`.
        """
        if self._extra.variant_dyn_size is not None:
            return self._extra.variant_dyn_size  # a batch variant (make_batch_variant): its own lengths
        base = self.get_same_base()
        if base._dyn_size is None and base.dyn_size_fn is not None:
            base._dyn_size = base.dyn_size_fn()
            if base._dyn_size is not None and self.get_tag_from_size_tensor(base._dyn_size) is None:
                _set_tag_attr(base._dyn_size, base)
        return base._dyn_size

    @dyn_size.setter
    def dyn_size(self, value: Any) -> None:
        base = self.get_same_base()
        base._dyn_size = value
        if value is not None:
            base._with_batch = True
            if self.get_tag_from_size_tensor(value) is None:
                _set_tag_attr(value, self)

    @property
    def dyn_size_ext(self) -> Any:
        """The lengths as a :class:`returnn.tensor.Tensor`: the one assigned (its raw tensor kept in sync with
        :attr:`dyn_size`), else ``[B]`` int32 named ``'<description>:dyn_size'`` around :attr:`dyn_size`; None if
        neither is known."""
        if self._extra.variant_dyn_size is not None:  # a batch variant: its own lengths, over its batch
            return _dim_batch_variant.lengths_template(self)
        base = self.get_same_base()
        template = base.__dict__.get("_dyn_size_ext")
        size = self.dyn_size
        if template is not None:
            if size is not None and template.placeholder is not size:
                template.placeholder = size
            return template
        from returnn.tensor.tensor import Tensor
        if size is None:
            dims = self._derived_dyn_size_dims()
            if dims is None:
                return None
            return Tensor(name=f"{self.description}:dyn_size", dims=dims, dtype="int32")
        return Tensor(name=f"{self.description}:dyn_size", dims=[batch_dim], dtype="int32", placeholder=size)

    def _derived_dyn_size_dims(self) -> Optional[list]:
        """:return: for a dynamic dim made by arithmetic whose operands' lengths are known as templates only, the
        dims of those lengths (the first dynamic operand's), else None"""
        if self.dimension is not None:
            return None
        org = _dim_math.origin(self)
        if org is None:
            return None
        for operand in (org[1], org[2]):
            if isinstance(operand, Dim) and operand.dimension is None:
                ext = operand.dyn_size_ext
                if ext is not None:
                    return list(ext.dims)
        return None

    def get_for_batch_ctx(self, batch: Any, ctx: Any, *, allow_none: bool = False) -> Dim:
        """:return: this dim (lengths for another batch are a :meth:`make_batch_variant` of it, made by the layer)"""
        return self

    def make_batch_variant(self, lengths: Any) -> Dim:
        """:return: a new dim equal to this one (same base) whose :attr:`dyn_size` is ``lengths``: raw int32, one per
            entry of another batch (e.g. ``[B*T]``: ``merge_dims`` merged the batch with a time axis)"""
        return _dim_batch_variant.make_batch_variant(self, lengths)

    @property
    def batch_variant_of(self) -> Optional[Dim]:
        """:return: the dim this one is a :meth:`make_batch_variant` of, or None"""
        return self._extra.batch_variant_of

    def _maybe_update(self) -> None:
        """Nothing to update: the lengths are derived on access."""

    @dyn_size_ext.setter
    def dyn_size_ext(self, value: Any) -> None:
        """Sets the lengths from a Tensor (kept, also without a raw tensor: its dims tell which dims the lengths
        depend on) or a raw tensor; None clears them."""
        from returnn.tensor.tensor import Tensor
        base = self.get_same_base()
        base.__dict__["_dyn_size_ext"] = value if isinstance(value, Tensor) else None
        raw = getattr(value, "placeholder", value) if value is not None else None
        if raw is not None or value is None:
            self.dyn_size = raw

    @staticmethod
    def get_tag_from_size_tensor(x: Any) -> Optional[Dim]:
        """:return: the dim whose lengths the raw tensor ``x`` is (set with :meth:`set_tag_on_size_tensor` or by
        assigning :attr:`dyn_size`), or None"""
        return getattr(x, _TAG_ATTR, None)

    def set_tag_on_size_tensor(self, x: Any, batch: Any = None, same_as_before: bool = False) -> Dim:
        """Records this dim on the raw size tensor ``x`` and takes ``x`` as its lengths if it has none yet (a batch
        dim only records itself on ``x``, a batch size: it has no lengths).

        :return: the dim now recorded on ``x`` (an existing one is kept)
        """
        existing = self.get_tag_from_size_tensor(x)
        if existing is not None and existing != self:
            return existing
        _set_tag_attr(x, self)
        if self.get_same_base()._dyn_size is None and not self.is_batch_dim():
            self.dyn_size = x
        return self

    def is_same_size_tensor(self, x: Any) -> bool:
        """:return: whether ``x`` is this dim's lengths tensor"""
        return x is not None and x is self.dyn_size

    def get_dim_value(self) -> Any:
        """:return: the static size, or the maximum of the lengths (a raw scalar); for a batch dim without either,
            the size of its ``batch`` (the batch info extern data gives its batch dims, the global ``batch_dim``
            included, as the reference)

        :raises TensorArgError: a dynamic dim whose lengths are not known
        """
        if self.dimension is not None:
            return self.dimension
        if self.is_batch_dim() and self.dyn_size is None and self.batch is not None:
            return self.batch.dim  # the batch size, set when extern data's batch info was made (as the reference)
        if self.dyn_size is None:
            raise TensorArgError(repr(self), "need self.dimension or self.dyn_size for the dim value")
        from returnn.tensor.raw_backend import get_raw_backend
        return get_raw_backend().reduce_max(self.dyn_size)

    def get_dim_value_tensor(self) -> Any:
        """:return: the static size (an int), else the maximum of the lengths as a scalar int32 ``Tensor`` (named
            as the lengths), as the reference (observed)"""
        if self.dimension is not None:
            return self.dimension
        from returnn.frontend.dims import max_length_tensor  # lazy: the frontend's backend reduces
        return max_length_tensor(self)

    def get_size_tensor(self, *, device: Optional[str] = None) -> Any:
        """:return: the size as a ``Tensor`` of the selected RF backend: the lengths (``dyn_size_ext``, e.g. ``[B]``,
            the same object) of a dim that has them, else a scalar int32 ``Tensor`` named ``<name>:size``
            (``device`` is accepted for the reference's signature; the value is always on the host)

        :raises TensorArgError: a dim with neither a static size nor known lengths
        """
        ext = self.dyn_size_ext
        if ext is not None and ext.raw_tensor is not None:
            return ext
        if self.dimension is None and not self.is_batch_dim():
            raise TensorArgError(repr(self), "need self.dimension or the lengths (dyn_size_ext) for the size tensor")
        from returnn.frontend.dims import dim_size_tensor  # lazy: the frontend's backend makes the raw scalar
        return dim_size_tensor(self)

    def get_mask(self, *, dim_order: Optional[Any] = None, device: Optional[str] = None,
                 like: Optional[Any] = None) -> Any:
        """:return: the bool mask of the valid frames of this dim (``rf.sequence_mask``), e.g. ``[B, T]`` for a time
            dim ``T`` with lengths ``[B]``; in the order of ``dim_order`` (or of ``like``'s dims) where given
            (``device`` is accepted for the reference's signature)"""
        from returnn.frontend.dims import sequence_mask  # lazy: the frontend's backend makes the raw mask
        mask = sequence_mask([self])
        order = dim_order if dim_order is not None else (like.dims if like is not None else None)
        if order is not None:
            mask = mask.copy_transpose([d for d in order if d in mask.dims] +
                                       [d for d in mask.dims if d not in order])
        return mask

    def is_dim_known(self) -> bool:
        """:return: whether the size is static or the lengths are known"""
        return (self.dimension is not None or self.dyn_size is not None
                or self.get_same_base().__dict__.get("_dyn_size_ext") is not None)

    # ---- kinds
    def is_batch_dim(self) -> bool:
        return self.kind is _Types.Batch

    def is_feature_dim(self) -> bool:
        return self.kind is _Types.Feature

    def is_spatial_dim(self) -> bool:
        return self.kind is _Types.Spatial

    def is_dynamic(self) -> bool:
        """True for a non-batch axis without a static size."""
        return self.dimension is None and not self.is_batch_dim()

    def is_static(self) -> bool:
        return self.dimension is not None

    def need_masking(self) -> bool:
        """:return: whether frames beyond the lengths must be masked (a dynamic axis)"""
        return self.is_dynamic()

    # ---- arithmetic (see returnn.tensor._dim_math)
    @property
    def derived_from_tag(self) -> Optional[Dim]:
        """:return: the dim this one was computed from by arithmetic (``T`` for ``T * 2``), or None"""
        origin = _dim_math.origin(self)
        if origin is not None:
            return origin[1]
        return self.__dict__.get("_derived_from_tag")

    @property
    def derived_from_op(self) -> Any:
        """:return: the operation this dim was computed by (a :class:`returnn.tensor._dim_math.DimOp`: ``kind``,
            ``inputs``; for a dim made by arithmetic, e.g. ``T.ceildiv_right(2)``), the value given to the
            constructor, or None (also for a dim merely declared the same as a computed one)"""
        if self.__dict__.get("_derived_from_op") is not None:
            return self.__dict__["_derived_from_op"]
        return _dim_math.own_op(self)

    @derived_from_op.setter
    def derived_from_op(self, value: Any) -> None:
        self._derived_from_op = value

    # ---- rendering
    def short_repr(self) -> str:
        """Reference-style short form, e.g. ``'time:var:extern_data:data'[B]``, ``F'feature:data'(9)``, ``'t'[?]``
        (the name of the same-base dim, as the reference)."""
        if self.is_batch_dim() and self.get_same_base() is batch_dim.get_same_base():
            return "B"
        prefix = "B" if self.is_batch_dim() else "F" if self.is_feature_dim() else ""
        base = self.get_same_base()  # a dim declared the same as another one is shown by that one's name
        desc = "-" if base.description is None else repr(base.description)
        if self.special:
            size = "!"
        elif self.dimension is not None:
            size = f"({self.dimension})"
        elif base.__dict__.get("_dyn_size_ext") is not None and \
                not any(d.is_batch_dim() for d in base.__dict__["_dyn_size_ext"].dims):
            size = "[" + ",".join(d.short_repr() for d in base.__dict__["_dyn_size_ext"].dims) + "]"  # e.g. [] (scalar)
        else:
            known = (base._with_batch or base._dyn_size is not None or base.dyn_size_fn is not None
                     or base.__dict__.get("_dyn_size_ext") is not None)
            size = "[B]" if known else "[?]"
        return f"{prefix}{desc}{size}"

    def __repr__(self) -> str:
        return f"Dim{{{self.short_repr()}}}"


def _is_tensor(x: Any) -> bool:
    if x is None or isinstance(x, int):  # the common case; also while this module is imported (global dims)
        return False
    from returnn.tensor.tensor import Tensor
    return isinstance(x, Tensor)


def _set_tag_attr(x: Any, dim: Dim) -> None:
    try:
        setattr(x, _TAG_ATTR, dim)
    except (AttributeError, TypeError):  # e.g. a numpy array or an int: nothing to remember
        pass


DimensionTag = Dim  # the reference's older name

batch_dim = Dim(None, description="global batch", kind=_Types.Batch)


batch_broadcast_dim = Dim(1, description="batch-broadcast", kind=_Types.Batch, auto_generated=True)
"""A batch axis of size 1 (``copy_compatible_to`` adds it where the target has a batch axis and this tensor has
none, as the reference)."""

single_step_dim = Dim(1, description="single-step", kind=_Types.Spatial, special=True)
"""The dim of one step of a loop (a rec layer's ``axis=single_step_dim``: iterate one step per call)."""


def _get_global_dim(description: str) -> Dim:
    return {d.description: d for d in (batch_dim, single_step_dim, batch_broadcast_dim)}[description]


class VerifyOutShapeException(Exception):
    """Raised by :meth:`returnn.tensor.Tensor.verify_out_shape` when the dims differ from the expected ones."""


def SpatialDim(description: str, dimension: Optional[int] = None, **kwargs: Any) -> Dim:  # noqa: N802
    """:return: a new spatial (or time) dim; ``dimension`` None means dynamic"""
    return Dim(dimension, description=description, kind=_Types.Spatial, **kwargs)


def FeatureDim(description: str, dimension: Optional[int], **kwargs: Any) -> Dim:  # noqa: N802
    """:return: a new feature dim"""
    return Dim(dimension, description=description, kind=_Types.Feature, **kwargs)
