"""``{"class": "masked_computation", "mask": "m", "from": "x", "unit": {...}}``: the ``unit`` (a layer dict, see
:mod:`.masked_unit`) computed only on the frames where ``mask`` is true (the reference's MaskedComputationLayer;
shapes and values observed from it).

Three situations:

- **Inside a rec loop** (the input is a frame ``{B, F}``, ``mask`` a bool ``{B}``): where the mask is true the unit
  computes a new output (and its layers' states advance); elsewhere the output *and* the unit's states keep their
  previous values (zeros before the first true frame). Output: the unit's frame template.
- **Moved out of a rec loop** (the loop's whole sequence ``{B, T, F}``, mask ``{B, T}``; the rec layer moves it out
  where the loop allows, as the reference): the unit runs over the selected frames only, and the result is spread
  back over the loop's time axis holding values as in the loop: ``{T, B, F'}`` (time-major). With
  ``masked_from`` (a layer outside the loop whose time axis already holds the selected frames, e.g. the labels of
  a transducer), the unit runs on that instead and the output keeps its time axis ``{T', B, F'}``; ``unmask``
  spreads it back.
- **Outside any rec layer**: the unit runs over the selected frames; output ``{T', B, F'}`` (time-major) with a new
  time dim (``out_spatial_dim``, else ``"<name>:masked:time"``) whose lengths are the number of selected frames.

Frames past a sequence's length never count as selected.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template
from returnn.tf.layers.recurrent.masked_unit import MaskedUnit
from returnn.tf.layers.recurrent.subnet.initial import initial_output_value
from returnn.tf.ops.rnn.mask_pack import pack_masked, spread_held

_OUTPUT_STATE = "output"
_HELD_PREFIX = "held:"  # the state keys of the held values of a subnetwork unit's layers ("held:<inner>")


def _no_base_layer(name: str) -> Any:
    raise LayerArgError(layer=None, layer_class="masked_computation", arg="initial_output",
                        problem="in the unit, a layer as initial_output is not supported:", got=name,
                        expected='None, "zeros", "ones" or a number')


def is_moved_out_net(network: Any) -> bool:
    """:return: whether ``network`` builds a rec unit's layers over the whole sequence outside its loop"""
    return bool(getattr(network, "rec_moved_out_of_loop", False))


@register_layer
class MaskedComputationLayer(LayerBase):
    """See the module docstring.

    :param mask: layer name, bool ``{B}`` in a loop, ``{B, T}`` otherwise (on the input's time axis); without
        ``from`` (default: none, as the reference) the unit's ``"data"`` is the mask, and the unit reads other layers
    :param unit: the layer dict computed on the selected frames
    :param masked_from: layer name (outside the loop) whose time axis holds the selected frames; used when the
        layer is moved out of a rec loop (ignored inside the loop)
    :param in_spatial_dim: the axis the mask selects from (default: the mask's time axis)
    :param out_spatial_dim: the new time dim of the selected frames (outside rec layers)
    :raises LayerArgError: bad ``unit``; a mask that is not bool
    :raises LayerShapeError: mask and input axes that do not match
    """

    layer_class = "masked_computation"
    recurrent = True
    has_rec_state = True  # in a loop: the held output and the unit's states
    can_run_over_time = True

    def __init__(self, mask: Any, unit: Any, masked_from: Any = None, in_spatial_dim: Optional[Dim] = None,
                 out_spatial_dim: Optional[Dim] = None, rec_previous_state: Optional[Dict[str, tf.Tensor]] = None,
                 _masked_unit: Optional[MaskedUnit] = None, **kwargs: Any):
        """
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        """
        super().__init__(**kwargs)
        masked = _masked_unit
        self._masked = masked
        self._sub_outputs: Dict[str, Tensor] = {}  # inner layer -> its value as a sub layer (held, in a loop)
        self._sub_layers: Dict[str, Any] = {}
        self._spread_over: Optional[Tuple[tf.Tensor, Dim, Dim]] = None  # moved out: selected [B, T], T, packed dim
        if masked_from is not None and is_moved_out_net(self.network):  # over the masked_from frames
            out = masked.build(masked_from.output.copy_as_batch_major(), one_step=False).output
            self.output.placeholder = _as_template(out, self.output)
            self.params.update(masked.params())
            self.sub_layer = masked.sub_layer
            return
        mask_data = mask.output
        if self.sources:
            src = self.sources[0].output if len(self.sources) == 1 else None
            data = concat_sources_template(self.sources, name=f"{self.name}/data", layer_class=self.layer_class)
            data.placeholder = concat_sources(self.sources, data) if src is None else src.placeholder
        else:  # no input (the unit reads other layers): the mask gives the frames
            data = mask_data.copy(name=f"{self.name}/data")
        if mask_data.time_dim_axis is None:  # one frame in a loop
            self._one_step(masked, data, mask_data, rec_previous_state)
            return
        moved_out = is_moved_out_net(self.network)
        bm = data.copy_as_batch_major()
        mask_bm = mask_data.copy_as_batch_major()
        seq_mask = tf.sequence_mask(mask_bm.get_sequence_lengths(), maxlen=tf.shape(mask_bm.placeholder)[1])
        selected = tf.logical_and(tf.cast(mask_bm.placeholder, tf.bool), seq_mask)
        time_axis = bm.time_dim_axis
        if time_axis != 1:
            raise LayerShapeError(layer=self.name, layer_class=self.layer_class,
                                  problem="the input's time axis must follow its batch axis",
                                  got=data.get_dims_repr())
        packed, lengths = pack_masked(bm.placeholder, selected)
        new_dim = masked.packed_dim
        if new_dim.dyn_size is None:
            new_dim.dyn_size = lengths
        unit_in = bm.copy_template_replace_dim(time_axis, new_dim)
        unit_in.placeholder = packed
        out = masked.build(unit_in, one_step=False, mask_time_dim=mask_data.get_time_dim_tag(),
                           selected=selected).output.copy_as_batch_major()
        if moved_out:  # back on the loop's time axis, holding values where the mask is false
            res = self._spread(out, selected, data.get_time_dim_tag(), masked.initial_output())
            self.output.placeholder = _as_template(res, self.output)
            self._spread_over = (selected, data.get_time_dim_tag(), new_dim)
        else:
            self.output.placeholder = _as_template(out, self.output)
        self.params.update(masked.params())
        self.sub_layer = masked.sub_layer

    @staticmethod
    def _spread(out: Tensor, selected: tf.Tensor, time_dim: Dim, initial_output: Any) -> Tensor:
        """:param out: batch-major, over the selected frames (its time axis)
        :param selected: bool ``[B, T]``
        :return: ``out`` spread over ``time_dim`` (the loop's): each frame holds the value of the last selected frame
            up to it, ``initial_output`` before the first one"""
        frame = out.copy_template_excluding_time_dim()
        batch = tf.shape(selected)[0]
        initial = initial_output_value(initial_output, frame.copy_as_batch_major(), batch, _no_base_layer)
        res = out.copy_template_replace_dim(out.time_dim_axis, time_dim)
        res.placeholder = spread_held(out.placeholder, selected, initial)
        return res

    def _one_step(self, masked: MaskedUnit, data: Tensor, mask_data: Tensor,
                  state: Optional[Dict[str, tf.Tensor]]) -> None:
        if state is None:
            batch = tf.shape(data.placeholder)[data.batch_dim_axis]
            state = self.get_rec_initial_state(batch, name=self.name, _masked_unit=masked)
        own = {k: v for k, v in state.items() if k != _OUTPUT_STATE and not k.startswith(_HELD_PREFIX)}
        mask_raw = tf.cast(mask_data.copy_as_batch_major().placeholder, tf.bool)  # [B]

        def select(new_value: tf.Tensor, old_value: tf.Tensor) -> tf.Tensor:
            cond = tf.reshape(mask_raw, tf.concat([tf.shape(mask_raw), tf.ones([tf.rank(new_value) - 1], tf.int32)],
                                                  0))
            return tf.where(cond, new_value, old_value)

        if data.sparse:
            # The unit runs on every frame and its result is kept only where the mask is true; elsewhere the
            # input need not be a valid class index (e.g. the blank of a transducer, outside the non-blank labels'
            # sparse dim), which an embedding lookup on CPU rejects: index 0 there instead (never used).
            bm = data.copy_as_batch_major()
            data = bm.copy()
            data.placeholder = select(bm.placeholder, tf.zeros_like(bm.placeholder))
        held_names = sorted(key[len(_HELD_PREFIX):] for key in state if key.startswith(_HELD_PREFIX))
        out_layer = masked.build(data, one_step=True, state=own, extra=held_names)
        new = _as_template(out_layer.output, self.output)
        self.output.placeholder = select(new, state[_OUTPUT_STATE])
        self.rec_state = {_OUTPUT_STATE: self.output.placeholder}
        for key, value in masked.new_state.items():
            self.rec_state[key] = select(value, state[key])
        for inner in held_names:  # the sub layers' values, held as the output
            template = masked.sub_template(inner)
            held = template.copy_template(name=f"{self.name}/{inner}")
            held.placeholder = select(_as_template(masked.layers[inner].output, template),
                                      state[_HELD_PREFIX + inner])
            self.rec_state[_HELD_PREFIX + inner] = held.placeholder
            self._sub_outputs[inner] = held
        self.params.update(masked.params())
        self.sub_layer = masked.sub_layer

    def get_sub_layer(self, layer_name: str) -> Any:
        """:return: layer ``layer_name`` of a subnetwork unit (``"<mc>/<inner>"``, as the reference): in a rec loop or
            moved out of it, its value held where the mask is false, as the output's; elsewhere over the selected
            frames; None if the unit has no such layer"""
        if layer_name in self._sub_layers:
            return self._sub_layers[layer_name]
        masked = self._masked
        out = self._sub_outputs.get(layer_name)
        if out is None:
            layer = masked.layers.get(layer_name) if masked.is_subnetwork else None
            if layer is None and masked.is_subnetwork and layer_name in masked.net_dict:
                layer = masked.build_more(layer_name)  # one the output does not need, as the reference
            if layer is None:
                return None
            out = layer.output
            if self._spread_over is not None and out.get_time_dim_tag() == self._spread_over[2]:
                selected, time_dim, _ = self._spread_over  # moved out of the loop: held as in the loop
                out = self._spread(out.copy_as_batch_major(), selected, time_dim,
                                   masked.initial_output(layer_name)).copy_as_time_major()
        from returnn.tf.layers.core.internal import InternalLayer
        self._sub_layers[layer_name] = InternalLayer(name=f"{self.name}/{layer_name}", network=self.network,
                                                     output=out.copy(name=f"{self.name}/{layer_name}"))
        return self._sub_layers[layer_name]

    @classmethod
    def get_sub_layer_out_data_from_opts(cls, layer_name: str, parent_layer_kwargs: Dict[str, Any]
                                         ) -> Optional[Tensor]:
        """:return: the template of layer ``layer_name`` of a subnetwork unit as :meth:`get_sub_layer` gives it (in
            a rec loop: its frame), or None"""
        masked = parent_layer_kwargs.get("_masked_unit")
        if masked is None or not masked.is_subnetwork or layer_name not in masked.net_dict:
            return None
        template = masked.sub_template(layer_name)
        return template.copy_template(name=f"{parent_layer_kwargs.get('name', 'masked')}/{layer_name}")

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``mask`` and ``masked_from`` to layers; prepares the unit (``_masked_unit``)."""
        keys = ("mask", "masked_from")
        if d.get("masked_from") is not None and is_moved_out_net(network):
            # moved out of a rec loop: the unit runs on masked_from; the mask and the input are not read (they may
            # be in the loop)
            keys = ("masked_from",)
            d["from"] = []
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        name = d["name"]
        for key in keys:
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])
        if d.get("mask") is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mask",
                                problem="missing required argument",
                                hint="a layer with a bool output, e.g. \"mask\": \"prev:output_emit\"")
        if "unit" not in d:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="unit",
                                problem="missing required argument")
        d["_masked_unit"] = MaskedUnit(name, d["unit"], network, get_layer, name_scope=d.get("name_scope"))

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), mask: Any = None, unit: Any = None,
                               masked_from: Any = None, in_spatial_dim: Any = None, out_spatial_dim: Any = None,
                               _masked_unit: Optional[MaskedUnit] = None, **kwargs: Any) -> Tensor:
        """:return: see the module docstring"""
        if masked_from is not None and is_moved_out_net(network):  # the unit over the masked_from frames
            unit_in = masked_from.output.copy_template().copy_as_batch_major()
            out = _masked_unit.build_templates(unit_in, one_step=False)
            return out.copy_as_time_major().copy_template(name=f"{name}_output")
        mask_data = mask.output
        data = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class) if sources \
            else mask_data.copy_template(name=f"{name}/data")  # no input: the mask gives the frames
        if mask_data.dtype != "bool":
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mask", problem="must be a bool layer:",
                                got=f"{mask.name!r} {mask_data.get_dims_repr()} {mask_data.dtype}")
        if mask_data.time_dim_axis is None:
            if data.time_dim_axis is not None:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem="a mask without time axis needs a frame as input (inside a rec loop)",
                                      got=f"input {data.get_dims_repr()}, mask {mask_data.get_dims_repr()}")
            return _masked_unit.build_templates(data, one_step=True).copy_template(name=f"{name}_output")
        time_dim = mask_data.get_time_dim_tag()
        if in_spatial_dim is not None and in_spatial_dim != time_dim:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="in_spatial_dim is not the mask's time axis", got=repr(in_spatial_dim))
        if data.time_dim_axis is None or data.get_time_dim_tag() != time_dim:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the input and the mask must have the same time axis",
                                  got=f"input {data.get_dims_repr()}, mask {mask_data.get_dims_repr()}")
        moved_out = is_moved_out_net(network)
        new_dim = out_spatial_dim if out_spatial_dim is not None else SpatialDim(f"{name}:masked:time")
        bm = data.copy_as_batch_major()
        unit_in = bm.copy_template_replace_dim(bm.time_dim_axis, new_dim)
        _masked_unit.packed_dim = new_dim
        out = _masked_unit.build_templates(unit_in, one_step=False, mask_time_dim=time_dim).copy_as_batch_major()
        if out.time_dim_axis is None or out.get_time_dim_tag() != new_dim:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the unit's output must keep the time axis of the selected frames",
                                  got=out.get_dims_repr())
        if moved_out:
            out = out.copy_template_replace_dim(out.time_dim_axis, time_dim)
        return out.copy_as_time_major().copy_template(name=f"{name}_output")

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, _masked_unit: Optional[MaskedUnit] = None,
                              **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:return: the state before the first step in a loop: ``"output"`` zeros of the output frame, and the
        unit's layers' initial states (``"<inner>/<key>"``)"""
        out = _masked_unit.templates[_masked_unit.output_name].output.copy_as_batch_major()
        shape = [batch_size if d.is_batch_dim() else d.dimension for d in out.dims]
        if any(s is None for s in shape):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="inside a rec loop, the unit's output frame needs static dims (besides "
                                          "the batch)", got=out.get_dims_repr())
        state = {_OUTPUT_STATE: initial_output_value(_masked_unit.initial_output(), out, batch_size, _no_base_layer)}
        state.update(_masked_unit.initial_state(batch_size))
        for inner in _masked_unit.held_names():
            frame = _masked_unit.templates[inner].output
            state[_HELD_PREFIX + inner] = initial_output_value(_masked_unit.initial_output(inner), frame, batch_size,
                                                               _no_base_layer)
        return state


def _as_template(out: Tensor, template: Tensor) -> tf.Tensor:
    """:return: raw of ``out`` in the axis order of ``template`` (same dims)"""
    if out.batch_ndim != template.batch_ndim:
        raise RuntimeError(f"masked_computation: unit output {out} does not match the template {template}")
    if template.time_dim_axis is not None and out.time_dim_axis is not None:
        if template.is_time_major and not out.is_time_major:
            return out.copy_as_time_major().placeholder
        if template.is_batch_major and not out.is_batch_major:
            return out.copy_as_batch_major().placeholder
    if template.batch_dim_axis is not None and out.batch_dim_axis is not None \
            and template.batch_dim_axis != out.batch_dim_axis:
        return out.copy_with_batch_dim_axis(template.batch_dim_axis).placeholder
    return out.placeholder
