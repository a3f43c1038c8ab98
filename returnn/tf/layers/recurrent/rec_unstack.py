"""``{"class": "rec_unstack", "from": "base:x", "axis": "T"}``: inside a rec loop, the frame of a whole sequence
at the current step (the reference's RecUnstackLayer; observed from it).

- Moved out of the loop (as the reference always does; here whenever the loop allows it): the input unchanged,
  whose ``axis`` (default: its time axis) is the loop's time axis.
- In the loop (e.g. in a search, where nothing is moved out): the input's frame at the step index, ``{B, ...}``
  without ``axis``.
- ``declare_rec_time=True``: the rec layer's loop runs over ``axis`` of this layer's input (a rec layer without
  ``from``).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template

UNSTACKS_OVER_LOOP = True  # the rec unit's classification: an input layer with the loop's time axis


def unstack_axis(name: str, data: Tensor, axis: Any) -> int:
    """:return: the axis of ``data`` that is unstacked (``axis``, default the time axis)
    :raises LayerShapeError: no such axis"""
    if axis is None:
        if data.time_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class="rec_unstack", problem="the input has no time axis",
                                  got=data.get_dims_repr(), hint='set "axis"')
        return data.time_dim_axis
    return data.get_axis_from_description(axis)


@register_layer
class RecUnstackLayer(LayerBase):
    """See the module docstring.

    :param axis: the axis to unstack (default: the input's time axis)
    :param declare_rec_time: the loop of the enclosing rec layer runs over this axis
    :raises LayerArgError: used outside a rec layer
    """

    layer_class = "rec_unstack"
    unstacks_over_loop = UNSTACKS_OVER_LOOP

    def __init__(self, axis: Any = None, declare_rec_time: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        data = concat_sources_template(self.sources, name=f"{self.name}/data", layer_class=self.layer_class)
        data.placeholder = concat_sources(self.sources, data)
        if not self.network.is_inside_rec_layer():  # moved out: the whole sequence
            self.output.placeholder = data.placeholder
            return
        i = self.network.get_rec_step_index()
        self.output.placeholder = tf.gather(data.placeholder, i, axis=unstack_axis(self.name, data, axis))

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: in the loop the input without ``axis``; moved out of it the input"""
        if not sources:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs an input:", got=[])
        data = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class)
        if not network.is_inside_rec_layer():
            if not getattr(network, "rec_moved_out_of_loop", False):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                    problem="rec_unstack must be used inside a rec layer's unit, not in",
                                    got=repr(network))
            return data.copy_template(name=f"{name}_output")
        return data.copy_template_excluding_axis(unstack_axis(name, data, axis)).copy_template(name=f"{name}_output")
