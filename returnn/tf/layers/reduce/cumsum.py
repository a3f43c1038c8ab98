"""``{"class": "cumsum", "axis": "T"}``: cumulative sum along an axis.

Shape: unchanged. ``out[t] = sum_{t' <= t} (in[t'] + additional_left_summand_per_element)`` (``reverse``: over
``t' >= t``), on the raw padded tensor (padded frames are summed too, as the reference).

Inside a rec unit, where the frame has no time axis, ``axis="T"`` or the loop's own dim (the rec layer's time dim)
means the loop's time: the sum over the steps so far, a state carried from step to step, starting at the layer's
``initial_output`` (default 0): ``out[i] = out[i - 1] + in[i]`` with ``out[-1] = initial_output``. Moved out of the
loop (training) it is the same over the whole sequence: ``initial_output + cumsum(in)`` over the loop's axis (as the
reference, observed: equal outputs in and out of the loop). ``reverse`` over the loop's time is an error.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template, keep_input_frame_template

_STATE = "sum"


def _is_loop_time(inp: Tensor, axis: Any, network: Any) -> bool:
    """:return: whether ``axis`` is the loop's time for a frame ``inp`` inside a rec loop"""
    if network is None or not network.is_inside_rec_layer():
        return False
    if isinstance(axis, Dim):
        return axis not in inp.dims and axis == network.get_inside_rec_time_dim()
    return inp.time_dim_axis is None and isinstance(axis, str) and axis.upper() in ("T", "TIME")


def _initial_value(initial_output: Any) -> float:
    """:return: the start of the sum over the loop's time (``initial_output``: None/"zeros" 0, "ones" 1, a number)"""
    if initial_output in (None, "zeros"):
        return 0.0
    if initial_output == "ones":
        return 1.0
    if isinstance(initial_output, (int, float)) and not isinstance(initial_output, bool):
        return float(initial_output)
    raise LayerArgError(layer=None, layer_class="cumsum", arg="initial_output", problem="invalid value",
                        got=initial_output, expected='None, "zeros", "ones" or a number (the sum before the first '
                                                     "step)")


@register_layer
class CumsumLayer(ConcatInputLayer):
    """``tf.cumsum`` along ``axis``; over the loop's steps inside a rec unit."""

    layer_class = "cumsum"
    recurrent = True  # depends on other frames (as the reference's class)
    has_rec_state = True  # inside a rec loop over the loop's time: the sum so far ({} for other axes)
    can_run_over_time = True  # moved out of the loop: the cumsum over the loop's axis

    def __init__(self, axis: Any = "T", additional_left_summand_per_element: Optional[Any] = None,
                 reverse: bool = False, initial_output: Any = None,
                 rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, _in_frame: Any = None, **kwargs: Any):
        """
        :param axis: the axis to sum along (default ``"T"``; inside a rec unit: the loop's steps)
        :param additional_left_summand_per_element: a constant added to every element before summing
        :param reverse: sum from the end towards the start
        :param initial_output: the sum before the loop's first step (inside or moved out of a rec unit; default 0)
        :param rec_previous_state: set by the rec loop, not in a config: the sum of the previous steps
        """
        super().__init__(initial_output=initial_output, **kwargs)
        inp = self.input_data
        x = inp.placeholder
        self.rec_state: Dict[str, tf.Tensor] = {}
        if additional_left_summand_per_element is not None:
            x = x + tf.cast(additional_left_summand_per_element, x.dtype)
        if _is_loop_time(inp, axis, self.network):
            if reverse:
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="reverse",
                                    problem="a sum over the loop's time inside a rec unit cannot run backwards:",
                                    got=reverse)
            if rec_previous_state is None:  # one step outside of a loop's state handling
                rec_previous_state = self.get_rec_initial_state(tf.shape(x)[inp.batch_dim_axis], name=self.name,
                                                                axis=axis, initial_output=initial_output,
                                                                _in_frame=inp)
            y = rec_previous_state[_STATE] + x
            self.rec_state = {_STATE: y}
            self.output.placeholder = y
            return
        ax = inp.get_axis_from_description(axis)
        y = tf.cumsum(x, axis=ax, reverse=reverse)
        loop_dim = self.network.get_inside_rec_time_dim(inside_loop=False)
        if (loop_dim is not None and inp.dims[ax] == loop_dim and not self.network.is_inside_rec_layer()
                and not reverse):  # moved out of the loop: start at initial_output, as in the loop
            start = _initial_value(initial_output)
            if start:
                y = y + tf.cast(start, y.dtype)
        self.output.placeholder = y

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Also keeps the input frame template (``_in_frame``) for :meth:`get_rec_initial_state`."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        keep_input_frame_template(d, layer_class=cls.layer_class)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", network: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises AxisDescriptionError: ``axis`` matches no or several axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if not _is_loop_time(inp, axis, network):
            inp.get_axis_from_description(axis)
        return inp

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, axis: Any = "T", initial_output: Any = None,
                              _in_frame: Any = None, network: Any = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """For a sum over the loop's time (called by the rec loop).

        :return: ``{"sum": initial_output}`` with the frame's shape (batch axis of ``batch_size``); ``{}`` for a sum
            along another axis (no state)"""
        frame = _in_frame
        if frame is None or frame.time_dim_axis is not None and not isinstance(axis, Dim):
            return {}
        if isinstance(axis, Dim) and axis in frame.dims:
            return {}
        if isinstance(axis, str) and axis.upper() not in ("T", "TIME"):
            return {}
        shape = [batch_size if d.is_batch_dim() else d.dimension for d in frame.dims]
        if any(s is None for s in shape):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axis",
                                problem="a sum over the loop's time needs a frame with static dims besides the batch:",
                                got=frame.get_dims_repr())
        try:
            start = _initial_value(initial_output)
        except LayerArgError as exc:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="initial_output", problem=exc.problem,
                                got=initial_output, expected=exc.expected) from None
        return {_STATE: tf.fill(tf.stack(shape), tf.cast(start, frame.dtype))}  # (e.g. int32 frames: 1.0 -> 1)
