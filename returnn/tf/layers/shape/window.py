"""``{"class": "window", "window_size": 3, "window_left": None, "window_right": None, "padding": "same"}``:
stack neighbouring frames along a new window axis right after the time axis.

Shape: ``{B, T, F} -> {B, T, W, F}`` (``padding="same"``: lengths unchanged, out-of-sequence frames are 0;
``"valid"``: lengths ``len - W + 1``). From ``behavior_version`` 18 on, as the reference, the raw layout is the
window axis first, then the windowed axis, then the other axes in their order: ``{B, T, F} -> {W, T, B, F}``. Default window is centered: ``window_left = (W-1)//2``. As the reference
(observed), the padded frames after a shorter sequence's end are used as they are (like a convolution does);
only frames outside the padded batch are zeros.

``window_dim`` (a Dim) gives the window axis and its size instead of ``window_size``.

Inside a rec loop (the input a frame ``{B, F}`` without the loop's time axis, ``axis`` the time), the window is over
the loop's steps, as the reference: the frames of the last ``W`` steps, oldest first, ``{B, W, F}``, zeros before the
first step; only ``window_right=0`` (the window cannot look ahead). The last ``W - 1`` frames are the loop state.
Moved out of the loop it is the window over the loop's time, with equal values.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template, keep_input_frame_template
from returnn.util.behavior_version import BehaviorVersion


@register_layer
class WindowLayer(ConcatInputLayer):
    """Sliding window over time."""

    layer_class = "window"
    recurrent = True  # depends on other frames (as the reference's class)
    has_rec_state = True  # inside a rec loop over the loop's time: the last frames ({} for other axes)
    can_run_over_time = True  # moved out of the loop: the window over the loop's time

    def __init__(self, window_size: Optional[int] = None, window_dim: Optional[Dim] = None,
                 window_left: Optional[int] = None, window_right: Optional[int] = None, axis: Any = "T",
                 padding: str = "same", stride: int = 1, rec_previous_state: Optional[Dict[str, tf.Tensor]] = None,
                 _in_frame: Any = None, **kwargs: Any):
        """
        :param window_size: frames per window
        :param window_dim: the window axis (its size the frames per window), instead of ``window_size``
        :param window_left: frames left of the center (default ``(window_size - 1) // 2``)
        :param window_right: frames right of the center (default: the rest of the window)
        :param axis: the axis to window (default ``"T"``)
        :param padding: ``"same"`` (lengths unchanged, default) or ``"valid"`` (only full windows)
        :param stride: step between windows (default 1)
        :param rec_previous_state: set by the rec loop, not in a config: the frames of the previous steps
        :param _in_frame: set by :meth:`transform_config_dict`, not in a config: the input frame's template
        """
        super().__init__(**kwargs)
        window_size = _window_size(self.name, window_size, window_dim)
        inp = self.input_data
        if _is_loop_time(inp, axis, self.network):
            self._step(inp, window_size, window_left, window_right, rec_previous_state)
            return
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

    def _step(self, inp: Tensor, window_size: int, window_left: Optional[int], window_right: Optional[int],
              rec_previous_state: Optional[Dict[str, tf.Tensor]]) -> None:
        """One step of a rec loop: this frame after the frames of the last ``window_size - 1`` steps."""
        _check_loop_window(self.name, window_size, window_left, window_right)
        x = inp.copy_as_batch_major().placeholder  # [B, ...]
        if rec_previous_state is None:  # one step outside of a loop's state handling
            rec_previous_state = self.get_rec_initial_state(tf.shape(x)[0], name=self.name, window_size=window_size,
                                                            _in_frame=inp, network=self.network)
        frames = tf.concat([rec_previous_state[_STATE], tf.expand_dims(x, 1)], axis=1)  # [B, W, ...]
        self.rec_state = {_STATE: frames[:, 1:]}
        self.output.placeholder = frames

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Also keeps the input frame template (``_in_frame``) for :meth:`get_rec_initial_state`."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        keep_input_frame_template(d, layer_class=cls.layer_class)

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, window_size: Optional[int] = None,
                              window_dim: Optional[Dim] = None, axis: Any = "T", _in_frame: Any = None,
                              network: Any = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """For a window over the loop's time (called by the rec loop).

        :return: ``{"history": zeros}`` ``{B, W - 1, ...}`` (the frame's other dims), the frames before the first
            step; ``{}`` for a window along another axis (no state)
        :raises LayerShapeError: a frame with a dynamic axis besides the batch"""
        frame = _in_frame  # (called by the loop: a frame without the axis is over the loop's time)
        if frame is None or (axis in frame.dims if isinstance(axis, Dim) else not (
                frame.time_dim_axis is None and isinstance(axis, str) and axis.upper() in ("T", "TIME"))):
            return {}
        window_size = _window_size(name, window_size, window_dim)
        frame = frame.copy_as_batch_major()
        shape = [batch_size, window_size - 1] + [d.dimension for d in frame.dims[1:]]
        if any(s is None for s in shape):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="a window over the loop's time needs a frame with static dims besides the "
                                          "batch", got=frame.get_dims_repr())
        return {_STATE: tf.zeros(tf.stack(shape), dtype=frame.dtype)}

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), window_size: Optional[int] = None,
                               window_dim: Optional[Dim] = None, axis: Any = "T", padding: str = "same",
                               stride: int = 1, network: Any = None, **kwargs: Any) -> Tensor:
        """:return: the input with the window axis (see the module docstring)"""
        if padding not in ("same", "valid"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="padding", problem="invalid value",
                                got=padding, expected="'same' | 'valid'")
        window_size = _window_size(name, window_size, window_dim)
        win = window_dim if window_dim is not None else SpatialDim(f"{name}:window", window_size)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if _is_loop_time(inp, axis, network):
            out = inp.copy_as_batch_major().copy_add_dim(1, win)
            return out.copy_template(name=f"{name}_output")
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
        out = out.copy_add_dim(ax + 1, win)
        if _out_positions(ax) == (1, 0):
            out = out.copy_transpose([ax + 1, ax] + [i for i in range(out.batch_ndim) if i not in (ax, ax + 1)])
        out.name = f"{name}_output"
        return out


_STATE = "history"


def _window_size(name: str, window_size: Optional[int], window_dim: Optional[Dim]) -> int:
    """:return: the frames per window, from ``window_size`` or ``window_dim``
    :raises LayerArgError: neither, or both and they differ"""
    if window_dim is not None:
        if not isinstance(window_dim, Dim) or window_dim.dimension is None:
            raise LayerArgError(layer=name, layer_class="window", arg="window_dim", problem="invalid value",
                                got=window_dim, expected="a Dim with a static size")
        if window_size is not None and window_size != window_dim.dimension:
            raise LayerArgError(layer=name, layer_class="window", arg="window_size",
                                problem=f"disagrees with window_dim {window_dim} in", got=window_size,
                                expected=f"{window_dim.dimension} or no window_size")
        return window_dim.dimension
    if window_size is None:
        raise LayerArgError(layer=name, layer_class="window", arg="window_size", problem="missing required argument",
                            hint="give window_size (int) or window_dim (a Dim)")
    return window_size


def _is_loop_time(inp: Tensor, axis: Any, network: Any) -> bool:
    """:return: whether ``axis`` is the loop's time for a frame ``inp`` inside a rec loop"""
    if network is None or not network.is_inside_rec_layer():
        return False
    if isinstance(axis, Dim):
        return axis not in inp.dims and axis == network.get_inside_rec_time_dim()
    return inp.time_dim_axis is None and isinstance(axis, str) and axis.upper() in ("T", "TIME")


def _check_loop_window(name: str, window_size: int, window_left: Optional[int], window_right: Optional[int]) -> None:
    """:raises LayerArgError: a window over the loop's time that looks ahead (``window_right`` not 0)"""
    left = window_left
    if left is None:  # as over time (see WindowLayer.__init__)
        left = (window_size - 1) // 2 if window_right is None else window_size - 1 - window_right
    if left != window_size - 1:
        raise LayerArgError(layer=name, layer_class="window", arg="window_right",
                            problem="inside a rec loop the window cannot look ahead:",
                            got=f"window_left={window_left}, window_right={window_right}",
                            expected="window_right=0 (window_left None or window_size - 1)")


def _out_positions(axis: int) -> Any:
    """:return: the output positions of the windowed axis and of the window axis (``axis``: the input's axis)"""
    if BehaviorVersion.get() >= 18:  # window axis, windowed axis, the rest in order (as the reference)
        return 1, 0
    return axis, axis + 1
