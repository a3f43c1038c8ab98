"""Loose matching of dims (:meth:`returnn.tensor.Dim.is_equal` with the reference's options) and collecting the
distinct dims of several tensors (:meth:`returnn.tensor.Dim.get_all_dimension_tags`); see those methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from returnn.tensor.dim import Dim


def is_equal(a: Dim, b: Any, *, ignore_feature_dim: bool = False, allow_same_feature_dim: bool = False,
             allow_same_spatial_dim: Optional[bool] = None, treat_feature_as_spatial: bool = False,
             broadcast_matches: bool = False, unknown_spatial_matches: bool = False, undefined_matches: bool = False,
             derived_matches: bool = False) -> bool:
    """See :meth:`returnn.tensor.Dim.is_equal`."""
    from returnn.tensor.dim import Dim
    if not isinstance(b, Dim):
        return False
    if a == b:
        return True
    if allow_same_spatial_dim is None:
        allow_same_spatial_dim = allow_same_feature_dim
    if a.is_batch_dim() or b.is_batch_dim():
        return False  # two different batch dims (e.g. the broadcast batch dim)
    a_kind, b_kind = a.kind, b.kind
    if treat_feature_as_spatial:
        a_kind = b_kind = Dim.Types.Spatial
    if a_kind is not b_kind:
        return False
    if ignore_feature_dim and a.is_feature_dim() and b.is_feature_dim():
        return True
    if derived_matches and a.get_same_derived_base() == b.get_same_derived_base():
        return True
    is_feature = a_kind is Dim.Types.Feature
    allow_same = allow_same_feature_dim if is_feature else allow_same_spatial_dim
    if a.dimension != b.dimension:
        if broadcast_matches and allow_same:
            return any(d.dimension == 1 and d.auto_generated for d in (a, b))
        return False
    from returnn.util.behavior_version import BehaviorVersion
    if BehaviorVersion.get() >= 16 and not (a.auto_generated and b.auto_generated):
        return False  # behavior version 16: only auto-generated dims match loosely
    if undefined_matches and a.dimension is None and (a.is_undefined() or b.is_undefined()):
        return True
    if is_feature:
        return allow_same_feature_dim
    if a.dimension is not None and allow_same_spatial_dim:
        return True
    return unknown_spatial_matches


def get_all_dimension_tags(data_list: Any, is_equal_opts: Optional[dict] = None,
                           unique_separate_axes: bool = True) -> Any:
    """See :meth:`returnn.tensor.Dim.get_all_dimension_tags`."""
    opts = is_equal_opts or {}
    all_dims: list = []
    per_data: dict = {}
    for data in data_list:
        own: list = []
        for dim in data.dims:
            found = None
            for i, listed in enumerate(all_dims):
                if unique_separate_axes and any(listed is d for d in own):
                    continue
                if listed.is_equal(dim, **opts):
                    found = listed
                    if listed.is_undefined() and not dim.is_undefined():  # the defined one is listed
                        all_dims[i] = found = dim
                        for dims_of in per_data.values():
                            dims_of[:] = [dim if d is listed else d for d in dims_of]
                    break
            if found is None:
                all_dims.append(dim)
                found = dim
            own.append(found)
        per_data[data] = own
    return all_dims, per_data
