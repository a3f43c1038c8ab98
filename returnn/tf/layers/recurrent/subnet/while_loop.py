"""The ``tf.while_loop`` of a recurrent subnetwork, in its steps: the loop's length, the initial values of the loop
variables (:class:`LoopVars`), one iteration (:class:`_Iteration`: build the step's layers, carry their values on),
and the accumulated outputs after the loop (back-tracked in search).

A v1 while loop with v1 TensorArrays; ``import returnn.tf`` selects control flow v1 for the process (see
:mod:`returnn.tf`). The TF ops are created in a fixed order (op-level seeds of random ops without an explicit seed
follow the number of ops created before them).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.recurrent.subnet.initial import initial_output_value
from returnn.tf.layers.recurrent.subnet.max_seq_len import eval_max_seq_len
from returnn.tf.layers.recurrent.subnet.move_out import fixed_loop_length, time_major_with_raw
from returnn.tf.layers.recurrent.subnet.step import LoopStep
from returnn.tf.layers.search.beam import backtrack, gather_beams
from returnn.tf.layers.search.choice import NEG_INF


class LoopVars(NamedTuple):
    """The values one iteration of the loop hands to the next (``B``: batch, ``K``: the loop's beam, 1 without
    search)."""

    step: tf.Tensor  #: int32 scalar, the step index
    prev_values: Dict[str, tf.Tensor]  #: layer name -> its last output ``[B*K, ...]`` (read as ``prev:name``)
    states: Dict[str, Dict[str, tf.Tensor]]  #: stateful layer name -> its cell state (name -> ``[B*K, ...]``)
    outputs: Dict[str, tf.TensorArray]  #: layer name -> its output per step, for after the loop
    ended: tf.Tensor  #: bool ``[B*K]``, the hypotheses whose ``end`` layer was true (dynamic length)
    lengths: tf.Tensor  #: int32 ``[B*K]``, the hypotheses' lengths so far (dynamic length)
    scores: tf.Tensor  #: float32 ``[B, K]``, the hypotheses' scores (search; else an empty ``[0]``)
    src_beams: tf.TensorArray  #: int32 ``[B, K]`` per step: the beam each hypothesis continues (search)
    #: in search where a step reads levels of the previous step's (see :mod:`.levels`): choice level ``j`` -> the
    #: source rows ``[B*K_j]`` of the step's ``j``-th choice; else empty
    prev_rows: Dict[int, tf.Tensor]


class LoopLength(NamedTuple):
    """How long the loop runs."""

    fixed: bool  #: the length is known before the loop (input, target, declared time); else until ``end``
    max_len: Optional[tf.Tensor]  #: int32 scalar: at most this many steps (None: until every hypothesis ended)
    seq_lens: Optional[tf.Tensor]  #: int32 ``[B]`` with a fixed length, else None
    seq_lens_tiled: Optional[tf.Tensor]  #: ``seq_lens`` per hypothesis, ``[B*K]``


def run_while_loop(cell: Any, loop: Any) -> Tuple[Dict[str, Tensor], Optional[tf.Tensor]]:
    """Runs the loop of ``cell``; sets ``loop.max_len``, ``loop.step_layers``, ``loop.final_scores`` and
    ``loop.last_src_beams``.

    :param cell: the :class:`SubnetworkRecCell`
    :param loop: its :class:`returnn.tf.layers.recurrent.subnet.loop._Loop`
    :return: (name -> the layer's outputs of all steps, a time-major Tensor; the output lengths ``[B*K]`` int32,
        or None where the loop's time dim keeps its own)
    """
    num_hyps = loop.batch_size * loop.beam
    length = _loop_length(cell, loop)
    loop.max_len = length.max_len
    searching = cell.search and bool(cell.choices)
    initial = LoopVars(step=None, prev_values=_initial_prev_values(cell, loop),
                       states=_initial_states(cell, loop, length.max_len),
                       outputs=_output_arrays(cell, loop, searching),
                       scores=_initial_scores(loop.batch_size, loop.beam) if searching else tf.zeros([0]),
                       src_beams=tf.TensorArray(tf.int32, size=0, dynamic_size=True,
                                                element_shape=tf.TensorShape([None, loop.beam])),
                       ended=tf.zeros(tf.stack([num_hyps]), tf.bool),
                       lengths=tf.zeros(tf.stack([num_hyps]), tf.int32),
                       prev_rows=_initial_prev_rows(cell, loop) if _reads_earlier_levels(cell, searching) else {})
    iteration = _Iteration(cell, loop, length, searching)
    (final,) = tf.compat.v1.while_loop(iteration.keep_going, iteration.run, (initial._replace(step=tf.constant(0)),),
                                       parallel_iterations=1 if cell.search else 10,
                                       back_prop=_loop_back_prop(cell), return_same_structure=True)
    _finish_states(cell, final.states)
    loop.final_scores = _final_scores(cell, length, final) if searching else None
    out_lengths = final.lengths if not length.fixed else (
        loop.tile_raw(length.seq_lens) if searching and loop.beam > 1 else None)
    src_beams = final.src_beams.stack() if searching else None  # [T, B, K]
    loop.last_src_beams = src_beams[-1] if searching else None  # [B, K], the last step's
    outputs = {name: _accumulated_output(cell, loop, name, array.stack(), src_beams, length, final.lengths)
               for name, array in final.outputs.items()}
    return outputs, out_lengths


def _loop_length(cell: Any, loop: Any) -> LoopLength:
    """:return: the loop's length: known before the loop (limited by ``max_seq_len`` in search), else ``max_seq_len``
    (or none: until every hypothesis ended)"""
    if cell.time_dim is None:
        max_len = eval_max_seq_len(cell, cell.max_seq_len) if cell.max_seq_len is not None else None
        return LoopLength(fixed=False, max_len=max_len, seq_lens=None, seq_lens_tiled=None)
    max_len, seq_lens = fixed_loop_length(cell, loop.full_source, loop.batch_size)
    if cell.max_seq_len is not None and cell.search:
        max_len = tf.minimum(max_len, eval_max_seq_len(cell, cell.max_seq_len))
    if cell.search_ends_within_input:  # until the end layer ends every hypothesis, at most over the input
        return LoopLength(fixed=False, max_len=max_len, seq_lens=seq_lens, seq_lens_tiled=loop.tile_raw(seq_lens))
    return LoopLength(fixed=True, max_len=max_len, seq_lens=seq_lens, seq_lens_tiled=loop.tile_raw(seq_lens))


def _initial_prev_values(cell: Any, loop: Any) -> Dict[str, tf.Tensor]:
    """:return: name -> the value ``prev:name`` reads in the first step, ``[B*K, ...]`` in the frame's axis order
    (``K``: the beam of the level ``prev:name`` is in, see :mod:`.levels`)"""
    values = {}
    for name in cell.prev_in_loop:
        frame = loop.frame_templates[name]
        value = _tiled(cell, loop, _initial_output(cell, loop.batch_size, name, frame), frame.batch_dim_axis,
                       name)
        value.set_shape(frame.batch_shape)
        values[name] = value
    return values


def _tiled(cell: Any, loop: Any, raw: tf.Tensor, axis: Optional[int], name: str) -> tf.Tensor:
    """:return: ``raw`` (``[B, ...]``) repeated for the hypotheses of the level ``prev:name`` is in"""
    beam = cell.level_beam(cell.prev_level.get(name, 0)) if cell.search and cell.choices else loop.beam
    if beam == loop.beam or axis is None:
        return loop.tile_raw(raw, axis)
    return tf.repeat(raw, beam, axis=axis)


def _reads_earlier_levels(cell: Any, searching: bool) -> bool:
    """:return: whether, in search, a step reads values in the rows of the previous step's choices before its
    last one (a layer or ``prev:`` value on a level below 0, see :mod:`.levels`)"""
    return searching and (any(cell.choice_level.get(name, 0) < 0 for name in cell.loop)
                          or any(cell.prev_level.get(name, 0) < 0 for name in cell.prev_in_loop))


def _initial_prev_rows(cell: Any, loop: Any) -> Dict[int, tf.Tensor]:
    """:return: the source rows of the choices of the "step before" the first: each hypothesis continues the first
    of its sequence (the initial values are the same in all of them)"""
    rows = {}
    for level in range(1, len(cell.choices) + 1):
        rows[level] = tf.repeat(tf.range(loop.batch_size) * cell.level_beam(level - 1), cell.level_beam(level))
    return rows


def _initial_output(cell: Any, batch_size: tf.Tensor, name: str, frame: Tensor) -> tf.Tensor:
    """:return: the layer's ``initial_output`` ``[B, ...]``; without one, that of its class if it has its own (e.g.
    ``edit_distance_table``)"""
    layer = cell.layers[name]
    initial_output = cell.unit[name].get("initial_output")
    class_initial = getattr(layer.cls, "get_rec_initial_output_raw", None)
    if class_initial is not None and initial_output is None:
        kwargs = {k: v for k, v in layer.kwargs.items() if k not in ("sources", "network", "name")}
        return class_initial(batch_size, name=name, **kwargs)
    return initial_output_value(initial_output, frame, batch_size, cell.get_base_layer, var_scope_name=name)


def _initial_states(cell: Any, loop: Any, max_len: Optional[tf.Tensor]) -> Dict[str, Dict[str, tf.Tensor]]:
    """:return: for each stateful layer in the loop, its initial cell state (state name -> ``[B*K, ...]``)"""
    states = {}
    for name in sorted(cell.stateful & cell.loop):
        layer = cell.layers[name]
        kwargs = {k: v for k, v in layer.kwargs.items() if k not in ("sources", "network")}
        kwargs.update(_state_hook_kwargs(cell, name), n_out=layer.output.dim, rec_max_len=max_len)
        states[name] = {}
        for key, value in layer.cls.get_rec_initial_state(loop.batch_size, **kwargs).items():
            tiled = _tiled(cell, loop, value, 0, name)
            tiled.set_shape(value.shape)
            states[name][key] = tiled
    return states


def _state_hook_kwargs(cell: Any, name: str) -> Dict[str, Any]:
    """:return: the arguments of a stateful layer's class hooks besides its own: its name, the network (for the
    epoch step and post-run ops of a state kept over runs) and its absolute variable scope (e.g. "output/rec/s")"""
    from returnn.tf.layers.core.scope_names import get_layer_scope_name
    # the layer name as a valid scope name, as the reference (observed: "_s" -> ".95.s")
    scope = get_layer_scope_name(f"{tf.compat.v1.get_variable_scope().name}/", name)
    return dict(name=name, network=cell.parent_net, param_scope=scope)


def _finish_states(cell: Any, states: Dict[str, Dict[str, tf.Tensor]]) -> None:
    """Calls ``finish_rec_state(final_state, ...)`` of the stateful loop layers whose class has it (e.g.
    ``self_attention``: name the final keys/values, keep them over runs)."""
    for name in sorted(states):
        layer = cell.layers[name]
        finish = getattr(layer.cls, "finish_rec_state", None)
        if finish is not None:
            kwargs = {k: v for k, v in layer.kwargs.items() if k not in ("sources", "network")}
            kwargs.update(_state_hook_kwargs(cell, name))
            finish(states[name], **kwargs)


def _output_arrays(cell: Any, loop: Any, searching: bool) -> Dict[str, tf.TensorArray]:
    """:return: one empty TensorArray per loop layer whose outputs are needed after the loop (in search also
    ``output``, the hypotheses to back-track)"""
    names = list(cell.accumulated)
    if searching and "output" not in names:
        names.append("output")
    return {name: tf.TensorArray(tf.as_dtype(loop.frame_templates[name].dtype), size=0, dynamic_size=True,
                                 element_shape=tf.TensorShape(loop.frame_templates[name].batch_shape))
            for name in names}


def _initial_scores(batch_size: tf.Tensor, beam: int) -> tf.Tensor:
    """:return: float32 ``[B, K]``: 0 for the first hypothesis of each sequence, -inf for the other (empty) ones"""
    return tf.concat([tf.zeros([batch_size, 1]), tf.fill(tf.stack([batch_size, beam - 1]), NEG_INF)], axis=1)


class _Iteration:
    """The loop's condition and body."""

    def __init__(self, cell: Any, loop: Any, length: LoopLength, searching: bool):
        self.cell = cell
        self.loop = loop
        self.length = length
        self.searching = searching
        self.var_scope = tf.compat.v1.get_variable_scope()

    def keep_going(self, v: LoopVars) -> tf.Tensor:
        """:return: bool scalar: below the maximal length and (with a dynamic length) some hypothesis not ended"""
        below_max = tf.less(v.step, self.length.max_len) if self.length.max_len is not None else tf.constant(True)
        if self.length.fixed:
            return below_max
        return tf.logical_and(below_max, tf.logical_not(tf.reduce_all(v.ended)))

    def run(self, v: LoopVars) -> Tuple[LoopVars]:
        """:return: the loop variables after step ``v.step`` (a 1-tuple, as ``tf.while_loop`` passes them)"""
        cell, loop = self.cell, self.loop
        ended = v.ended
        if self.length.fixed and self.searching:
            # as the reference (observed): the hypotheses of a sequence of length L are extended and scored as usual
            # up to step L (one step past the sequence's end), and count as ended from step L + 1 on
            ended = tf.greater(v.step, self.length.seq_lens_tiled)
        elif self.length.seq_lens_tiled is not None and self.searching:  # the end layer within the input's frames
            ended = tf.logical_or(ended, tf.greater(v.step, self.length.seq_lens_tiled))
        step = self._build_step(v, ended)
        layers = {name: step.net.layers[name] for name in cell.loop}
        loop.step_layers.update(layers)
        cell.net = step.net
        hyps = _StepHypotheses(cell, step, self.searching, loop.batch_size, loop.beam)
        prev_values = {name: hyps.in_stored_order(name, layers[name].output, loop.frame_templates[name])
                       for name in cell.prev_in_loop}
        for name, value in prev_values.items():
            value.set_shape(loop.frame_templates[name].batch_shape)
        states = {name: {key: hyps.reordered(name, value, 0, cell.stored_level.get(name))
                          for key, value in layers[name].rec_state.items()}
                  for name in v.states}
        outputs = {name: array.write(v.step, hyps.accumulated_value(name, layers[name].output,
                                                                    loop.frame_templates[name]))
                   for name, array in v.outputs.items()}
        ended, lengths = self._ended_and_lengths(hyps, layers, ended, v.lengths)
        src_beams = v.src_beams.write(v.step, hyps.src_beams) if self.searching else v.src_beams
        scores = layers[cell.choices[-1]].search_scores if self.searching else v.scores
        prev_rows = {level: layers[cell.choices[level - 1]].search_src_rows for level in v.prev_rows}
        return (LoopVars(step=v.step + 1, prev_values=prev_values, states=states, outputs=outputs, ended=ended,
                         lengths=lengths, scores=scores, src_beams=src_beams, prev_rows=prev_rows),)

    def _build_step(self, v: LoopVars, ended: tf.Tensor) -> LoopStep:
        """:return: the step with the loop's layers built"""
        cell = self.cell
        # "rescale_ended": ended hypotheses take part in the length normalization of the choice (see
        # returnn.tf.layers.search.choice; observed in the reference for both kinds of end)
        search_state = {"scores": v.scores, "ended": ended, "beam": self.loop.beam, "step": v.step,
                        "rescale_ended": True} if self.searching else None
        step = LoopStep(cell, self.loop, v.step, v.prev_values, v.states, search_state, prev_rows=v.prev_rows)
        # network.get_rec_step_info() / get_rec_step_index() for the layers of this step
        step.net.set_rec_step_info(v.step, prev_end_flag=None if self.length.fixed else ended,
                                   seq_lens=self.length.seq_lens_tiled)
        step.net.set_layer_resolver(step.get_layer)  # network.get_layer("prev:x") etc. in config functions
        with tf.compat.v1.variable_scope(self.var_scope, auxiliary_name_scope=False):
            # as the reference (observed in its parameter seeds): first the layers whose outputs are needed after
            # the loop, then those only read via "prev:", each group in sorted order
            accumulated = set(cell.accumulated) & cell.loop
            for name in sorted(accumulated) + sorted(cell.loop - accumulated):
                step.get_layer(name)
        return step

    def _ended_and_lengths(self, hyps: "_StepHypotheses", layers: Dict[str, Any], ended: tf.Tensor,
                           lengths: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        """:return: (ended, lengths) after this step, ``[B*K]`` each: with a dynamic length, those of the hypotheses
        continued, extended by the ``end`` layer's flags; with a fixed length, as they were"""
        cell = self.cell
        if self.length.fixed:
            return ended, lengths
        if self.searching and not hyps.step.all_beams_one:
            ended = gather_beams(ended, hyps.src_rows)
            lengths = gather_beams(lengths, hyps.src_rows)
        end_flags = tf.reshape(tf.cast(layers[cell.end_layer].output.placeholder, tf.bool), [-1]) \
            if cell.end_layer else tf.zeros_like(ended)
        if cell.end_layer and self.searching:  # an end layer after an earlier choice (e.g. of the first of two
            end_flags = hyps.reordered(cell.end_layer, end_flags, 0)  # choices): in the rows of the last one
        new_ended = tf.logical_or(ended, end_flags)
        counted = tf.logical_not(ended) if cell.include_eos else tf.logical_not(new_ended)
        lengths = lengths + tf.cast(counted, tf.int32)
        if self.length.seq_lens_tiled is not None:  # the end layer within the input's frames: at most its length
            lengths = tf.minimum(lengths, self.length.seq_lens_tiled)
        return new_ended, lengths


class _StepHypotheses:
    """In search, the hypotheses after a step's last choice: the rows of the previous step's they continue, and the
    values of the step's layers reordered into them (a layer before a choice has the rows of its own level)."""

    def __init__(self, cell: Any, step: LoopStep, searching: bool, batch_size: tf.Tensor, beam: int):
        self.cell = cell
        self.step = step
        self.searching = searching
        self.last_level = len(cell.choices) if searching else 0
        self.src_rows: Optional[tf.Tensor] = None  # int32 [B*K]: the flat row of the previous step's hypothesis
        self.src_beams: Optional[tf.Tensor] = None  # int32 [B, K]: its beam index
        if searching:
            self.src_rows = step.rows_between(0, self.last_level)
            self.src_beams = tf.reshape(self.src_rows, [-1, beam]) - tf.range(batch_size)[:, None] * beam

    def reordered(self, name: str, raw: tf.Tensor, batch_axis: Optional[int], to_level: Optional[int] = None
                  ) -> tf.Tensor:
        """:return: ``raw`` (a value of layer ``name``) in the rows of the hypotheses of ``to_level`` (default: after
        the step's last choice)"""
        level = self.cell.choice_level.get(name, 0)
        to_level = self.last_level if to_level is None else to_level
        if not self.searching or self.step.all_beams_one or level >= to_level:
            return raw
        return gather_beams(raw, self.step.rows_between(level, to_level), batch_axis)

    def accumulated_value(self, name: str, out: Tensor, frame: Tensor) -> tf.Tensor:
        """:return: raw of ``out`` (layer ``name``'s output) as accumulated over the loop: in the last level's rows,
        but for a layer that keeps its own beam (``decide_keep_beam``, as the reference, observed) and one read for
        its loss only (or as such a loss's target) in a search: in the rows of its own level (e.g. ``[B*K1]`` after the first of two choices, ``[B*K]`` of the previous step before any choice)"""
        if getattr(self.cell.layers[name].cls, "keeps_own_beam", False):
            return _as_template_order(out, frame)
        if name in self.cell.search_loss_only:  # its loss is over the hypotheses it was computed for, as the
            return _as_template_order(out, frame)  # reference's loss inside the loop (observed)
        return self.in_last_order(name, out, frame)

    def in_stored_order(self, name: str, out: Tensor, frame: Tensor) -> tf.Tensor:
        """:return: raw of ``out`` in ``frame``'s axis order and the rows of the level it is handed to the next
        step in (:attr:`SubnetworkRecCell.stored_level`)"""
        return self.reordered(name, _as_template_order(out, frame), out.batch_dim_axis,
                              self.cell.stored_level.get(name))

    def in_last_order(self, name: str, out: Tensor, frame: Tensor) -> tf.Tensor:
        """:return: raw of ``out`` (layer ``name``'s output) in ``frame``'s axis order and the last level's rows"""
        return self.reordered(name, _as_template_order(out, frame), out.batch_dim_axis)


def _final_scores(cell: Any, length: LoopLength, final: LoopVars) -> tf.Tensor:
    """:return: float32 ``[B, K]``, the final hypotheses' scores; with the last choice's ``length_normalization``
    (default) divided, as the reference (observed), by the number of steps: the longest hypothesis of the whole
    batch + 1 for the end label's frame, which ``include_eos`` already counts"""
    if not cell.unit[cell.choices[-1]].get("length_normalization", True):
        return final.scores
    all_lengths = final.lengths if not length.fixed else length.seq_lens_tiled
    steps = tf.reduce_max(all_lengths) + (0 if cell.include_eos and not length.fixed else 1)
    return final.scores / tf.cast(steps, final.scores.dtype)


def _accumulated_output(cell: Any, loop: Any, name: str, raw: tf.Tensor, src_beams: Optional[tf.Tensor],
                        length: LoopLength, lengths: tf.Tensor) -> Tensor:
    """:param raw: the layer's outputs of all steps, ``[T, B*K, ...]``
    :return: them as a time-major Tensor over the rec layer's time dim; in search followed back from the final
    hypotheses (not a layer that keeps its own beam, e.g. ``decide_keep_beam``, nor one read for its loss only)"""
    if (src_beams is not None and not getattr(cell.layers[name].cls, "keeps_own_beam", False)
            and name not in cell.search_loss_only):
        raw = backtrack(raw, src_beams)
    if not length.fixed:  # as the reference: frames up to the longest hypothesis (the last step's end label dropped)
        raw = raw[:tf.reduce_max(lengths)]
    return time_major_with_raw(loop.frame_templates[name], raw, cell.time_dim_out, name)


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
