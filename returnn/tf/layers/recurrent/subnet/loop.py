"""The ``tf.while_loop`` of a recurrent subnetwork: one step builds the loop layers of the unit in a fresh
sub network whose ``prev:X`` layers hold the loop state, then the state is carried on (and, in search,
re-gathered by the source beams of the ``choice`` layer).

Loop variables: the step ``i``; ``prev:X`` values of loop layers referenced via ``prev:``; the cell states of
``rnn_cell`` layers; one TensorArray per loop layer whose output is needed after the loop (time-major
accumulation); with a dynamic length (``end`` layer): ``ended`` ``[B*K]`` and the hypothesis lengths; in search:
the beam scores ``[B, K]`` and a TensorArray of source beams ``[B, K]`` per step.

Search with several ``choice`` layers in one step: a layer's *level* is the number of the step's choices it comes
after (:attr:`SubnetworkRecCell.choice_level`); the rows of level 0 are the previous step's ``K`` hypotheses, those
of level ``j`` the hypotheses of the ``j``-th choice. A layer reading a value of a lower level (a ``prev:`` value,
a layer before a choice; ``base:`` layers where the beam sizes differ) gets it gathered by the composed source
rows of the choices in between (:meth:`_Step.rows_between`); ``K`` is the last choice's beam size.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.recurrent.subnet.initial import initial_output_value
from returnn.tf.layers.recurrent.get_last_hidden_state import attach_prev_hidden_state
from returnn.tf.layers.recurrent.subnet.move_out import (OutsideNet, fixed_loop_length, frame_at, loop_major,
                                                          make_internal, register_losses, time_major_with_raw)
from returnn.tf.layers.search.beam import SearchBeam, backtrack, gather_beams, tile_beam
from returnn.tf.layers.search.choice import NEG_INF


def _batch_size(cell: Any, rec_layer: Any) -> tf.Tensor:
    if rec_layer.input_data is not None:
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


def max_seq_len_base_layers(spec: Any) -> List[str]:
    """:return: the layer names in the ``max_len_from('...')`` calls of a ``max_seq_len`` expression"""
    return re.findall(r"max_len_from\(\s*['\"]([^'\"]+)['\"]\s*\)", spec) if isinstance(spec, str) else []


def eval_max_seq_len(cell: Any, spec: Any) -> tf.Tensor:
    """:return: int32 scalar from ``max_seq_len``: an int, or an expression using ``max_len_from('base:X')``
    :raises LayerArgError: an expression that cannot be evaluated"""
    if isinstance(spec, int):
        return tf.constant(spec, tf.int32)

    def max_len_from(name: str) -> tf.Tensor:
        out = cell.get_base_layer(name).output
        if out.time_dim_axis is None:
            raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="max_seq_len",
                                problem=f"layer {name!r} has no time axis, used in", got=spec)
        return tf.shape(out.placeholder)[out.time_dim_axis]

    try:
        value = eval(str(spec), {"__builtins__": {}}, {"max_len_from": max_len_from, "tf": tf})  # noqa: S307
    except LayerArgError:
        raise
    except Exception as exc:  # noqa: BLE001 (user expression)
        raise LayerArgError(layer=cell.rec_name, layer_class="rec", arg="max_seq_len", problem="invalid expression",
                            got=spec, hint=f"{type(exc).__name__}: {exc}") from None
    return tf.cast(value, tf.int32)


class _Step:
    """Builds the loop layers for one step (called once, inside the while loop's body)."""

    def __init__(self, cell: Any, loop: "_Loop", i: tf.Tensor, prev_values: Dict[str, tf.Tensor],
                 states: Dict[str, Dict[str, tf.Tensor]], search_state: Optional[Dict[str, Any]]):
        from returnn.tf.network import TFNetwork
        self.cell = cell
        self.loop = loop
        self.i = i
        self.search_state = search_state
        self.net = TFNetwork(parent_net=cell.parent_net, absolute_name_prefix=cell.sub_prefix,
                             name=cell.rec_name, is_inside_rec_layer=True, rnd_seed=cell.loop_seed,
                             absolute_name_scope_prefix=cell.sub_scope_prefix)
        self.net.layer_templates.update({n: tmpl.output for n, tmpl in cell.layers.items()})  # reuse_params stand-ins
        self.unit: Dict[str, Dict[str, Any]] = {}
        for name, desc in cell.unit.items():
            desc = dict(desc)
            if name in cell.stateful and name in cell.loop:
                desc["rec_previous_state"] = states[name]
                if cell.layers[name].layer_class == "self_attention":
                    desc["rec_step"] = i
            if name in cell.loop and cell.layers[name].layer_class == "relative_positional_encoding":
                desc["rec_step"], desc["rec_max_len"] = i, loop.max_len  # keys: the self-attention buffers
            if search_state is not None and cell.choices and name == cell.choices[0]:
                desc["search_state"] = search_state  # later choices: from the one before (_search_state_at)
            self.unit[name] = desc
        for name in cell.prev_in_loop:
            out = loop.frame_templates[name].copy_template(name=f"prev:{name}")
            out.placeholder = prev_values[name]
            self.net.layers[f"prev:{name}"] = make_internal(f"prev:{name}", self.net, out)
            names_of = getattr(cell.layers[name].cls, "hidden_state_names", None)
            if name in states and names_of is not None:  # get_last_hidden_state of prev:X (e.g. an rnn_cell)
                desc = {k: v for k, v in cell.unit[name].items() if k != "class"}
                attach_prev_hidden_state(self.net.layers[f"prev:{name}"], states[name], names_of(**desc),
                                         cell.layers[name].output.dim)
        self._gathered: Dict[Any, Any] = {}
        self._rows: Dict[Any, tf.Tensor] = {}
        levels = range(len(cell.choices) + 1) if search_state is not None else ()
        self.all_beams_one = all(cell.level_beam(level) == 1 for level in levels)

    def get_layer(self, src: str) -> Any:
        """:return: layer ``src`` as read by the layer under construction; in search, with the rows of the
        consumer's hypotheses: a value from before a choice (a ``prev:`` value, a layer of a lower level, ``base:``
        layers when the beam sizes differ) is gathered by the source rows of the choices in between"""
        layer = self._resolve(src)
        cell = self.cell
        if self.search_state is None or self.all_beams_one or not self.net._constructing:  # noqa: SLF001
            return layer
        consumer = self.net._constructing[-1]  # noqa: SLF001
        # a choice reads its input on the level before its own
        high = cell.choices.index(consumer) if consumer in cell.choices else cell.choice_level.get(consumer, 0)
        low = self._level_of(src)
        if low >= high:
            return layer
        same_in_all_beams = src.startswith(("base:", "data")) or src == ":i" or src in cell.inputs
        if same_in_all_beams and cell.level_beam(low) == cell.level_beam(high):
            return layer
        if (src, high) not in self._gathered:
            rows = self.rows_between(low, high)
            name = src[len("prev:"):] if src.startswith("prev:") else src
            out = layer.output.copy()
            out.placeholder = gather_beams(out.placeholder, rows, out.batch_dim_axis)
            gathered = make_internal(f"{name}:gathered", self.net, out)
            states = getattr(layer, "hidden_states", None)
            if states is not None:  # get_last_hidden_state of prev:X: the state in the same beam order
                attach_prev_hidden_state(gathered, {k: gather_beams(v, rows, 0) for k, v in states.items()},
                                         layer.hidden_state_names, out.dim)
            self._gathered[(src, high)] = gathered
        return self._gathered[(src, high)]

    def _level_of(self, src: str) -> int:
        """:return: the search level of the rows of ``src`` (0: the previous step's hypotheses)"""
        if src not in self.cell.unit and "/" in src:  # "x/y": the level of x
            src = src.split("/", 1)[0]
        if src in self.cell.unit and src not in self.cell.inputs:
            return self.cell.choice_level.get(src, 0)
        return 0

    def rows_between(self, low: int, high: int) -> tf.Tensor:
        """:return: int32 ``[B*K_high]``: for each hypothesis of level ``high``, the flat row (``b*K_low + k``)
        of the hypothesis of level ``low`` it continues (the choices' source rows composed)"""
        if (low, high) not in self._rows:
            rows = self._resolve(self.cell.choices[high - 1]).search_src_rows
            for level in range(high - 1, low, -1):
                rows = tf.gather(self._resolve(self.cell.choices[level - 1]).search_src_rows, rows)
            self._rows[(low, high)] = rows
        return self._rows[(low, high)]

    def _search_state_at(self, level: int) -> Dict[str, Any]:
        """:return: the search state a choice on ``level`` extends: the scores of the choice before it, the end
        flags in its rows"""
        before = self._resolve(self.cell.choices[level - 1])
        return dict(self.search_state, scores=before.search_scores, beam=self.cell.level_beam(level),
                    ended=gather_beams(self.search_state["ended"], self.rows_between(0, level)),
                    one_live_at_first_step=False)

    def _resolve(self, src: str) -> Any:
        cell, loop = self.cell, self.loop
        if src in self.net.layers:
            return self.net.layers[src]
        if src.startswith("base:"):
            return loop.base_layer(src[len("base:"):])
        if src == ":i":
            out = Tensor(name=":i", shape=(), dtype="int32", batch_dim_axis=None)
            out.placeholder = self.i
            return self._add(src, out)
        if src.startswith("prev:"):
            name = src[len("prev:"):]
            return self._add(src, frame_at(loop.outside.get_shifted(name).output, self.i, src, cell.time_dim))
        if src in ("data", "data:source"):
            return self._add(src, frame_at(loop.full_source_tiled.output, self.i, "data:source"))
        if src.startswith("data:") and src not in cell.unit:
            full = loop.data_layer(src)
            if cell._on_loop_axis(src):  # noqa: SLF001
                return self._add(src, frame_at(full.output, self.i, src))
            return full
        if src in cell.inputs:
            return self._add(src, frame_at(loop.outside.get_full(src).output, self.i, src, cell.time_dim))
        if src not in cell.unit and "/" in src and src.split("/", 1)[0] in cell.unit:  # "x/y": sub layer of x
            base, rest = src.split("/", 1)
            if base in cell.inputs:
                return self._add(src, frame_at(loop.outside.get_full(src).output, self.i, src, cell.time_dim))
            sub = self._resolve(base).get_sub_layer(rest)
            if sub is None:
                raise cell.templates.not_found(src, None)
            return sub
        self._gather_state_after_choice(src)
        if self.search_state is not None and src in cell.choices[1:]:
            self.unit[src] = dict(self.unit[src], search_state=self._search_state_at(cell.choices.index(src)))
        return self.net.construct_layer(self.unit, src, get_layer=self.get_layer)

    def _gather_state_after_choice(self, name: str) -> None:
        """A stateful layer computed after the choice (it depends on it in the same step, e.g. an ``rnn_cell``
        fed by the chosen label's embedding) continues the state of the hypothesis each new hypothesis comes from:
        its previous state (kept in the order before the choice) is gathered by the choice's source beams, as
        ``prev:`` values read by such layers are (a layer class with ``gathers_own_search_state`` does it itself)."""
        cell = self.cell
        desc = self.unit.get(name)
        if (self.search_state is None or self.all_beams_one or desc is None or name in cell.choices
                or name not in cell.choice_dependent or desc.get("rec_previous_state") is None
                or getattr(cell.layers[name].cls, "gathers_own_search_state", False)):
            return
        rows = self.rows_between(0, cell.choice_level[name])
        self.unit[name] = dict(desc, rec_previous_state=tf.nest.map_structure(
            lambda v: gather_beams(v, rows, 0), desc["rec_previous_state"]))

    def _add(self, name: str, out: Tensor) -> Any:
        layer = make_internal(name, self.net, out)
        self.net.layers[name] = layer
        return layer


class _Loop:
    """State shared by the loop's setup, body and finalisation."""

    def __init__(self, cell: Any, rec_layer: Any):
        self.cell = cell
        self.rec_layer = rec_layer
        self.beam = cell.beam_size if cell.search else 1
        self.max_len: Optional[tf.Tensor] = None  # int32 scalar, the loop's maximal length (set by the loop)
        self.batch_size = _batch_size(cell, rec_layer)
        self._dim_map: Dict[Any, Any] = {}
        self._base: Dict[str, Any] = {}
        self._data: Dict[str, Any] = {}
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
        self.outside = OutsideNet(cell, outside_net, self.full_source, self.batch_size)
        cell.input_layers_net = cell.output_layers_net = outside_net

    def tile(self, layer: Any, name: str) -> Any:
        if self.beam == 1:
            return layer
        return make_internal(name, self.cell.sub_net, tile_beam(layer.output, self.beam, self._dim_map))

    def base_layer(self, name: str) -> Any:
        if name not in self._base:
            self._base[name] = self.tile(self.cell.get_base_layer(name), f"base:{name}")
        return self._base[name]

    def data_layer(self, name: str) -> Any:
        if name not in self._data:
            self._data[name] = self.tile(self.cell.parent_net.get_layer(name), name)
        return self._data[name]

    def tile_raw(self, raw: tf.Tensor, axis: Optional[int] = 0) -> tf.Tensor:
        if self.beam == 1 or axis is None:
            return raw
        return tf.repeat(raw, self.beam, axis=axis)


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
        for name in cell.inputs_before_loop:
            loop.outside.get_full(name)
        for name in sorted(cell.loop):  # prev: of moved-out input layers, as shifted full sequences
            for prev in cell.layers[name].prev_deps:
                if prev in cell.inputs:
                    loop.outside.get_shifted(prev)
        full_layers: Dict[str, Any] = {n: loop.outside.get_full(n) for n in cell.inputs_before_loop}
        if cell.loop:
            acc_full, lengths = _run_while_loop(cell, loop)
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
        raw = out.placeholder
        tmpl = rec_layer.output
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
                return make_internal(name, loop.outside.net, output, loss=owner.loss, target=owner.target,
                                     loss_scale=owner.loss_scale, _target_layers={})
            register_losses(cell, rec_layer, full_layers, make_proxy)
    scope = tf.compat.v1.get_variable_scope().name
    if scope:
        for var in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, scope=scope + "/"):
            key = var.name[len(scope) + 1:-2]
            rec_layer.params[key] = var
    else:  # name_scope "": the unit's layers' params are in the root scope; those of its layers
        for name, layer in sorted({**full_layers, **loop.step_layers}.items()):
            for key, var in layer.params.items():
                rec_layer.params.setdefault(var.name[:-2] if var.name.endswith(":0") else var.name, var)
    rec_layer.sub_layers = full_layers
    cell.output_layers_net = loop.outside.net
    cell.input_layers_net = loop.outside.net if cell.inputs else None
    rec_layer.loop_step_layers = dict(loop.step_layers)


def _run_while_loop(cell: Any, loop: _Loop):
    """:return: (name -> accumulated time-major Tensor, lengths [B*K] int32 or None)

    A v1 while loop with v1 TensorArrays; ``import returnn.tf`` selects control flow v1 for the process (see
    :mod:`returnn.tf`).
    """
    return _run_while_loop_v1(cell, loop)


def _run_while_loop_v1(cell: Any, loop: _Loop):
    batch = loop.batch_size
    beam = loop.beam
    bk = batch * beam
    fixed = cell.time_dim is not None
    if fixed:
        max_len, seq_lens = fixed_loop_length(cell, loop.full_source, loop.batch_size)
        if cell.max_seq_len is not None and cell.search:
            max_len = tf.minimum(max_len, eval_max_seq_len(cell, cell.max_seq_len))
    else:
        max_len = eval_max_seq_len(cell, cell.max_seq_len) if cell.max_seq_len is not None else None
        seq_lens = None
    seq_lens_tiled = loop.tile_raw(seq_lens) if fixed else None
    loop.max_len = max_len
    prev_init = {}
    for name in cell.prev_in_loop:
        frame = loop.frame_templates[name]
        own_initial = getattr(cell.layers[name].cls, "get_rec_initial_output_raw", None)  # e.g. edit_distance_table
        if own_initial is not None and cell.unit[name].get("initial_output") is None:
            value = own_initial(batch, name=name, **{k: v for k, v in cell.layers[name].kwargs.items()
                                                     if k not in ("sources", "network", "name")})
            value = loop.tile_raw(value, frame.batch_dim_axis)
            value.set_shape(frame.batch_shape)
            prev_init[name] = value
            continue
        value = initial_output_value(cell.unit[name].get("initial_output"), frame, batch, cell.get_base_layer,
                                     var_scope_name=name)
        value = loop.tile_raw(value, frame.batch_dim_axis)
        value.set_shape(frame.batch_shape)
        prev_init[name] = value
    state_init = {}
    for name in sorted(cell.stateful & cell.loop):
        kwargs = dict(cell.layers[name].kwargs)
        kwargs["name"] = name
        kwargs.setdefault("n_out", cell.layers[name].output.dim)
        kwargs["n_out"] = cell.layers[name].output.dim
        kwargs["rec_max_len"] = max_len
        kwargs["param_scope"] = f"{tf.compat.v1.get_variable_scope().name}/{name}"  # e.g. "output/rec/s"
        init = cell.layers[name].cls.get_rec_initial_state(batch, **{k: v for k, v in kwargs.items()
                                                                   if k not in ("sources", "network")})
        state_init[name] = {}
        for key, value in init.items():
            tiled = loop.tile_raw(value)
            tiled.set_shape(value.shape)
            state_init[name][key] = tiled
    acc_names = list(cell.accumulated)
    if cell.search and cell.choices and "output" not in acc_names:
        acc_names.append("output")
    tas = {n: tf.TensorArray(tf.as_dtype(loop.frame_templates[n].dtype), size=0, dynamic_size=True,
                             element_shape=tf.TensorShape(loop.frame_templates[n].batch_shape)) for n in acc_names}
    search = cell.search and bool(cell.choices)
    scores0 = tf.concat([tf.zeros([batch, 1]), tf.fill(tf.stack([batch, beam - 1]), NEG_INF)], axis=1) \
        if search else tf.zeros([0])
    src_ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=tf.TensorShape([None, beam]))
    ended0 = tf.zeros(tf.stack([bk]), tf.bool)
    lens0 = tf.zeros(tf.stack([bk]), tf.int32)
    loop.step_templates = {}

    def cond(i, prev, states, tas_, ended, lens, scores, src_ta_):
        res = tf.constant(True)
        if max_len is not None:
            res = tf.less(i, max_len)
        if not fixed:
            res = tf.logical_and(res, tf.logical_not(tf.reduce_all(ended)))
        return res

    var_scope = tf.compat.v1.get_variable_scope()

    def body(i, prev, states, tas_, ended, lens, scores, src_ta_):
        if fixed and search:
            # as the reference (observed): the hypotheses of a sequence of length L are extended and scored as usual
            # up to step L (one step past the sequence's end), and count as ended from step L + 1 on
            ended = tf.greater(i, seq_lens_tiled)
        # "rescale_ended": ended hypotheses take part in the length normalization of the choice (see
        # returnn.tf.layers.search.choice; observed in the reference for both kinds of end)
        search_state = {"scores": scores, "ended": ended, "beam": beam, "step": i, "rescale_ended": True} \
            if search else None
        step = _Step(cell, loop, i, prev, states, search_state)
        # network.get_rec_step_info() / get_rec_step_index() for the layers of this step
        step.net.set_rec_step_info(i, prev_end_flag=None if fixed else ended, seq_lens=seq_lens_tiled)
        step.net.set_layer_resolver(step.get_layer)  # network.get_layer("prev:x") etc. in config functions
        with tf.compat.v1.variable_scope(var_scope, auxiliary_name_scope=False):
            # as the reference (observed in its parameter seeds): first the layers whose outputs are needed after
            # the loop, then those only read via "prev:", each group in sorted order
            accumulated = set(cell.accumulated) & cell.loop
            for name in sorted(accumulated) + sorted(cell.loop - accumulated):
                step.get_layer(name)
        layers = {n: step.net.layers[n] for n in cell.loop}
        loop.step_layers.update(layers)
        cell.net = step.net
        last = len(cell.choices) if search else 0
        # the hypotheses after the step's last choice: the rows of the previous step's they continue
        src_rows = step.rows_between(0, last) if search else None
        src_beams = tf.reshape(src_rows, [-1, beam]) - tf.range(batch)[:, None] * beam if search else None

        def reorder(name: str, raw: tf.Tensor, batch_axis: Optional[int]) -> tf.Tensor:
            level = cell.choice_level.get(name, 0)
            if not search or step.all_beams_one or level == last:
                return raw
            return gather_beams(raw, step.rows_between(level, last), batch_axis)

        new_prev = {}
        for name in cell.prev_in_loop:
            out = layers[name].output
            value = reorder(name, _as_template_order(out, loop.frame_templates[name]), out.batch_dim_axis)
            value.set_shape(loop.frame_templates[name].batch_shape)
            new_prev[name] = value
        new_states = {n: {k: reorder(n, v, 0) for k, v in layers[n].rec_state.items()} for n in states}
        new_tas = {}
        for name, ta in tas_.items():
            out = layers[name].output
            value = reorder(name, _as_template_order(out, loop.frame_templates[name]), out.batch_dim_axis)
            new_tas[name] = ta.write(i, value)
        new_ended, new_lens = ended, lens
        if not fixed:
            if search and not step.all_beams_one:
                ended = gather_beams(ended, src_rows)
                lens = gather_beams(lens, src_rows)
            end_raw = tf.reshape(tf.cast(layers[cell.end_layer].output.placeholder, tf.bool), [-1]) \
                if cell.end_layer else tf.zeros_like(ended)
            new_ended = tf.logical_or(ended, end_raw)
            counted = tf.logical_not(ended) if cell.include_eos else tf.logical_not(new_ended)
            new_lens = lens + tf.cast(counted, tf.int32)
        new_scores = layers[cell.choices[-1]].search_scores if search else scores
        new_src = src_ta_.write(i, src_beams) if search else src_ta_
        return i + 1, new_prev, new_states, new_tas, new_ended, new_lens, new_scores, new_src

    loop_vars = (tf.constant(0), prev_init, state_init, tas, ended0, lens0, scores0, src_ta)
    res = tf.compat.v1.while_loop(cond, body, loop_vars, parallel_iterations=1 if cell.search else 10,
                                  back_prop=_loop_back_prop(cell))
    num_steps, _, _, tas_out, _, lens_out, scores_out, src_out = res
    loop.final_scores = None
    if search:
        loop.final_scores = scores_out
        choice_desc = cell.unit[cell.choices[-1]]
        if choice_desc.get("length_normalization", True):
            # as the reference: the final scores divided by the number of steps, i.e. the longest hypothesis (of
            # the whole batch) + 1 for the end label's frame, which include_eos already counts (observed)
            all_lens = lens_out if not fixed else seq_lens_tiled
            steps = tf.reduce_max(all_lens) + (0 if cell.include_eos and not fixed else 1)
            loop.final_scores = scores_out / tf.cast(steps, scores_out.dtype)
    acc: Dict[str, Tensor] = {}
    if fixed:
        lengths = loop.tile_raw(seq_lens) if search and beam > 1 else None
        time_dim = cell.time_dim_out
    else:
        lengths = lens_out
        time_dim = cell.time_dim_out
    src_stacked = src_out.stack() if search else None
    loop.last_src_beams = src_stacked[-1] if search else None  # [B, K], the last step's
    for name, ta in tas_out.items():
        raw = ta.stack()
        if (search and not getattr(cell.layers[name].cls, "keeps_own_beam", False)  # e.g. decide_keep_beam
                and name not in cell.search_loss_only):
            raw = backtrack(raw, src_stacked)
        if not fixed:  # as the reference: frames up to the longest hypothesis (the last step's end label dropped)
            raw = raw[:tf.reduce_max(lens_out)]
        acc[name] = time_major_with_raw(loop.frame_templates[name], raw, time_dim, name)
    return acc, lengths


def _loop_time_axis(out: Tensor, loop_time: Any) -> Tensor:
    """:return: ``out`` with the loop's time axis as its time axis, for the loss of a sub layer (as the reference:
    the loss of a layer moved out of the loop, e.g. attention weights over the encoder's time per decoder step, is
    over the decoder's frames)"""
    if loop_time is None or loop_time not in out.dims or out.get_time_dim_tag() == loop_time:
        return out
    out = out.copy()
    out.time_dim_axis = out.dims.index(loop_time)
    return out


def _loop_back_prop(cell: Any) -> bool:
    """:return: whether gradients flow through the loop, as the reference: not when the network is built for
    evaluation or a search task only (``train_flag`` False: the reference's loop then has ``back_prop=False``: layers
    in the loop get no gradient, layers moved out of it do); with the train flag (True or a tensor, as the training
    engine's), also in a search (e.g. MBR training: gradients through the beam scores)"""
    return cell.parent_net.train_flag is not False


def _as_template_order(out: Tensor, template: Tensor) -> tf.Tensor:
    """:return: raw of ``out`` transposed to ``template``'s axis order (when both have the same dims)"""
    if len(out.dims) != len(template.dims):
        return out.placeholder
    perm: List[int] = []
    for td in template.dims:
        for j, od in enumerate(out.dims):
            if j not in perm and (od == td or (od.is_batch_dim() and td.is_batch_dim())
                                  or (od.dimension == td.dimension and od.kind is td.kind)):
                perm.append(j)
                break
    if sorted(perm) != list(range(len(out.dims))) or perm == list(range(len(out.dims))):
        return out.placeholder
    return out.copy_transpose(perm).placeholder

