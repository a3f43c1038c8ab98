"""Helpers of :class:`returnn.tensor.Tensor` that relate two tensors or a value to a tensor:
``copy_compatible_to`` and ``template_from_constant``, following the reference's ``Data`` methods as observed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from returnn.errors import TensorArgError
from returnn.tensor._special_axes import NotSpecified, keep_auto_feature_if_same, keep_auto_time_if_same
from returnn.tensor.dim import Dim, FeatureDim, SpatialDim, batch_broadcast_dim, batch_dim
from returnn.tensor.raw_backend import get_raw_backend

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


def _match_axes(src: Tensor, target: Tensor) -> Dict[int, int]:
    """:return: src axis -> target axis: same dim first, then the batch/time/feature roles, then the remaining
    non-batch axes in order (one of the same static size preferred)"""
    mapping: Dict[int, int] = {}
    # the same dim: the same object first, then one of the same match priority, then any equal one
    for same in (lambda t, d: t is d, lambda t, d: t == d and t.match_priority == d.match_priority,
                 lambda t, d: t == d):
        for i, d in enumerate(src.dims):
            if i in mapping:
                continue
            j = next((j for j, t in enumerate(target.dims) if same(t, d) and j not in mapping.values()), None)
            if j is not None:
                mapping[i] = j
    for sa, ta in ((src.batch_dim_axis, target.batch_dim_axis), (src.time_dim_axis, target.time_dim_axis),
                   (src.feature_dim_axis, target.feature_dim_axis)):
        if sa is not None and ta is not None and sa not in mapping and ta not in mapping.values():
            mapping[sa] = ta
    rest = [j for j in range(target.batch_ndim) if j not in mapping.values() and j != target.batch_dim_axis]
    for i in range(src.batch_ndim):
        if i in mapping:
            continue
        candidates = [j for j in rest if target.dims[j].dimension == src.dims[i].dimension] or rest
        if not candidates or i == src.batch_dim_axis:
            raise TensorArgError(f"{src!r}.copy_compatible_to({target!r})",
                                 f"axis {i} ({src.dims[i].short_repr()}) has no counterpart")
        mapping[i] = candidates[0]
        rest.remove(candidates[0])
    return mapping


def copy_compatible_to(src: Tensor, target: Tensor, *, add_dims: bool = True, unbroadcast: bool = False,
                       except_axes: Sequence[int] = (), check_sparse: bool = True, check_dtype: bool = True) -> Tensor:
    """See :meth:`returnn.tensor.Tensor.copy_compatible_to`. ``except_axes``: target axes never tiled."""
    from returnn.tensor.tensor import Tensor
    what = f"{src!r}.copy_compatible_to({target!r})"
    if check_sparse and src.sparse != target.sparse:
        raise TensorArgError(what, "sparse differs", hint="pass check_sparse=False")
    if check_dtype and src.dtype != target.dtype:
        raise TensorArgError(what, f"dtype differs ({src.dtype} vs {target.dtype})", hint="pass check_dtype=False")
    if src.batch_ndim > target.batch_ndim:
        raise TensorArgError(what, "this tensor already has more axes than the target")
    mapping = _match_axes(src, target)
    if not add_dims and len(mapping) != target.batch_ndim:
        raise TensorArgError(what, "axes would have to be added", hint="pass add_dims=True")
    perm = sorted(range(src.batch_ndim), key=lambda i: mapping[i])
    by_target = {j: i for i, j in mapping.items()}
    dims: List[Dim] = []
    missing: List[int] = []
    for j, t in enumerate(target.dims):
        if j in by_target:
            dims.append(src.dims[by_target[j]])
            continue
        missing.append(j)
        if (unbroadcast and j not in except_axes) or t.dimension == 1:
            dims.append(t)
        elif t.is_batch_dim():
            dims.append(batch_broadcast_dim)
        else:
            dims.append(Dim(1, description=f"{t.description}_dummy_dim1", kind=t.kind, auto_generated=True))
    placeholder = src.placeholder
    if placeholder is not None:
        backend = get_raw_backend()
        if perm != list(range(src.batch_ndim)):
            placeholder = backend.transpose(placeholder, perm)
        for j in missing:
            placeholder = backend.expand_dims(placeholder, j)
        if unbroadcast:
            multiples: List[Any] = [1] * target.batch_ndim
            for j in missing:
                if j in except_axes:
                    continue
                multiples[j] = target.get_dim(j) if target.placeholder is not None or target.dims[j].is_static() \
                    else target.dims[j].get_dim_value()
            if any(m != 1 for m in multiples):
                placeholder = backend.tile(placeholder, multiples)
    # the target's time/feature axes: kept auto where the target's are and the auto rule agrees (as the reference)
    time_axis: Any = NotSpecified
    if target.time_dim_axis is not None:
        time_axis = keep_auto_time_if_same(dims, target.time_dim_axis_or_unspecified is NotSpecified,
                                           target.time_dim_axis)
    feature_axis: Any = NotSpecified
    if not src.sparse and target.feature_dim_axis is not None:
        feature_axis = keep_auto_feature_if_same(dims, False, time_axis,
                                                 target.feature_dim_axis_or_unspecified is NotSpecified,
                                                 target.feature_dim_axis)
    return Tensor(name=src.name, dims=dims, dtype=src.dtype, sparse_dim=src.sparse_dim, placeholder=placeholder,
                  time_dim_axis=time_axis, feature_dim_axis=feature_axis,
                  available_for_inference=src.available_for_inference, vocab=src.vocab, beam=src.beam,
                  batch=src.batch)


def template_from_constant(x: Any, name: str, dtype: Optional[str] = None, shape: Any = None,
                           with_batch_dim: bool = False, sparse_dim: Optional[Dim] = None) -> Tensor:
    """:return: a template for the constant ``x`` (a Python number/bool or a numpy array): scalar ``[]`` or the
    array's static shape (last axis the feature axis); with a batch axis first if ``with_batch_dim``

    :raises TensorArgError: another type (e.g. a list, as the reference)
    """
    from returnn.tensor.tensor import Tensor
    if isinstance(x, bool):
        static_shape, inferred = (), "bool"
    elif isinstance(x, int):
        static_shape, inferred = (), "int32"
    elif isinstance(x, float):
        static_shape, inferred = (), "float32"
    elif hasattr(x, "shape") and hasattr(x, "dtype"):
        static_shape, inferred = tuple(int(s) for s in x.shape), str(x.dtype)
    else:
        raise TensorArgError(f"template_from_constant(name={name!r})", f"cannot handle value {x!r} of type {type(x)}",
                             expected="a Python number/bool or a numpy array")
    if shape is not None:
        static_shape = tuple(shape)
    dims: List[Dim] = [batch_dim] if with_batch_dim else []
    for i, size in enumerate(static_shape):
        last = i == len(static_shape) - 1
        dims.append(FeatureDim(f"{name}:static:{i}", size) if last else SpatialDim(f"{name}:static:{i}", size))
    return Tensor(name=name, dims=dims, dtype=dtype or inferred, sparse_dim=sparse_dim,
                  time_dim_axis=None)


def get_common_data(sources: List[Optional[Tensor]], ignore_feature_dim: bool = False,
                    allow_broadcast_all_sources: Any = NotSpecified, name: Optional[str] = None) -> Optional[Tensor]:
    """:return: a template all ``sources`` broadcast to, or None without sources.

    As observed in the reference: the dims of all sources are collected with
    :meth:`returnn.tensor.Dim.get_all_dimension_tags` (features count as spatial; dims of the same static size,
    undefined dims and dims of the same derived base match, under behavior version 16 only auto-generated ones);
    the first source with the most axes is the base, and the dims it lacks are added to it
    (``copy_add_dim_by_tag``). The beam and the batch info are combined.

    :raises BehaviorVersion.RequirementNotSatisfied: (behavior version >= 4) no source has all the dims and
        ``allow_broadcast_all_sources`` is not True
    """
    from returnn.tensor.batch_info import BatchInfo
    from returnn.tensor.dim import Dim
    from returnn.tensor.search_beam import SearchBeam
    from returnn.util.behavior_version import BehaviorVersion
    sources = [s for s in sources if s is not None]
    if not sources:
        return None
    opts = dict(ignore_feature_dim=ignore_feature_dim, treat_feature_as_spatial=True, allow_same_spatial_dim=True,
                undefined_matches=True, derived_matches=True)
    all_dims, per_data = Dim.get_all_dimension_tags(sources, is_equal_opts=opts)
    base = max(sources, key=lambda s: s.batch_ndim)  # the first of those with the most axes
    common = base.copy_template(name=name or base.name)
    for axis, listed in enumerate(per_data[base]):
        if listed is not common.dims[axis]:
            common = common.copy_template_replace_dim_tag(axis, listed)
    for dim in all_dims:
        if not any(d is dim for d in common.dims):
            common = common.copy_add_dim_by_tag(dim, unbroadcast=True)
    if allow_broadcast_all_sources is not True and len(sources) > 1:
        BehaviorVersion.require(
            any(len(per_data[s]) == common.batch_ndim for s in sources),
            "All inputs\n%s\nrequire broadcasting to \n  %s.\nThis must be explicitly allowed, e.g. by specifying "
            "out_shape." % ("\n".join(f" - {s!r}" for s in sources), repr(common)), 4)
    common.beam = SearchBeam.get_combined_beam(*[s.beam for s in sources]) if len(sources) > 1 else base.beam
    common.batch = BatchInfo.get_common_batch_info([s.batch for s in sources])
    return common
