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
    default the feature dim) of label ``j`` becomes ``(1 - s) * g_j + s / (K - 1) * (-sum_i |g_i| - g_j)``
    (``s = smoothing``; ``K`` labels and the sum not counting ``exclude_labels``, which keep ``(1 - s) * g_j``), as
    the reference's TF backend (observed, also for gradients with positive entries; its ``exclude_labels`` fails in
    TF graph mode, so that part is ours). For a cross entropy (``g`` is
    minus a one-hot) the target gets ``1 - s`` and each other label ``s / (K - 1)``; where all ``g_i <= 0`` it is
    ``(1 - s) * g_j + s / (K - 1) * sum_{i != j} g_i``.

    :raises FrontendError: no axis, or fewer than 2 labels to smooth over
    """
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import compare_bc
    axis = axis or log_prob.feature_dim
    if axis is None:
        raise FrontendError("label_smoothed_log_prob_gradient", "needs axis= (no feature dim)")
    _utils.check_dims("label_smoothed_log_prob_gradient", log_prob, [axis])
    n = axis.dimension - len(exclude_labels or [])
    if n < 2:
        raise FrontendError("label_smoothed_log_prob_gradient", f"needs at least 2 labels to smooth over, got {n}")
    backend = _utils.backend_of(log_prob)
    axis_index = log_prob.dims.index(axis)
    keep_raw = None
    if exclude_labels:
        keep = None
        r = range_over_dim(axis)
        for label in exclude_labels:
            cur = compare_bc(r, "not_equal", label)
            keep = cur if keep is None else keep & cur
        # the mask over `axis` only, shaped to broadcast against log_prob's raw tensor
        keep_raw = backend.reshape(keep.raw_tensor, [axis.dimension if i == axis_index else 1
                                                    for i in range(len(log_prob.dims))])
    s = smoothing.raw_tensor if isinstance(smoothing, Tensor) else smoothing
    raw = backend.label_smoothed_gradient(log_prob.raw_tensor, s, axis_index, n, keep_raw)
    return _utils.make_tensor("label_smoothed_log_prob_gradient", log_prob.dims, log_prob.dtype, raw,
                              feature_dim=log_prob.feature_dim)
