"""A recurrent subnetwork's loop and what surrounds it: the layers moved out of the loop (before it over the input
frames, after it over the accumulated outputs), the loop-external values the loop reads (base layers, data, tiled
into the beam in search), the ``tf.while_loop`` itself (:mod:`.while_loop`; one step: :mod:`.step`), and the rec
layer's output, search beam, losses and params.

Loop variables (:class:`returnn.tf.layers.recurrent.subnet.while_loop.LoopVars`): the step ``i``; ``prev:X`` values of
loop layers referenced via ``prev:``; the cell states of ``rnn_cell`` layers; one TensorArray per loop layer whose
output is needed after the loop (time-major accumulation); with a dynamic length (``end`` layer): ``ended``
``[B*K]`` and the hypothesis lengths; in search: the beam scores ``[B, K]`` and a TensorArray of source beams
``[B, K]`` per step.

Search with several ``choice`` layers in one step: a layer's *level* is the number of the step's choices it comes
after (:attr:`SubnetworkRecCell.choice_level`); the rows of level 0 are the previous step's ``K`` hypotheses, those
of level ``j`` the hypotheses of the ``j``-th choice. A layer reading a value of a lower level (a ``prev:`` value,
a layer before a choice; ``base:`` layers where the beam sizes differ) gets it gathered by the composed source
rows of the choices in between (:meth:`returnn.tf.layers.recurrent.subnet.step.LoopStep.rows_between`); ``K`` is
the last choice's beam size.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core import kept_state
from returnn.tf.layers.recurrent.subnet.move_out import OutsideNet, loop_major, make_internal, register_losses
from returnn.tf.layers.recurrent.subnet.while_loop import run_while_loop
from returnn.tf.layers.search.beam import SearchBeam, beam_dim, beam_dim_base, tile_beam


def _batch_size(cell: Any, rec_layer: Any) -> tf.Tensor:
    if rec_layer.input_data is not None and rec_layer.input_data.batch_dim_axis is not None:
        data = rec_layer.input_data
        return tf.shape(data.placeholder)[data.batch_dim_axis]
    if cell.time_dim is not None and cell.time_dim.dyn_size is not None and cell.time_dim.dyn_size.shape.rank == 1:
        return tf.shape(cell.time_dim.dyn_size)[0]
    net = cell.parent_net
    keys = [net.extern_data.default_input] + sorted(net.get_used_data_keys() or list(net.extern_data.data))
    for key in keys:
        data = net.extern_data.data.get(key)
        if data is None or (cell.search and not data.available_for_inference):
            continue
        if data.placeholder is not None and data.batch_dim_axis is not None:
            return tf.shape(data.placeholder)[data.batch_dim_axis]
    raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="from",
                        problem="cannot determine the batch size of the loop (no input, no target):", got=[])


class _Loop:
    """State shared by the loop's setup, body and finalisation."""

    def __init__(self, cell: Any, rec_layer: Any):
        self.cell = cell
        self.rec_layer = rec_layer
        self.beam = cell.beam_size if cell.search else 1
        # without a search of its own, a loop over the frames of a target of a search's hypotheses (e.g. a teacher's
        # beam registered as data, batch B*K): the layers outside it, without that beam, are tiled into it (as the
        # reference, observed: test_target_with_beam); the loop's batch is the target's B*K
        self.outside_beam = _target_beam_size(cell) if not cell.search else 1
        self.max_len: Optional[tf.Tensor] = None  # int32 scalar, the loop's maximal length (set by the loop)
        self.batch_size = _batch_size(cell, rec_layer)
        self._dim_map: Dict[Any, Any] = {}
        self._other_dim_maps: Dict[int, Dict[Any, Any]] = {}
        self._base: Dict[str, Any] = {}
        self._data: Dict[str, Any] = {}
        self._static: Dict[str, Any] = {}  # loop-invariant layers computed before the loop, tiled
        self.frame_templates = {n: cell.layers[n].output for n in cell.layers}
        self.step_layers: Dict[str, Any] = {}  # name -> the layer built in the loop's body (set by the while loop)
        self.full_source = None
        self.full_source_tiled = None
        if rec_layer.input_data is not None:
            src = rec_layer.input_data.copy_as_time_major()
            self.full_source = make_internal("data:source", cell.sub_net, src)
            self.full_source_tiled = self.full_source
            if self.beam > 1:
                self.full_source_tiled = make_internal("data:source", cell.sub_net,
                                                       tile_beam(src, self.beam, self._dim_map))
        from returnn.tf.network import TFNetwork
        before_seed, after_seed = rec_layer.moved_out_seeds
        outside_net = TFNetwork(parent_net=cell.parent_net, absolute_name_prefix=cell.sub_prefix,
                                name=cell.rec_name, rnd_seed=after_seed if before_seed is None else before_seed,
                                absolute_name_scope_prefix=cell.sub_scope_prefix)
        self.after_loop_seed = after_seed
        outside_net.rec_loop_dim = cell.time_dim if cell.time_dim is not None else cell.time_dim_out
        self.outside = OutsideNet(cell, outside_net, self.full_source, self.batch_size)
        if self.outside_beam > 1:
            self.outside.tiled_base = self.base_layer
        cell.input_layers_net = cell.output_layers_net = outside_net

    def tile(self, layer: Any, name: str) -> Any:
        if self.outside_beam > 1 and layer.output.beam is None:  # see __init__
            return make_internal(name, self.cell.sub_net, tile_beam(layer.output, self.outside_beam, self._dim_map))
        if self.beam == 1:
            return layer
        return make_internal(name, self.cell.sub_net, tile_beam(layer.output, self.beam, self._dim_map))

    def base_layer(self, name: str) -> Any:
        if name not in self._base:
            # ``name`` as the enclosing network names it (``"base:x"`` there: of the network around that one)
            self._base[name] = self.tile(self.cell.parent_net.get_layer(name), f"base:{name}")
        return self._base[name]

    def static_layer(self, name: str) -> Any:
        """:return: the whole value of the loop-invariant layer ``name`` computed before the loop (``"x/y"``: a sub
        layer of one), for the loop's hypotheses in search (tiled as a ``base:`` layer)"""
        if name not in self._static:
            self._static[name] = self.tile(self.outside.get_full(name), name)
        return self._static[name]

    def data_layer(self, name: str) -> Any:
        if name not in self._data:
            self._data[name] = self.tile(self.cell.parent_net.get_layer(name), name)
        return self._data[name]

    def in_beam(self, template: Tensor, beam: Optional[int] = None) -> Tensor:
        """:return: ``template`` (a frame of a loop layer, e.g. the value ``prev:x`` reads) with each dynamic axis that
        the loop's beam repeats (an axis of a tiled base layer, lengths ``[B]``, or its variant for another beam)
        replaced by its variant for the hypotheses (lengths ``[B*K]``), as the layers of the step have it; with
        ``beam``: for ``beam`` hypotheses per sequence (a search level with another beam size, see
        :mod:`.levels`), without raw tensor"""
        beam = self.beam if beam is None else beam
        if self.beam == 1 or not self._dim_map:
            return template
        variants = self.dim_variants(beam)
        out = template
        for axis, dim in enumerate(template.dims):
            if dim.is_dynamic() and not dim.is_batch_dim():
                base = beam_dim_base(dim)
                variant = variants.get(dim.get_same_base() if base is None else base)
                if variant is not None and variant is not dim:
                    out = out.copy_template_replace_dim_tag(axis, variant)
        return out

    def dim_variants(self, beam: int) -> Dict[Any, Any]:
        """:return: for each dynamic axis the loop's beam repeats (see :meth:`in_beam`), its variant for ``beam``
        hypotheses per sequence (created once, by :meth:`prepare_beams` before the loop)"""
        if beam == self.beam:
            return self._dim_map
        if beam not in self._other_dim_maps:
            self._other_dim_maps[beam] = {base: base if beam == 1 else _beam_variant(base, variant, self.beam, beam)
                                          for base, variant in self._dim_map.items()}
        return self._other_dim_maps[beam]

    def prepare_beams(self, beams: Any) -> None:
        """Creates the dim variants (:meth:`dim_variants`) of the search levels' other beam sizes ``beams``, outside
        the loop's control flow."""
        for beam in sorted(set(beams)):
            self.dim_variants(beam)

    def tile_raw(self, raw: tf.Tensor, axis: Optional[int] = 0) -> tf.Tensor:
        if self.beam == 1 or axis is None:
            return raw
        return tf.repeat(raw, self.beam, axis=axis)


def _target_beam_size(cell: Any) -> int:
    """:return: the beam size of the data whose frames the loop runs over (its length source, a target), 1 for data
    without a beam"""
    key = cell.size_target or cell.target
    if not isinstance(key, str) or cell.time_dim is None:
        return 1
    data = cell.parent_net.extern_data.data.get(key)
    if data is None or data.beam is None or data.time_dim is not cell.time_dim:
        return 1
    return int(data.beam.beam_size)


def _beam_variant(base: Any, loop_variant: Any, loop_beam: int, beam: int) -> Any:
    """:return: the variant of dynamic dim ``base`` for ``beam`` hypotheses per sequence (lengths repeated; those
    of ``base`` from its variant for the loop's beam ``loop_beam``)"""
    new = beam_dim(base, f"{base.description}:beam{beam}")
    lengths = tf.reshape(loop_variant.dyn_size, [-1, loop_beam])[:, 0]
    new.dyn_size = tf.repeat(lengths, beam, axis=0)
    new.__dict__["_created_by_layer"] = base.__dict__.get("_created_by_layer")  # "stag:<layer>" finds it
    return new


def _collect_params(rec_layer: Any, unit_layers: Dict[str, Any]) -> None:
    """The rec layer's ``params``: the variables of its scope (keys relative to ``<rec layer>/rec/``, as the
    reference, observed: ``"output/W"``), without states kept over runs; the params of its unit's layers
    (``unit_layers``: the moved-out and the step layers) outside that scope (the rec layer's ``name_scope`` ``""``, a
    unit layer's absolute ``name_scope``) under their variable names. A rec layer with
    ``"trainable": False`` makes its unit's params untrainable."""
    scope = tf.compat.v1.get_variable_scope().name
    if scope:
        for var in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, scope=scope + "/"):
            if kept_state.is_state_var(var):  # no param (initial_state "keep_over_epoch")
                continue
            key = var.name[len(scope) + 1:-2]
            if key.startswith("rec/"):  # relative to "<rec layer>/rec/", as the reference (observed): "output/W"
                key = key[len("rec/"):]
            rec_layer.params[key] = var
    # name_scope "": the unit's layers' params are in the root scope; those of its layers; also the params of a
    # unit layer with an absolute name_scope outside the rec layer's scope ("/enc_ctx"), which the reference's network
    # has too (observed: "enc_ctx/W" in get_params_list); both under their variable names
    in_scope = {id(var) for var in rec_layer.params.values()}
    for name, layer in sorted(unit_layers.items()):
        for key, var in layer.params.items():
            if id(var) not in in_scope and not kept_state.is_state_var(var):
                rec_layer.params.setdefault(var.name[:-2] if var.name.endswith(":0") else var.name, var)
    if not rec_layer.trainable:  # as the reference (observed): also the unit's layers with "trainable": True
        # (only the params of this unit's own layers: another rec layer may share the scope, "name_scope")
        own = {id(var) for layer in unit_layers.values() for var in layer.params.values()}
        trainable = tf.compat.v1.get_collection_ref(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
        for var in rec_layer.params.values():
            if id(var) in own and var in trainable:
                trainable.remove(var)


def build_loop(cell: Any, rec_layer: Any) -> None:
    """Builds everything of the rec layer with a unit dict (see :mod:`returnn.tf.layers.recurrent.subnet.cell`)."""
    with tf.compat.v1.variable_scope("rec"):
        loop = _Loop(cell, rec_layer)
        # all loop-external dependencies (tiled base layers, data) before the loop, outside its control flow
        for name in sorted(cell.loop):
            for base in cell.layers[name].base_deps:
                loop.base_layer(base)
            for data in cell.layers[name].data_deps:
                if data.startswith("data:") and data != "data:source":
                    loop.data_layer(data)
        if cell.search and cell.choices:  # the dims of the levels with another beam size (see .levels)
            loop.prepare_beams(cell.level_beam(level) for level in range(len(cell.choices) + 1))
        for name in cell.inputs_before_loop:
            loop.outside.get_full(name)
        for name in sorted(cell.loop):  # prev: of moved-out input layers, as shifted full sequences
            for prev in cell.layers[name].prev_deps:
                if prev in cell.inputs:
                    loop.outside.get_shifted(prev)
        full_layers: Dict[str, Any] = {n: loop.outside.get_full(n) for n in cell.inputs_before_loop}
        if cell.loop:
            acc_full, lengths = run_while_loop(cell, loop)
            for name, out in acc_full.items():
                layer = make_internal(name, loop.outside.net, out)
                if name in loop.step_layers:  # as the reference: the accumulated layer has the step layer's params
                    layer.params.update(loop.step_layers[name].params)
                loop.outside.accumulated[name] = layer
                full_layers[name] = layer
        else:
            lengths = None
        # the other moved-out layers, in sorted order, with the generator of the layers after the loop (as the
        # reference, observed: also the input layers the loop does not read)
        loop.outside.net.random = np.random.RandomState(loop.after_loop_seed)
        for name in sorted(cell.outputs | (cell.inputs - set(cell.inputs_before_loop))):
            full_layers[name] = loop.outside.get_full(name)
        out_layer = full_layers["output"]
        out = loop_major(out_layer.output, cell.time_dim)
        tmpl = rec_layer.output
        if cell.time_dim is not None and "output" not in loop.outside.accumulated:
            _check_output_time_dim(rec_layer, out)
        raw = _in_order_of(out, tmpl)
        if lengths is not None and tmpl.time_dim.dyn_size is None:
            tmpl.time_dim.dyn_size = lengths
        rec_layer.output.placeholder = raw
        if cell.search and cell.choices:
            choice_name = cell.choices[-1]
            rec_layer.output.beam = SearchBeam(loop.beam, f"{cell.rec_name}/{choice_name}", scores=loop.final_scores,
                                               lengths=tmpl.time_dim.dyn_size,
                                               length_normalization=bool(cell.unit[choice_name].get(
                                                   "length_normalization", True)))
            rec_layer.output.beam.last_src_beams = loop.last_src_beams
            for name, layer in full_layers.items():  # the loop's other layers, e.g. "output/t" for a decide layer
                if name != "output" and name in loop.outside.accumulated and layer.output.batch_dim_axis is not None:
                    layer.output.beam = rec_layer.output.beam
        if not cell.search or any(cell.search_reports_loss(n) for n in cell.loop):
            def make_proxy(name: str, layer: Any) -> Any:
                output = _loop_time_axis(layer.output, tmpl.time_dim)
                if getattr(layer, "loss", None) and output is layer.output:  # moved out, with its loss as it is
                    return layer
                owner = loop.step_layers.get(name) or layer  # a loop layer's loss is that of its step layer
                target = owner.target if isinstance(owner.target, str) else None
                target_layer = _loss_target_layer(cell, loop, full_layers, target, output)
                proxy = make_internal(name, loop.outside.net, output, loss=owner.loss, target=owner.target,
                                      loss_scale=owner.loss_scale,
                                      _target_layers={target: target_layer} if target_layer is not None else {})
                # as the reference (observed): the layer has the sub layer's params (get/set_param_values_by_dict)
                proxy.params.update(owner.params)
                return proxy
            register_losses(cell, rec_layer, full_layers, make_proxy)
    _collect_params(rec_layer, {**full_layers, **loop.step_layers})
    rec_layer.sub_layers = full_layers
    cell.output_layers_net = loop.outside.net
    cell.input_layers_net = loop.outside.net if cell.inputs else None
    rec_layer.loop_step_layers = dict(loop.step_layers)


def _loss_target_layer(cell: Any, loop: _Loop, full_layers: Dict[str, Any], target: Optional[str],
                       output: Tensor) -> Any:
    """:return: the target layer of a sub layer's loss over the whole loop where the network's own lookup does not
    give it: a target ``"layer:X"`` of another sub layer (e.g. soft targets computed in the loop): the full layer
    ``X``; in a search, a target of the extern data: it repeated for the hypotheses (``[B*K, T]``, over the loop's
    time dim ``output`` has), as the reference's loss inside the loop compares each hypothesis with its sequence's
    target (observed); else None"""
    if not target:
        return None
    if target.startswith("layer:"):
        return full_layers.get(target[len("layer:"):])
    if not cell.search or loop.beam == 1 or target not in cell.parent_net.extern_data.data:
        return None
    data = cell.parent_net.get_extern_data(target)
    tiled = tile_beam(data, loop.beam, {})
    if tiled.time_dim_axis is not None and output.time_dim is not None:
        raw = tiled.placeholder
        tiled = tiled.copy_template_replace_dim_tag(tiled.time_dim_axis, output.time_dim)
        tiled.placeholder = raw
    return make_internal(f"data:{target}", loop.outside.net, tiled)


def _check_output_time_dim(rec_layer: Any, out: Tensor) -> None:
    """The ``output`` sub layer moved out of the loop must be over the rec layer's time dim (behavior version 13, as
    the reference; e.g. a choice on a target of another time axis in training); before it, a deprecation warning, and
    the output is that layer's (time-major) as it is.

    :raises BehaviorVersion.RequirementNotSatisfied: (behavior version >= 13) another time dim"""
    from returnn.util.behavior_version import BehaviorVersion
    time_dim = rec_layer.output.time_dim
    if time_dim is None or out.time_dim is None or time_dim in out.dims:
        return
    BehaviorVersion.require(
        False, f"{rec_layer}: time-dim-tag mismatch: self {time_dim!r} vs sub-output-layer {out!r} time-dim-tag "
               f"{out.time_dim!r}", 13)


def _in_order_of(out: Tensor, tmpl: Tensor) -> tf.Tensor:
    """:return: the raw tensor of ``out`` (the full ``output`` layer, loop-major) with its axes in the order of the rec
        layer's output ``tmpl`` (the loop's dim, then the frame's dims), where the layer moved out has the same dims
        in another order (e.g. a ``window``: window axis first over the whole sequence, after the batch per frame)"""
    if out.dims == tmpl.dims or len(out.dims) != len(tmpl.dims) or set(out.dims) != set(tmpl.dims) \
            or len(set(out.dims)) != len(out.dims):
        return out.placeholder
    return tf.transpose(out.placeholder, [out.dims.index(d) for d in tmpl.dims])


def _loop_time_axis(out: Tensor, loop_time: Any) -> Tensor:
    """:return: ``out`` with the loop's time axis as its time axis, for the loss of a sub layer (as the reference:
    the loss of a layer moved out of the loop, e.g. attention weights over the encoder's time per decoder step, is
    over the decoder's frames)"""
    if loop_time is None or loop_time not in out.dims or out.get_time_dim_tag() == loop_time:
        return out
    out = out.copy()
    out.time_dim_axis = out.dims.index(loop_time)
    return out
