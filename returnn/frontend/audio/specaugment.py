"""SpecAugment: random masks of consecutive frames and feature bins (in training only, by default).

The number of masks grows with the training step as the reference's schedule (``steps``: before ``steps[1]`` at most
one time and one feature mask... see :func:`specaugment`); positions and widths are uniform random per sequence.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["specaugment", "random_mask"]


def random_mask(x: Tensor, *, mask_axis: Dim, broadcast_axis: Union[Dim, Any], min_num: Any, max_num: Any,
                max_dims: Any, mask_value: Union[int, float] = 0.0) -> Tensor:
    """Masks (sets ``mask_value``) up to ``max_num`` spans of up to ``max_dims`` consecutive entries of ``mask_axis``
    per entry of the batch dims (the dims other than ``mask_axis`` and ``broadcast_axis``)."""
    from returnn.frontend.array_ import where
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import cast, combine_bc, compare_bc, logical_and
    from returnn.frontend.rand import random_uniform
    broadcast = _utils.as_dims(broadcast_axis)
    batch = [d for d in x.dims if d != mask_axis and d not in broadcast]
    size = mask_axis.dyn_size_ext if mask_axis.dimension is None else None
    size_f = cast(size, "float32") if size is not None else float(mask_axis.dimension)
    pos = range_over_dim(mask_axis)
    for i in range(int(max_num)):
        start = cast(combine_bc(random_uniform(batch), "mul", size_f), "int32")
        width = cast(random_uniform(batch, minval=1.0, maxval=float(max_dims) + 1.0), "int32")
        inside = logical_and(compare_bc(pos, "greater_equal", start),
                             compare_bc(pos, "less", combine_bc(start, "add", width)))
        if i >= int(min_num):
            active = compare_bc(random_uniform(batch), "less", 0.5)
            inside = combine_bc(inside, "logical_and", active)
        x = where(inside, mask_value, x, allow_broadcast_all_sources=True, dim_order=x.dims)
    return x


def specaugment(x: Tensor, *, spatial_dim: Dim, feature_dim: Optional[Dim] = None,
                global_train_step_dependent: bool = True, only_on_train: bool = True,
                max_consecutive_spatial_dims: Any = 20, max_consecutive_feature_dims: Optional[int] = None,
                num_spatial_mask_factor: int = 100, num_masks_per_seq: Optional[bool] = None,
                steps: Tuple[int, int, int] = (0, 1000, 2000)) -> Tensor:
    """:return: ``x`` with random time masks (up to ``max(2, T // num_spatial_mask_factor)`` spans of up to
    ``max_consecutive_spatial_dims`` frames) and feature masks (up to 2-4 spans of up to
    ``max_consecutive_feature_dims``, default ``F // 5``); the maximum number of masks grows over ``steps`` of the
    run context's step (``global_train_step_dependent``); unchanged outside training with ``only_on_train``"""
    from returnn.frontend.cond import cond
    from returnn.frontend.run_ctx import get_run_ctx
    feature_dim = feature_dim or x.feature_dim
    ctx = get_run_ctx()
    train = ctx.train_flag if only_on_train else True
    if train is False:
        return x
    step = ctx.step if global_train_step_dependent and isinstance(ctx.step, int) else steps[-1]
    level = sum(1 for s in steps if step >= s)
    max_feat = max_consecutive_feature_dims or max(1, feature_dim.dimension // 5)
    t_max = max(2, (_utils.dim_value(spatial_dim) // num_spatial_mask_factor)
                if spatial_dim.dimension is not None else 2)

    def _apply() -> Tensor:
        y = random_mask(x, mask_axis=spatial_dim, broadcast_axis=feature_dim, min_num=min(1, level),
                        max_num=max(1, min(t_max, level + 1)), max_dims=max_consecutive_spatial_dims)
        return random_mask(y, mask_axis=feature_dim, broadcast_axis=spatial_dim, min_num=min(1, level),
                           max_num=max(1, level + 1), max_dims=max_feat)

    if train is True:
        return _apply()
    return cond(train, _apply, lambda: x)
