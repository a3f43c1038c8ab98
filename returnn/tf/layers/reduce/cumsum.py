"""``{"class": "cumsum", "axis": "T"}``: cumulative sum along an axis.

Shape: unchanged. ``out[t] = sum_{t' <= t} (in[t'] + additional_left_summand_per_element)`` (``reverse``: over
``t' >= t``), on the raw padded tensor (padded frames are summed too, as the reference). Inside a rec unit, where
the frame has no time axis, ``axis="T"`` means the loop's time: the sum over the steps so far, carried from the
previous step (``prev:<layer>``, 0 before the first step); this needs the rec unit to pass the previous output
(``rec_previous_layer``), else :class:`LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _is_loop_time(inp: Tensor, axis: Any, network: Any) -> bool:
    return (network is not None and network.is_inside_rec_layer() and inp.time_dim_axis is None
            and isinstance(axis, str) and axis.upper() in ("T", "TIME"))


@register_layer
class CumsumLayer(ConcatInputLayer):
    """``tf.cumsum`` along ``axis``; over the loop's steps inside a rec unit."""

    layer_class = "cumsum"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, axis: Any = "T", additional_left_summand_per_element: Optional[Any] = None,
                 reverse: bool = False, rec_previous_layer: Any = None, **kwargs: Any):
        """
        :param axis: the axis to sum along (default ``"T"``; inside a rec unit: the loop's steps)
        :param additional_left_summand_per_element: a constant added to every element before summing
        :param reverse: sum from the end towards the start
        """
        super().__init__(**kwargs)
        inp = self.input_data
        x = inp.placeholder
        if additional_left_summand_per_element is not None:
            x = x + tf.cast(additional_left_summand_per_element, x.dtype)
        if _is_loop_time(inp, axis, self.network):
            if rec_previous_layer is None:
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="axis",
                                    problem="over the loop's time inside a rec unit needs the previous step's output, "
                                            "which this rec implementation does not pass (yet):", got=axis,
                                    hint="keep the cumsum outside the rec unit (it is moved out when it does not "
                                         "depend on prev: layers)")
            self.output.placeholder = rec_previous_layer.output.placeholder + x
            return
        ax = inp.get_axis_from_description(axis)
        self.output.placeholder = tf.cumsum(x, axis=ax, reverse=reverse)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", network: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises AxisDescriptionError: ``axis`` matches no or several axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if not _is_loop_time(inp, axis, network):
            inp.get_axis_from_description(axis)
        return inp
