"""Which sub layers of a ``rec`` unit run in the loop, which are computed over the whole sequence before it, and
which after it: the set computations behind :meth:`SubnetworkRecCell._classify
<returnn.tf.layers.recurrent.subnet.cell.SubnetworkRecCell._classify>` (phase 2 of :mod:`.cell`).

:class:`LoopMembership` is a base class of ``SubnetworkRecCell``: its methods read the cell's templates
(``layers``, ``templates``, ``unit``, ``sub_net``), its state set ``stateful``, its options (``time_dim``,
``end_layer``, ``optimize_move_layers_out``, ``search``, ``choices``) and call its ``on_loop_axis`` and
``_can_run_over_time``.
"""

from __future__ import annotations

from typing import Callable, Iterable, List, Set

from returnn.tensor import Tensor
from returnn.tf.layers.recurrent.subnet.template import TemplateLayer, builds_loss


# layer classes whose value in a loop step depends on the step without a "prev:", ":i" or input frame dependency
_STEP_DEPENDENT = frozenset({"cum_concat", "unmask", "positional_encoding", "relative_positional_encoding",
                             "edit_distance_table", "rec", "cond", "masked_computation", "self_attention", "kenlm_lm",
                             "random", "rand_int", "random_state_init"})  # (random: a new draw each step)


def _reads_step(layer: TemplateLayer) -> bool:
    """:return: whether the layer's class reads the loop's step itself (:data:`_STEP_DEPENDENT`), or it is an
    ``eval`` whose code asks the network for the step (``self.network.get_rec_step_index()`` / ``get_rec_step_info``)"""
    if layer.layer_class in _STEP_DEPENDENT:
        return True
    code = layer.kwargs.get("eval") if layer.layer_class == "eval" else None
    return isinstance(code, str) and "rec_step" in code


def _has_loop_local_axis(frame: Tensor) -> bool:
    """:return: whether the frame template has a dynamic axis whose lengths are only known inside the loop"""
    return any(d.is_dynamic() and not d.is_batch_dim() and d.dyn_size is None for d in frame.dims)


def _grown_set(candidates: Iterable[str], joins: Callable[[str, Set[str]], bool]) -> Set[str]:
    """:return: the smallest set of ``candidates`` closed under ``joins``: a candidate joins when ``joins(name, set
    so far)`` (a condition that stays true once true as the set grows), repeated until no candidate joins"""
    grown: Set[str] = set()
    todo = set(candidates)
    changed = True
    while changed:
        changed = False
        for name in list(todo):
            if joins(name, grown):
                grown.add(name)
                todo.discard(name)
                changed = True
    return grown


class LoopMembership:
    """The loop-membership rules of a rec unit (see the module docstring); no state of its own."""

    def _computable_before_loop(self) -> Set[str]:
        """:return: the layers that only depend on the input frames on the loop's axis, targets on it and (via
        ``prev:`` too) other such layers: computable over the whole sequence before the loop"""
        return _grown_set(self.layers, lambda name, over_time: self._can_move_before_loop(name, self.layers[name])
                          and all(dep in over_time for dep in self._deps_moved_out(name)))

    def _deps_moved_out(self, name: str) -> List[str]:
        """:return: the unit's layers that layer ``name`` reads when it is computed over the whole sequence: its
        same-step and ``prev:`` dependencies; for a masked input (:meth:`_is_masked_input`) none of its ``mask`` and
        ``from`` (it runs on its ``masked_from`` frames then)"""
        layer = self.layers[name]
        if not self._is_masked_input(name):
            return layer.deps + layer.prev_deps
        desc = layer.layer_desc
        sources = desc.get("from") or []
        refs = [desc.get("mask")] + ([sources] if isinstance(sources, str) else list(sources))
        refs = [ref for ref in refs if isinstance(ref, str)]
        same_step = {ref for ref in refs if not ref.startswith("prev:")}
        prev = {ref[len("prev:"):] for ref in refs if ref.startswith("prev:")}
        return [dep for dep in layer.deps if dep not in same_step] + [dep for dep in layer.prev_deps if dep not in prev]

    def _is_masked_input(self, name: str) -> bool:
        """:return: whether layer ``name`` is a ``masked_computation`` with ``masked_from`` that only ``unmask``
        layers read: as the reference (observed), it can move out before the loop, over its ``masked_from`` frames
        (the masked frames), while its mask stays in the loop; an ``unmask`` in the loop then picks its frame"""
        layer = self.layers[name]
        if layer.layer_class != "masked_computation" or not layer.layer_desc.get("masked_from"):
            return False
        readers = [other for other in self.layers.values() if name in other.deps or name in other.prev_deps]
        return all(reader.layer_class == "unmask" and name not in reader.prev_deps for reader in readers)

    def _loop_invariant(self, needed: Set[str]) -> Set[str]:
        """:return: the needed layers whose value is the same in every step: they read only layers outside the rec
        layer (``base:``) and other such layers (or nothing, e.g. a ``constant``), carry no state and nothing reads
        them via ``prev:``; as the reference (observed), they are computed once before the loop (its
        ``input_layers_moved_out``, e.g. the inner layers of a subnetwork that read only ``base:`` layers), and the
        loop reads their whole value. Not ``output`` (the rec layer's output has the loop's time axis), nor layers
        that read the loop's step themselves (:func:`_reads_step`)."""
        read_via_prev = {prev for layer in self.layers.values() for prev in layer.prev_deps}

        def may_be_invariant(name: str) -> bool:
            layer = self.layers[name]
            return not (name == "output" or name in self.stateful or layer.prev_deps or layer.data_deps
                        or name in read_via_prev or layer.loss or layer.is_choice()
                        or getattr(layer.cls, "unstacks_over_loop", False) or layer.layer_desc.get("masked_from")
                        or _reads_step(layer))

        return _grown_set({name for name in needed if may_be_invariant(name)},
                          lambda name, invariant: all(dep in invariant for dep in self.layers[name].deps))

    def _can_move_before_loop(self, name: str, layer: TemplateLayer) -> bool:
        """:return: whether the layer itself (apart from its dependencies) can run over the whole sequence"""
        if layer.layer_desc.get("masked_from"):  # over other frames than the loop's when moved out
            return self._is_masked_input(name)
        if name in self.stateful:  # e.g. rnn_cell: over the whole sequence, base: only in initial_state
            if not self._can_run_over_time(name):
                return False
        elif layer.base_deps and not getattr(layer.cls, "unstacks_over_loop", False):
            return False
        return all(self.on_loop_axis(data) for data in layer.data_deps)

    def _layers_over_loop_axis(self, candidates: Set[str]) -> Set[str]:
        """:return: those of ``candidates`` that have the loop's time axis (through an input frame, directly or via
        another such layer), and the masked inputs (:meth:`_is_masked_input`, over their own frames): only these
        move out"""
        def joins(name: str, with_axis: Set[str]) -> bool:
            layer = self.layers[name]
            return (any(self.on_loop_axis(data) for data in layer.data_deps)
                    or getattr(layer.cls, "unstacks_over_loop", False) or self._is_masked_input(name)
                    or any(dep in with_axis for dep in layer.deps + layer.prev_deps))

        return _grown_set(candidates, joins)

    def _output_layers(self) -> Set[str]:
        """:return: as the reference: the sub layers available outside the loop (``"is_output_layer": True``,
        ``"rec/x"``) or whose last frame is read after it (``"need_last": True``, ``rec_last_output``)"""
        return {name for name, layer in self.layers.items()
                if layer.layer_desc.get("is_output_layer") or layer.layer_desc.get("need_last")}

    def _needed_roots(self, output_layers: Set[str]) -> Set[str]:
        """:return: the layers needed in their own right: ``output``, those with a loss, the output layers, the
        ``end`` layer of a dynamic length (or of any length without moving layers out), in search the choices"""
        roots = {"output"} | {name for name in self.layers if builds_loss(self.unit[name], self.sub_net)}
        roots |= output_layers
        # as the reference (observed): without moving layers out, the end layer runs in the loop also when the length
        # is known (its flags are not used then)
        if (self.time_dim is None or self.search_ends_within_input or not self.optimize_move_layers_out) \
                and self.end_layer:
            roots.add(self.end_layer)
        if self.search:
            roots |= set(self.choices)
        return roots

    def _loop_roots(self, needed: Set[str], needed_roots: Set[str], inputs: Set[str], move_out: bool) -> Set[str]:
        """:return: the layers in the loop: with moving out, those that must run per step (stateful ones that
        cannot run over time, those that depend on their own previous frame, the ``end`` layer of a dynamic length,
        the step index without a known length), their same-step dependencies and what the loop's layers read via
        ``prev:``; else all needed layers"""
        if not move_out:
            return self.templates.same_step_closure(set(needed)) - inputs
        # stateful layers that can run over time may also be moved out after the loop (as the reference)
        over_time = {name for name in self.stateful if self._can_run_over_time(name)}
        # a layer read via prev: runs per step when it is on a cycle through prev: (it needs its own earlier
        # frames); else, as the reference (observed: a cumsum of attention weights given from outside, read via
        # prev:, and the LSTM over them move out), after the loop, where prev: is its shifted frames
        roots = ((self.stateful - inputs - over_time) & needed) | (self._on_prev_cycle(needed) - inputs)
        # as the reference (observed): output layers ("is_output_layer", "need_last") and layers with a loss may move
        # out too; a dynamic length's end layer must run per step
        if self.time_dim is None and self.end_layer:
            roots.add(self.end_layer)
        if self.time_dim is None:  # the step index exists only in the loop (else also over the whole time)
            roots |= {name for name in needed if ":i" in self.layers[name].data_deps}
        loop = self.templates.same_step_closure(roots - inputs) - inputs
        while True:  # what the loop reads via prev: is in it too, unless it is computed before it
            more = {prev for name in loop for prev in self.layers[name].prev_deps} - inputs - loop
            if not more:
                return loop
            loop |= self.templates.same_step_closure(more) - inputs

    def _on_prev_cycle(self, needed: Set[str]) -> Set[str]:
        """:return: the needed layers that depend on themselves through ``prev:`` (a cycle of same-step and
        ``prev:`` dependencies)"""
        edges = {name: set(self.layers[name].deps) | set(self.layers[name].prev_deps) for name in needed}
        result: Set[str] = set()
        for start in needed:
            seen, todo = set(), list(edges[start])
            while todo:
                name = todo.pop()
                if name == start:
                    result.add(start)
                    break
                if name in seen or name not in edges:
                    continue
                seen.add(name)
                todo.extend(edges[name])
        return result

    def _with_collocated(self, loop: Set[str], needed: Set[str], inputs: Set[str]) -> Set[str]:
        """:return: ``loop`` plus the needed layers whose ``collocate_with`` names a loop layer (as the reference,
        observed: such a layer stays in the loop, e.g. a mask computed next to a layer on a ``prev:`` cycle, where
        it would move out after the loop otherwise), with their same-step dependencies and what they read via
        ``prev:`` (not the layers computed before the loop)"""
        loop = set(loop)
        changed = True
        while changed:
            changed = False
            for name in sorted(needed - loop - inputs):
                others = self.layers[name].layer_desc.get("collocate_with") or []
                others = [others] if isinstance(others, str) else list(others)
                if not any(other in loop for other in others):
                    continue
                more = self.templates.same_step_closure({name}) - inputs
                while True:
                    prev = {p for n in more for p in self.layers[n].prev_deps} - inputs - loop - more
                    if not prev:
                        break
                    more |= self.templates.same_step_closure(prev) - inputs
                loop |= more
                changed = True
        return loop

    def _with_loop_local_users(self, loop: Set[str], needed: Set[str], inputs: Set[str]) -> Set[str]:
        """:return: ``loop`` plus the needed layers using a loop layer whose frame has an axis only known inside
        the loop (e.g. ``cum_concat``'s history): such a frame cannot be accumulated over the steps"""
        loop = set(loop)
        local = {name for name in loop if _has_loop_local_axis(self.layers[name].output)}
        changed = bool(local)
        while changed:
            changed = False
            for name in needed - loop - inputs:
                if set(self.layers[name].deps) & local:
                    loop |= self.templates.same_step_closure({name}) - inputs
                    if _has_loop_local_axis(self.layers[name].output):
                        local.add(name)
                    changed = True
        return loop
