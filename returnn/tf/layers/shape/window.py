"""``{"class": "window", "window_size": 3, "window_left": None, "window_right": None, "padding": "same"}``:
stack neighbouring frames along a new window axis right after the time axis.

Shape: ``{B, T, F} -> {B, T, W, F}`` (``padding="same"``: lengths unchanged, out-of-sequence frames are 0;
``"valid"``: lengths ``len - W + 1``). From ``behavior_version`` 18 on, as the reference, the raw layout is the
window axis first, then the windowed axis, then the other axes in their order: ``{B, T, F} -> {W, T, B, F}``. Default window is centered: ``window_left = (W-1)//2``. As the reference
(observed), the padded frames after a shorter sequence's end are used as they are (like a convolution does);
only frames outside the padded batch are zeros.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.util.behavior_version import BehaviorVersion


@register_layer
class WindowLayer(ConcatInputLayer):
    """Sliding window over time."""

    layer_class = "window"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, window_size: int, window_left: Optional[int] = None, window_right: Optional[int] = None,
                 axis: Any = "T", padding: str = "same", stride: int = 1, **kwargs: Any):
        """
        :param window_size: frames per window
        :param window_left: frames left of the center (default ``(window_size - 1) // 2``)
        :param window_right: frames right of the center (default: the rest of the window)
        :param axis: the axis to window (default ``"T"``)
        :param padding: ``"same"`` (lengths unchanged, default) or ``"valid"`` (only full windows)
        :param stride: step between windows (default 1)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        tmp = inp.copy_move_axis(ax, 0)  # time first
        x = tmp.placeholder
        if window_left is None:
            window_left = (window_size - 1) // 2 if window_right is None else window_size - 1 - window_right
        right = window_size - 1 - window_left
        size = tf.shape(x)[0]
        if padding == "same":
            x = tf.pad(x, [[window_left, right]] + [[0, 0]] * (tmp.batch_ndim - 1))
            n = size
        else:
            n = tf.maximum(size - window_size + 1, 0)
        frames = tf.stack([x[w:w + n] for w in range(window_size)], axis=1)  # [T, W, ...]
        if stride > 1:
            frames = frames[::stride]
        d = inp.dims[ax]
        time_pos, win_pos = _out_positions(ax)
        if d.is_dynamic() and d.dyn_size is not None:
            lens = d.dyn_size if padding == "same" else tf.maximum(d.dyn_size - window_size + 1, 0)
            if stride > 1:
                lens = (lens + stride - 1) // stride
            self.output.dims[time_pos].dyn_size = lens
        # frames: [T', W, rest of tmp axes...] → the output's layout
        # the output's other axes are the input's in their order (see get_out_data_from_opts): matched by position
        # (the input of concatenated sources may have an equal feature dim that is another Dim object)
        rest = iter(range(2, tmp.batch_ndim + 1))
        perm = [0 if k == time_pos else 1 if k == win_pos else next(rest) for k in range(self.output.batch_ndim)]
        self.output.placeholder = tf.transpose(frames, perm)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), window_size: int = 1, axis: Any = "T",
                               padding: str = "same", stride: int = 1, **kwargs: Any) -> Tensor:
        if padding not in ("same", "valid"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="padding", problem="invalid value",
                                got=padding, expected="'same' | 'valid'")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        d = inp.dims[ax]
        out = inp
        if padding == "valid" or stride > 1:
            if d.dimension is not None:
                size = d.dimension if padding == "same" else d.dimension - window_size + 1
                new = SpatialDim(f"{name}:window-time", -(-size // stride))
            else:
                desc = d.description if padding == "same" else f"{d.description}+-{window_size - 1}"
                new = SpatialDim(desc if stride == 1 else f"⌈({desc})/{stride}⌉", None)
            out = out.copy_template_replace_dim(ax, new)
        out = out.copy_add_dim(ax + 1, SpatialDim(f"{name}:window", window_size))
        if _out_positions(ax) == (1, 0):
            out = out.copy_transpose([ax + 1, ax] + [i for i in range(out.batch_ndim) if i not in (ax, ax + 1)])
        out.name = f"{name}_output"
        return out


def _out_positions(axis: int) -> Any:
    """:return: the output positions of the windowed axis and of the window axis (``axis``: the input's axis)"""
    if BehaviorVersion.get() >= 18:  # window axis, windowed axis, the rest in order (as the reference)
        return 1, 0
    return axis, axis + 1
