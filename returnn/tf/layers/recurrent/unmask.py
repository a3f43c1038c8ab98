"""``{"class": "unmask", "from": "x_masked", "mask": "m"}``: the output of a ``masked_computation`` back on the
frames of a rec loop (the reference's UnmaskLayer; values observed from it).

- Inside a rec loop: the input is already the held value of the current frame (a ``masked_computation`` keeps
  its last output where the mask is false), so the output is the input. When the ``masked_computation`` was moved
  out before the loop (it has ``masked_from``; its input is then ``{T', B, ...}`` over the masked frames), the
  layer keeps a state, the number of masked frames before the step (int32 ``[B]``), and gives the frame of the
  last masked frame up to the step (zeros before the first one), as the reference (observed).
- Moved out of the loop: an input on the loop's time axis is passed through; an input over the selected frames
  only (``{T', B, ...}``, e.g. a ``masked_computation`` with ``masked_from``) is spread over the loop's frames
  ``{T, B, ...}``: frame t gets the value of the last selected frame ``<= t``, zeros before the first one.
- Outside any rec layer: not supported (the reference fails too); raises :class:`returnn.errors.LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

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

    def __init__(self, mask: Any, rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, **kwargs: Any):
        """
        :param rec_previous_state: set by the rec loop, not in a config: in a loop over a ``masked_computation``
            moved out before it, ``{"count": int32 [B]}`` (the number of masked frames before this step)
        """
        super().__init__(**kwargs)
        src = self.sources[0].output
        mask_data = mask.output
        if mask_data.time_dim_axis is None and src.time_dim_axis is not None:
            self._pick_frame(src, mask_data, rec_previous_state)
            return
        if mask_data.time_dim_axis is None or src.get_time_dim_tag() == mask_data.get_time_dim_tag():
            out = src.copy_as_time_major() if self.output.time_dim_axis == 0 and src.time_dim_axis is not None \
                else src
            self.output.placeholder = out.placeholder
            return
        src_bm = src.copy_as_batch_major()
        mask_bm = mask_data.copy_as_batch_major()
        # the mask as it is, also past a sequence's end (as the reference, observed: the padded frames count the
        # mask there too, as the loop's steps do)
        spread = spread_held(src_bm.placeholder, tf.cast(mask_bm.placeholder, tf.bool))  # [B, T, ...]
        perm = [1, 0] + list(range(2, src_bm.batch_ndim))
        self.output.placeholder = tf.transpose(spread, perm)

    def _pick_frame(self, src: Tensor, mask_data: Tensor, state: Optional[Dict[str, tf.Tensor]]) -> None:
        """In a loop step, ``src`` over the masked frames ``{T', B, ...}``: the frame ``count + mask - 1`` of each
        sequence (zeros while it is below 0); the new state counts this step's mask."""
        src_bm = src.copy_as_batch_major()
        mask_raw = tf.cast(mask_data.copy_as_batch_major().placeholder, tf.int32)  # [B]
        count = state["count"] if state is not None else tf.zeros_like(mask_raw)
        count = count + mask_raw
        pos = count - 1
        n_frames = tf.shape(src_bm.placeholder)[src_bm.time_dim_axis]
        frames = tf.gather(src_bm.placeholder, tf.clip_by_value(pos, 0, tf.maximum(n_frames - 1, 0)),
                           axis=src_bm.time_dim_axis, batch_dims=1)  # [B, ...]
        valid = tf.reshape(tf.logical_and(pos >= 0, pos < n_frames),
                           tf.concat([tf.shape(pos), tf.ones([tf.rank(frames) - 1], tf.int32)], 0))
        value = tf.where(valid, frames, tf.zeros_like(frames))
        frame = src_bm.copy_template_excluding_time_dim()
        frame.placeholder = value
        self.output.placeholder = frame.copy_compatible_to(self.output).placeholder
        self.rec_state = {"count": count}

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:return: the state before the first step (in a loop over a ``masked_computation`` moved out before it):
        no masked frame counted yet, ``{"count": zeros int32 [B]}``"""
        return {"count": tf.zeros([batch_size], tf.int32)}

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
            if src.time_dim_axis is not None:  # over the masked frames, moved out before the loop: one frame
                return src.copy_template_excluding_time_dim().copy_template(name=f"{name}_output")
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
