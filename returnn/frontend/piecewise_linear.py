"""``rf.PiecewiseLinear``: linear interpolation between points ``{x: y}`` (constant beyond the first and last);
``rf.PiecewiseLinearStepwiseScheduler``: the same over the run context's step."""

from __future__ import annotations

from typing import Any, Dict, Union

from returnn.errors import FrontendError
from returnn.frontend.module import Module
from returnn.tensor import Tensor

__all__ = ["PiecewiseLinear", "PiecewiseLinearStepwiseScheduler"]


class PiecewiseLinear(Module):
    """``__call__(x) -> y`` (x's dims), piecewise linear through ``points``."""

    def __init__(self, points: Dict[Union[int, float], Union[float, Tensor]]):
        super().__init__()
        if not points:
            raise FrontendError("PiecewiseLinear", "needs at least one point")
        self.points = sorted(points.items())

    def __call__(self, x: Tensor) -> Tensor:
        from returnn.frontend.array_ import where
        from returnn.frontend.math_ import cast, compare_bc
        if not x.dtype.startswith("float"):
            x = cast(x, "float32")
        (x0, y0), (xn, yn) = self.points[0], self.points[-1]
        out = where(compare_bc(x, "less_equal", float(x0)), y0, yn, allow_broadcast_all_sources=True)
        for (xa, ya), (xb, yb) in zip(self.points[:-1], self.points[1:]):
            inside = compare_bc(x, "greater", float(xa)) & compare_bc(x, "less_equal", float(xb))
            value = (x - float(xa)) * (1.0 / (float(xb) - float(xa))) * (yb - ya) + ya
            out = where(inside, value, out, allow_broadcast_all_sources=True)
        return out


class PiecewiseLinearStepwiseScheduler(PiecewiseLinear):
    """``__call__()`` gives the piecewise linear value at ``rf.get_run_ctx().step``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        from returnn.frontend.const import convert_to_tensor
        from returnn.frontend.run_ctx import get_run_ctx
        step = get_run_ctx().step
        x = step if isinstance(step, Tensor) else convert_to_tensor(float(step))
        return super().__call__(x)
