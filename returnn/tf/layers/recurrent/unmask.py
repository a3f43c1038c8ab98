"""``{"class": "unmask", "from": "x_masked", "mask": "m"}``: the output of a ``masked_computation`` back on the
frames of a rec loop (the reference's UnmaskLayer; values observed from it).

- Inside a rec loop: the input is already the held value of the current frame (a ``masked_computation`` keeps
  its last output where the mask is false), so the output is the input.
- Moved out of the loop: an input on the loop's time axis is passed through; an input over the selected frames
  only (``{T', B, ...}``, e.g. a ``masked_computation`` with ``masked_from``) is spread over the loop's frames
  ``{T, B, ...}``: frame t gets the value of the last selected frame ``<= t``, zeros before the first one.
- Outside any rec layer: not supported (the reference fails too); raises :class:`returnn.errors.LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.recurrent.masked_computation import is_moved_out_net
from returnn.tf.ops.rnn.mask_pack import spread_held


@register_layer
class UnmaskLayer(LayerBase):
    """See the module docstring.

    :param mask: layer name: bool ``{B}`` inside a loop, ``{B, T}`` over the loop's time axis when moved out
    :raises LayerArgError: used outside a rec layer; no ``mask``
    :raises LayerShapeError: an input whose time axis is neither the mask's nor a masked one
    """

    layer_class = "unmask"
    recurrent = True

    def __init__(self, mask: Any, **kwargs: Any):
        super().__init__(**kwargs)
        src = self.sources[0].output
        mask_data = mask.output
        if mask_data.time_dim_axis is None or src.get_time_dim_tag() == mask_data.get_time_dim_tag():
            out = src.copy_as_time_major() if self.output.time_dim_axis == 0 and src.time_dim_axis is not None \
                else src
            self.output.placeholder = out.placeholder
            return
        src_bm = src.copy_as_batch_major()
        mask_bm = mask_data.copy_as_batch_major()
        seq_mask = tf.sequence_mask(mask_bm.get_sequence_lengths(), maxlen=tf.shape(mask_bm.placeholder)[1])
        selected = tf.logical_and(tf.cast(mask_bm.placeholder, tf.bool), seq_mask)
        spread = spread_held(src_bm.placeholder, selected)  # [B, T, ...]
        perm = [1, 0] + list(range(2, src_bm.batch_ndim))
        self.output.placeholder = tf.transpose(spread, perm)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``mask`` to a layer."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if not isinstance(d.get("mask"), str):
            raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="mask",
                                problem="missing required argument (a layer name)", got=d.get("mask"))
        d["mask"] = get_layer(d["mask"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), mask: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: in a loop the input frame; moved out of it ``{T, B, ...}`` on the loop's time axis"""
        if not sources:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs an input layer:",
                                got=[])
        src = sources[0].output
        mask_data = mask.output
        if mask_data.time_dim_axis is None:
            if not network.is_inside_rec_layer():
                raise _not_in_rec(name)
            return src.copy_template(name=f"{name}_output")
        if not is_moved_out_net(network):
            raise _not_in_rec(name)
        time_dim = mask_data.get_time_dim_tag()
        if src.time_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the input needs a time axis (the masked frames) outside the loop",
                                  got=src.get_dims_repr())
        out = src.copy_as_time_major()
        if src.get_time_dim_tag() != time_dim:
            out = out.copy_template_replace_dim(0, time_dim)
        return out.copy_template(name=f"{name}_output")


def _not_in_rec(name: str) -> LayerArgError:
    return LayerArgError(layer=name, layer_class="unmask", arg="mask",
                         problem="unmask only works inside a rec layer's unit (as in the reference):",
                         hint="use it in the unit of a rec layer, next to the masked_computation layer")
