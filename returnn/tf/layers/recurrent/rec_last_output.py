"""``{"class": "rec_last_output", "rec_layer": "dec", "sub_layer_name": "s"}``: the last frame of a layer of a rec
layer's unit, per sequence (the reference's RecLastOutputLayer; observed from it). The sub layer needs
``"need_last": True`` in its dict (the reference fails otherwise too).

Shape: the sub layer's frame ``{B, ...}``: its value at the last real step of each sequence (of each hypothesis
in a search); a frame without batch axis (e.g. a step counter): its value at the loop's last step.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class RecLastOutputLayer(LayerBase):
    """See the module docstring.

    :param rec_layer: a rec layer with a unit dict
    :param sub_layer_name: a layer of its unit with ``"need_last": True``
    :raises LayerArgError: not a rec layer with a unit dict; unknown sub layer; no ``need_last``
    """

    layer_class = "rec_last_output"

    def __init__(self, rec_layer: Any, sub_layer_name: str, **kwargs: Any):
        super().__init__(**kwargs)
        full = rec_layer.get_sub_layer(sub_layer_name).output
        lengths = rec_layer.output.get_sequence_lengths()
        if full.batch_dim_axis is None:  # a frame without batch axis (e.g. a step counter): the loop's last frame
            time_axis = full.dims.index(rec_layer.output.dims[rec_layer.output.time_dim_axis]) \
                if rec_layer.output.time_dim_axis is not None else full.time_dim_axis
            last = tf.maximum(tf.reduce_max(lengths) - 1, 0)
            self.output.placeholder = tf.gather(full.placeholder, last, axis=time_axis)
            return
        full = full.copy_as_time_major()  # [T, B, ...]
        if lengths.shape.rank == 0:  # a loop dim with one length for all sequences (e.g. the rec layer's "axis")
            lengths = tf.fill([tf.shape(full.placeholder)[full.batch_dim_axis]], lengths)
        last = tf.maximum(lengths - 1, 0)
        raw = tf.gather_nd(full.placeholder, tf.stack([last, tf.range(tf.shape(last)[0])], axis=1))
        frame = full.copy_template_excluding_time_dim()  # batch first now
        if frame.batch_dim_axis != self.output.batch_dim_axis:
            raise RuntimeError(f"rec_last_output {self.name!r}: unexpected axis order {frame} vs {self.output}")
        self.output.placeholder = raw

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``rec_layer``; no ``from`` needed."""
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("rec_layer"), str):
            d["rec_layer"] = get_layer(d["rec_layer"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, rec_layer: Any = None, sub_layer_name: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: the sub layer's frame template, batch-major"""
        cell = getattr(rec_layer, "cell", None)
        if cell is None or not hasattr(cell, "layers"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="rec_layer",
                                problem="needs a rec layer with a unit dict:",
                                got=getattr(rec_layer, "name", rec_layer))
        if sub_layer_name not in cell.layers:
            from returnn.util.suggest import close_matches
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="sub_layer_name",
                                problem=f"not a layer of the unit of {rec_layer.name!r}:", got=sub_layer_name,
                                suggestions=close_matches(str(sub_layer_name), list(cell.layers)))
        if not cell.unit[sub_layer_name].get("need_last"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="sub_layer_name",
                                problem="the sub layer needs \"need_last\": True (as in the reference):",
                                got=sub_layer_name,
                                hint=f"add \"need_last\": True to {rec_layer.name}/{sub_layer_name}")
        frame = cell.layers[sub_layer_name].output
        if frame.batch_dim_axis is not None:
            frame = frame.copy_as_batch_major()
        return frame.copy_template(name=f"{name}_output")
