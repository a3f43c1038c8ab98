"""``rf.dropout``: in training (the run context's train flag), zeroes entries with probability ``drop_prob`` and
scales the others by ``1 / (1 - drop_prob)``; else the identity."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["dropout", "dropout_broadcast_default"]


def dropout_broadcast_default() -> bool:
    """:return: False: by default, dropout masks are drawn for every entry (``axis=None`` draws over all dims)"""
    return False


def dropout(source: Tensor, drop_prob: Union[float, Tensor], *, axis: Optional[Union[Dim, Sequence[Dim], bool]] = None,
            on_forward: bool = False) -> Tensor:
    """:param axis: the dims the mask varies over (the others share it); None or True: all dims of ``source``
    :param on_forward: apply also outside training
    :return: same dims as ``source``
    """
    from returnn.frontend.run_ctx import get_run_ctx
    if isinstance(drop_prob, (int, float)) and not 0.0 <= drop_prob < 1.0:
        raise FrontendError("dropout", f"drop_prob must be in [0, 1), got {drop_prob}")
    if isinstance(drop_prob, (int, float)) and drop_prob == 0.0:
        return source
    train = True if on_forward else get_run_ctx().train_flag
    if train is False:
        return source
    dims = list(source.dims) if axis is None or axis is True else _utils.as_dims(axis)
    _utils.check_dims("dropout", source, dims)
    if train is True:
        return _apply(source, drop_prob, dims)
    from returnn.frontend.cond import cond
    for d in dims:  # the sizes of dynamic dims are cached per graph: get them outside the branch
        _utils.dim_value(d)
    # the mask is drawn inside the true branch (only when training), as the reference's net-dict backend: its random
    # generator state is then named ``<scope>/cond/random/random_generator/StateVar`` (see ``_call_names``)
    return cond(train, lambda: _apply(source, drop_prob, dims), lambda: source)


def _apply(source: Tensor, drop_prob: Any, dims: Sequence[Dim]) -> Tensor:
    """``source * mask`` with ``mask`` (over ``dims``) ``1 / keep_prob`` where a uniform draw is below ``keep_prob``,
    else 0: the gradient is one product with the mask (a select of ``source / keep_prob`` would need a select, a
    zeros tensor and a division of the gradient)."""
    from returnn.frontend.array_ import where
    from returnn.frontend.math_ import combine_bc, compare_bc
    from returnn.frontend.rand import random_uniform
    keep_prob = 1.0 - drop_prob
    u = random_uniform(dims, dtype=source.dtype)
    keep = compare_bc(u, "less", keep_prob)
    if isinstance(keep_prob, Tensor):
        scale = combine_bc(_utils.to_tensor("dropout", 1.0, dtype=keep_prob.dtype), "truediv", keep_prob)
        if scale.dtype != source.dtype:
            from returnn.frontend.math_ import cast
            scale = cast(scale, source.dtype)
    else:
        scale = _utils.to_tensor("dropout", 1.0 / keep_prob, dtype=source.dtype, backend=_utils.backend_of(source))
    mask = where(keep, scale, _utils.to_tensor("dropout", 0.0, dtype=source.dtype, backend=_utils.backend_of(source)),
                 allow_broadcast_all_sources=True)
    return combine_bc(source, "mul", mask, dim_order=source.dims)
