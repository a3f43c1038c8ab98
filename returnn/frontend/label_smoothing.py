"""``rf.label_smoothed_log_prob_gradient``: label smoothing applied to the gradient only."""

from __future__ import annotations

from typing import Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["label_smoothed_log_prob_gradient"]


def label_smoothed_log_prob_gradient(log_prob: Tensor, smoothing: Union[Tensor, float], *,
                                     axis: Optional[Dim] = None, exclude_labels: Optional[Sequence[int]] = None
                                     ) -> Tensor:
    """:return: ``log_prob`` unchanged in the forward pass; in the backward pass the gradient ``g`` (over ``axis``,
    default the feature dim) of label ``j`` becomes ``(1 - smoothing) * g_j + smoothing / (K - 1) * sum_{i != j} g_i``
    (``K`` labels, not counting ``exclude_labels``, which keep ``(1 - smoothing) * g_j`` and give no share): for a
    cross entropy, the target gets ``1 - smoothing`` and each other label ``smoothing / (K - 1)``, as the
    reference's (observed)"""
    from returnn.frontend.array_ import stop_gradient, where
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import combine_bc, compare_bc
    from returnn.frontend.reduce import reduce_sum
    axis = axis or log_prob.feature_dim
    if axis is None:
        raise FrontendError("label_smoothed_log_prob_gradient", "needs axis= (no feature dim)")
    _utils.check_dims("label_smoothed_log_prob_gradient", log_prob, [axis])
    n = axis.dimension - len(exclude_labels or [])
    if n < 2:
        raise FrontendError("label_smoothed_log_prob_gradient", f"needs at least 2 labels to smooth over, got {n}")
    sg = stop_gradient(log_prob)
    total = reduce_sum(log_prob, axis=axis)
    others = combine_bc(total - stop_gradient(total), "sub", log_prob - sg, dim_order=log_prob.dims)
    spread = combine_bc(others, "mul", smoothing / (n - 1) if not isinstance(smoothing, Tensor)
                        else smoothing / float(n - 1))
    if exclude_labels:
        keep = None
        r = range_over_dim(axis)
        for label in exclude_labels:
            cur = compare_bc(r, "not_equal", label)
            keep = cur if keep is None else keep & cur
        spread = where(keep, spread, 0.0, allow_broadcast_all_sources=True)
    main = combine_bc(log_prob - sg, "mul", 1.0 - smoothing)
    out = combine_bc(combine_bc(sg, "add", main, dim_order=log_prob.dims), "add", spread, dim_order=log_prob.dims)
    return _utils.make_tensor("label_smoothed_log_prob_gradient", out.dims, out.dtype, out.raw_tensor,
                              feature_dim=log_prob.feature_dim)
