"""One step of a recurrent subnetwork's loop: the unit's loop layers built in a fresh sub network whose ``prev:X``
layers hold the values of the step before; in search, values of lower levels gathered into the rows of the
hypotheses that read them (see :mod:`returnn.tf.layers.recurrent.subnet.loop`)."""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.recurrent.get_last_hidden_state import attach_prev_hidden_state
from returnn.tf.layers.recurrent.subnet.move_out import frame_at, make_internal
from returnn.tf.layers.search.beam import gather_beams


class LoopStep:
    """Builds the loop layers for one step (called once, inside the while loop's body)."""

    def __init__(self, cell: Any, loop: Any, i: tf.Tensor, prev_values: Dict[str, tf.Tensor],
                 states: Dict[str, Dict[str, tf.Tensor]], search_state: Optional[Dict[str, Any]],
                 prev_rows: Optional[Dict[int, tf.Tensor]] = None):
        """:param prev_rows: in search, where levels below 0 are read (see :mod:`.levels`): level ``j`` (1-based)
            -> int32 ``[B*K_j]``, the source rows of the previous step's ``j``-th choice"""
        from returnn.tf.network import TFNetwork
        self.cell = cell
        self.loop = loop
        self.i = i
        self.search_state = search_state
        self.prev_rows = prev_rows or {}
        self.net = TFNetwork(parent_net=cell.parent_net, absolute_name_prefix=cell.sub_prefix,
                             name=cell.rec_name, is_inside_rec_layer=True, rnd_seed=cell.loop_seed,
                             absolute_name_scope_prefix=cell.sub_scope_prefix)
        self.net.rec_loop_dim = cell.time_dim if cell.time_dim is not None else cell.time_dim_out
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
            beam = cell.level_beam(cell.prev_level[name]) if search_state is not None else None
            out = loop.in_beam(loop.frame_templates[name], beam).copy_template(name=f"prev:{name}")
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
        if search_state is not None:
            self._mark_prev_choices()

    def _mark_prev_choices(self) -> None:
        """In search: ``prev:<choice>`` of each choice stands for the previous step's selection (its search
        choices, as the reference's); the ``prev:X`` values carry the search choices of the level they are in.
        A choice whose previous value the unit does not read gets a ``prev:`` layer without value for that."""
        from returnn.tf.layers.core.search_choices import SearchChoices
        cell = self.cell
        for level, choice in enumerate(cell.choices, 1):
            name = f"prev:{choice}"
            layer = self.net.layers.get(name)
            if layer is None:  # only its search choices (no layer reads it: no value is carried)
                layer = make_internal(name, self.net, self.loop.frame_templates[choice].copy_template(name=name))
                self.net.layers[name] = layer
            layer.fixed_search_choices = SearchChoices(layer, beam_size=cell.level_beam(level))
        for name in cell.prev_in_loop:
            layer = self.net.layers[f"prev:{name}"]
            if layer.fixed_search_choices is None:
                layer.fixed_search_choices = self.choices_of_level(cell.prev_level.get(name, 0))

    def choices_of_level(self, level: int) -> Any:
        """:return: the search choices whose hypotheses are the rows of ``level`` (above 0: the step's choice, else
        ``prev:<choice>`` of the previous step's), or None where no choice is built yet"""
        cell = self.cell
        if level > 0:
            layer = self.net.layers.get(cell.choices[level - 1])
            return None if layer is None else layer.search_choices
        prev = self.net.layers.get(f"prev:{cell.choices[level + len(cell.choices) - 1]}")
        return None if prev is None else prev.fixed_search_choices

    def get_layer(self, src: str) -> Any:
        """:return: layer ``src`` as read by the layer under construction; in search, with the rows of the
        consumer's hypotheses: a value from before a choice (a ``prev:`` value, a layer of a lower level, ``base:``
        layers when the beam sizes differ) is gathered by the source rows of the choices in between"""
        layer = self._resolve(src)
        cell = self.cell
        consumer = self.net.layer_under_construction
        if self.search_state is None or self.all_beams_one or consumer is None:
            return layer
        # a choice reads its input on the level before its own
        high = cell.choices.index(consumer) if consumer in cell.choices else cell.choice_level.get(consumer, 0)
        low = self._level_of(src)
        same_in_all_beams = src.startswith(("base:", "data")) or src == ":i" or src in cell.inputs
        if same_in_all_beams and high < 0 and cell.level_beam(low) != cell.level_beam(high):
            pass  # (tiled for the loop's beam) the same value in the rows of an earlier level: see below
        elif low >= high:
            return layer
        elif same_in_all_beams and cell.level_beam(low) == cell.level_beam(high):
            return layer
        if (src, high) not in self._gathered:
            rows = self.rows_between(low, high) if low < high else self._first_rows(low, high)
            name = src[len("prev:"):] if src.startswith("prev:") else src
            out = layer.output.copy()
            if cell.level_beam(low) != cell.level_beam(high):  # its axes over a tiled base layer: [B*K_high] lengths
                out = self.loop.in_beam(out, cell.level_beam(high))
            out.placeholder = gather_beams(layer.output.placeholder, rows, out.batch_dim_axis)
            gathered = make_internal(f"{name}:gathered", self.net, out)
            states = getattr(layer, "hidden_states", None)
            if states is not None:  # get_last_hidden_state of prev:X: the state in the same beam order
                attach_prev_hidden_state(gathered, {k: gather_beams(v, rows, 0) for k, v in states.items()},
                                         layer.hidden_state_names, out.dim)
            gathered.fixed_search_choices = self.choices_of_level(high)
            self._gathered[(src, high)] = gathered
        return self._gathered[(src, high)]

    def _level_of(self, src: str) -> int:
        """:return: the search level of the rows of ``src`` (0: the previous step's hypotheses; ``prev:X``: see
        :mod:`.levels`)"""
        if src.startswith("prev:") and src[len("prev:"):] in self.cell.unit:
            return self.cell.prev_level.get(src[len("prev:"):], 0)
        if src not in self.cell.unit and "/" in src:  # "x/y": the level of x
            src = src.split("/", 1)[0]
        if src in self.cell.unit and src not in self.cell.inputs:
            return self.cell.choice_level.get(src, 0)
        return 0

    def rows_between(self, low: int, high: int) -> tf.Tensor:
        """:return: int32 ``[B*K_high]``: for each hypothesis of level ``high``, the flat row (``b*K_low + k``)
        of the hypothesis of level ``low`` it continues (the choices' source rows composed; levels up to 0 are
        the previous step's choices')"""
        if (low, high) not in self._rows:
            rows = self._src_rows_of_level(high)
            for level in range(high - 1, low, -1):
                rows = tf.gather(self._src_rows_of_level(level), rows)
            self._rows[(low, high)] = rows
        return self._rows[(low, high)]

    def _src_rows_of_level(self, level: int) -> tf.Tensor:
        """:return: int32 ``[B*K_level]``: the rows of level ``level - 1`` the hypotheses of ``level`` continue"""
        if level > 0:
            return self._resolve(self.cell.choices[level - 1]).search_src_rows
        return self.prev_rows[level + len(self.cell.choices)]

    def _first_rows(self, low: int, high: int) -> tf.Tensor:
        """:return: int32 ``[B*K_high]``: for each hypothesis of level ``high``, the first row of its sequence in
        level ``low`` (for values that are the same in all hypotheses of a sequence)"""
        k_low, k_high = self.cell.level_beam(low), self.cell.level_beam(high)
        return tf.repeat(tf.range(self.loop.batch_size) * k_low, k_high)

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
            if cell.on_loop_axis(src):
                return self._add(src, frame_at(full.output, self.i, src))
            return full
        if src in cell.static_inputs:  # the same in every step: its whole value
            return loop.static_layer(src)
        if src in cell.masked_inputs:  # over the masked frames (not the loop's): its whole value, read by unmask
            return loop.outside.get_full(src)
        if src in cell.inputs:
            return self._add(src, frame_at(loop.outside.get_full(src).output, self.i, src, cell.time_dim))
        if src not in cell.unit and "/" in src and src.split("/", 1)[0] in cell.unit:  # "x/y": sub layer of x
            base, rest = src.split("/", 1)
            if base in cell.static_inputs:
                return loop.static_layer(src)
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
                or cell.choice_level.get(name, 0) <= cell.prev_level.get(name, 0)
                or desc.get("rec_previous_state") is None
                or getattr(cell.layers[name].cls, "gathers_own_search_state", False)):
            return
        rows = self.rows_between(cell.prev_level.get(name, 0), cell.choice_level[name])
        self.unit[name] = dict(desc, rec_previous_state=tf.nest.map_structure(
            lambda v: gather_beams(v, rows, 0), desc["rec_previous_state"]))

    def _add(self, name: str, out: Tensor) -> Any:
        layer = make_internal(name, self.net, out)
        self.net.layers[name] = layer
        return layer
