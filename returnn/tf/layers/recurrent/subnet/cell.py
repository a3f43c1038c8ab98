"""``SubnetworkRecCell``: a ``rec`` layer's ``unit`` dict -- templates, which layers run in the loop, the loop.

Phases (see :mod:`.template`, :mod:`.loop_membership`, :mod:`.loop`, :mod:`.move_out`):

1. At ``transform_config_dict`` time: templates of all sub layers and the dependency graph; bad input is
   reported here, naming the sub layer as ``<rec>/<layer>`` (missing ``prev:``/``base:`` layers, ``prev:``
   without an initial output, ``choice`` without ``target`` in training, ``beam_size`` < 1, a search without
   ``end`` layer and without ``max_seq_len``).
2. Classification (training with ``optimize_move_layers_out``, the default): *input* layers that only depend
   on the input frames / targets (and ``prev:`` of such layers) are computed once over the whole sequence
   before the loop; *output* layers nobody in the loop needs are computed after the loop over the accumulated
   outputs; the rest runs per step in a ``tf.while_loop``. In search (or with
   ``optimize_move_layers_out: False``) every needed layer runs in the loop.
3. Build: the loop, the accumulation of per-step outputs (TensorArrays, time-major), losses of sub layers
   (registered in the enclosing network as ``"<rec>/<layer>"``, frames summed as outside), and in search the
   back-tracking of the final hypotheses.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional, Set

from returnn.errors import LayerArgError, LayerShapeError, AxisDescriptionError
from returnn.log import log
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.scope_names import scope_prefix_of
from returnn.tf.layers.recurrent.subnet.flatten import flatten_unit, pop_load_on_init
from returnn.tf.layers.recurrent.subnet.initial import check_initial_output
from returnn.tf.layers.recurrent.subnet.loop_membership import LoopMembership
from returnn.tf.layers.recurrent.subnet.levels import latest_choice, step_levels, stored_level
from returnn.tf.layers.recurrent.subnet.max_seq_len import max_seq_len_base_layers
from returnn.tf.layers.recurrent.subnet.template import SubnetTemplates, TemplateLayer, builds_loss
from returnn.tf.layers.search.beam import beam_dim


def _has_rec_state(layer: TemplateLayer) -> bool:
    """:return: whether the layer carries a state from step to step in the loop (``rnn_cell``, ``rec`` with a
    string unit, ``masked_computation``, ...; not a nested ``rec`` with a unit dict)"""
    if not getattr(layer.cls, "has_rec_state", False):
        return False
    return not (layer.layer_class == "rec" and not isinstance(layer.kwargs.get("unit", "lstm"), str))


def rename_layer_error(exc: Exception, full_name: str, short_name: str) -> Exception:
    """:return: ``exc`` re-created naming ``full_name`` (``output/s``) instead of ``short_name``, if it names it"""
    if isinstance(exc, LayerArgError) and exc.layer == short_name:
        return LayerArgError(layer=full_name, layer_class=exc.layer_class, arg=exc.arg, problem=exc.problem,
                             expected=exc.expected, got=exc.got, suggestions=exc.suggestions, hint=exc.hint)
    if isinstance(exc, LayerShapeError) and exc.layer == short_name:
        return LayerShapeError(layer=full_name, layer_class=exc.layer_class, problem=exc.problem,
                               expected=exc.expected, got=exc.got, hint=exc.hint)
    if isinstance(exc, AxisDescriptionError) and exc.layer in (None, short_name):
        return exc.with_layer(full_name)
    return exc


class SubnetworkRecCell(LoopMembership):
    """The unit of a ``rec`` layer given as a dict.

    :param rec_name: the rec layer's name
    :param unit: the unit dict
    :param parent_net: the network the rec layer is in
    :param sources: the rec layer's source layers (``from``), may be empty
    :param target: the rec layer's ``target``
    :param size_target: the rec layer's ``size_target``
    :param max_seq_len: None, an int, or an expression such as ``"max_len_from('base:encoder') * 3"``
    :param optimize_move_layers_out: move layers out of the loop in training (default True)
    :param include_eos: count the frame where ``end`` becomes true in the output length
    :param name_scope: the rec layer's ``name_scope`` (the scope of the unit's layers; default ``<rec>/rec``)
    """

    def __init__(self, *, rec_name: str, unit: Dict[str, Any], parent_net: Any, sources: List[Any],
                 target: Any = None, size_target: Any = None, max_seq_len: Any = None,
                 optimize_move_layers_out: Optional[bool] = None, include_eos: bool = False,
                 name_scope: Optional[str] = None, axis: Any = None):
        from returnn.tf.network import TFNetwork
        from returnn.tf.layers.core.sources import concat_sources_template

        self.rec_name = rec_name
        self.unit = unit = flatten_unit(unit)  # subnetwork layers flattened into the unit ("sub/x", as the reference)
        self.load_on_init: Dict[str, Any] = pop_load_on_init(unit) if isinstance(unit, dict) else {}  # by "sub"
        self.parent_net = parent_net
        self.sources = sources
        self.target = target[0] if isinstance(target, (list, tuple)) and target else target
        self.size_target = size_target
        self.max_seq_len = max_seq_len
        self.include_eos = include_eos
        self.axis = axis if isinstance(axis, Dim) else None  # the rec layer's "axis": the dim to loop over
        # as the reference (observed): a choice with "search": True searches also in a network without search flag
        self.search = bool(parent_net.search_flag) or any(
            isinstance(desc, dict) and desc.get("class") == "choice" and desc.get("search") is True
            for desc in unit.values()) if isinstance(unit, dict) else bool(parent_net.search_flag)
        if optimize_move_layers_out is None:
            optimize_move_layers_out = parent_net.options.optimize_move_layers_out
        self.optimize_move_layers_out = bool(optimize_move_layers_out)
        self.source_template: Optional[Tensor] = None
        if sources:
            self.source_template = concat_sources_template(sources, name=f"{rec_name}/data:source", layer_class="rec")
        self.time_dim: Optional[Dim] = self._fixed_time_dim()
        # as the reference (observed: the base layers a unit reads draw their seeds after it): once the loop's
        # length source (input or target) is known and before the templates, the rec layer's network draws the
        # seed of the loop's network (in-loop layers' initializers and dropout)
        self.loop_seed = int(parent_net.random.randint(2 ** 31))
        # sub layers' variables are "<rec>/rec/<layer>/..." (the reference's names); with the rec layer's
        # name_scope "<name_scope>/<layer>/..." ("" : "<layer>/...", as the reference, observed)
        self.sub_prefix = f"{parent_net.get_absolute_name_prefix()}{rec_name}/rec/"
        self.sub_scope_prefix = parent_net.get_layer_scope_name(rec_name) + "/rec/" if name_scope is None \
            else scope_prefix_of(parent_net.get_layer_scope_name(rec_name, name_scope))
        self.sub_net = TFNetwork(parent_net=parent_net, absolute_name_prefix=self.sub_prefix, name=rec_name,
                                 is_inside_rec_layer=True, absolute_name_scope_prefix=self.sub_scope_prefix)
        self.sub_net.rec_loop_dim = self.time_dim
        self.net = self.sub_net  # after build: the network of the loop's step (see build)
        # the network of the layers moved out of the loop (before and after it: one network here), set by build();
        # the reference's names: its layers are e.g. ``cell.output_layers_net.layers["x"]``
        self.input_layers_net: Any = None
        self.output_layers_net: Any = None
        if not isinstance(unit, dict) or "output" not in unit:
            raise LayerArgError(layer=rec_name, layer_class="rec", arg="unit",
                                problem="the recurrent subnetwork (unit dict) needs a layer named 'output' in",
                                got=sorted(unit) if isinstance(unit, dict) else unit,
                                hint="the rec layer's output is the unit's 'output' layer")
        with self._errors_naming_sub_layers():
            self.templates = SubnetTemplates(rec_name, unit, self.sub_net, self.time_dim, self.source_template)
            self.layers: Dict[str, TemplateLayer] = self.templates.build()
        # in a search, all choices in the order a step runs them; one with "search": False extends each hypothesis
        # by its target (a "forced" choice: the hypotheses stay, their scores add the target's log-probability)
        self.forced_choices = {name for name, layer in self.layers.items()
                               if layer.is_choice() and unit[name].get("search") not in (None, True)}
        self.choices = self._ordered_choices([name for name, layer in self.layers.items() if layer.is_choice()])
        self.beam_size = 1  # the loop's beam (the hypotheses carried from step to step): the last search's
        searching = [name for name in self.choices if name not in self.forced_choices]
        if self.search and searching:
            self.beam_size = int(unit[searching[-1]].get("beam_size", 1))
        self.end_layer = "end" if "end" in unit else None
        # as the reference (observed): in a search over the input's frames, the ``end`` layer still ends the
        # hypotheses (their lengths are its, at most the input's; the loop runs at most over the input)
        self.search_ends_within_input = bool(
            self.search and searching and self.end_layer is not None and self.time_dim is not None
            and self.source_template is not None and self.source_template.time_dim is self.time_dim)
        if self.time_dim is None and self.end_layer is None and max_seq_len is None:
            raise LayerArgError(layer=rec_name, layer_class="rec", arg="max_seq_len",
                                problem="the loop length is undefined: no 'end' layer in the unit and no",
                                got=None, expected="an 'end' layer (bool per hypothesis) or max_seq_len",
                                hint="add e.g. \"end\": {\"class\": \"compare\", \"from\": \"output\", \"value\": 0} "
                                     "to the unit, or set max_seq_len (e.g. \"max_len_from('base:encoder') * 3\")")
        # as the reference (observed): the layers max_seq_len refers to are built with the rec layer, also when
        # the loop's length comes from its input or target (their params exist, e.g. a frozen encoder's)
        for name in max_seq_len_base_layers(max_seq_len):
            self.get_base_layer(name)
        self._classify()
        self._check_initial_outputs()

    # ---- phase 1
    def _fixed_time_dim(self) -> Optional[Dim]:
        """:return: the loop's time dim when its length is known before the loop (input or target)"""
        if self.source_template is not None and self.source_template.time_dim is not None:
            return self.source_template.time_dim
        self.declared_time_dim = self._declared_rec_time()
        if self.declared_time_dim is None and self.axis is not None and (
                "end" not in self.unit or self.axis.dimension is not None or self.axis.dyn_size is not None):
            # a dim whose lengths are known before the loop (else, with an "end" layer, the loop gives them to it)
            self.declared_time_dim = self.axis
        if self.declared_time_dim is not None:
            return self.declared_time_dim
        # in a search with the train flag (e.g. MBR training), the reference runs the loop for the target's length
        # when a layer of the unit other than a choice reads a target of the extern data (observed: every hypothesis
        # gets the target's length, the end layer does not end it; with only "layer:..." targets the end layer
        # ends it); with "cheating" (the gold hypothesis in the beam), also in a search, as the reference (observed)
        cheating = any(isinstance(desc, dict) and desc.get("class") == "choice" and desc.get("cheating")
                       for desc in self.unit.values())
        reads_target = self.parent_net.train_flag is not False and self._unit_reads_extern_target()
        key = self.size_target or (self.target if not self.search or reads_target or cheating else None)
        if key and not str(key).startswith("layer:") and key in self.parent_net.extern_data.data:
            data = self.parent_net.get_extern_data(key)
            return data.time_dim
        return None

    def _unit_reads_extern_target(self) -> bool:
        """:return: whether a layer of the unit other than a ``choice`` has a ``target`` of the extern data"""
        for desc in self.unit.values():
            if not isinstance(desc, dict) or desc.get("class") == "choice":
                continue
            targets = desc.get("target")
            targets = [targets] if isinstance(targets, str) else list(targets or [])
            if any(not t.startswith("layer:") and t in self.parent_net.extern_data.data for t in targets):
                return True
        return False

    def _declared_rec_time(self) -> Optional[Dim]:
        """:return: the time dim declared by a ``rec_unstack`` layer with ``declare_rec_time`` (its input's axis)"""
        from returnn.tf.layers.recurrent.rec_unstack import unstack_axis
        for name, desc in self.unit.items():
            if not isinstance(desc, dict) or desc.get("class") != "rec_unstack" or not desc.get("declare_rec_time"):
                continue
            sources = desc.get("from", "data")
            sources = [sources] if isinstance(sources, str) else list(sources)
            if len(sources) != 1 or not str(sources[0]).startswith("base:"):
                raise LayerArgError(layer=f"{self.rec_name}/{name}", layer_class="rec_unstack", arg="from",
                                    problem="with declare_rec_time, the input must be one layer outside the loop:",
                                    got=sources, expected='e.g. "base:encoder"')
            data = self.get_base_layer(sources[0]).output
            return data.dims[unstack_axis(f"{self.rec_name}/{name}", data, desc.get("axis"))]
        return None

    def get_output_template(self) -> Tensor:
        """:return: the rec layer's output: the unit's ``output`` frame with the loop's time axis first"""
        frame = self.layers["output"].output
        time_dim = self.time_dim
        if time_dim is None:  # lengths from the loop: the rec layer's "axis" (without known lengths) or a new dim
            time_dim = self.axis if self.axis is not None else SpatialDim(f"dyn-time:{self.rec_name}")
        self.time_dim_out = time_dim
        if self.search_ends_within_input:  # the hypotheses' own lengths (from the end layer)
            self.time_dim_out = SpatialDim(f"dyn-time:{self.rec_name}")
        elif self.search and self.beam_size > 1 and self.time_dim is not None:
            # hypotheses are B*K: the lengths are the target's, repeated (the same axis per hypothesis: decide
            # gives the target's axis back, as the reference)
            self.time_dim_out = beam_dim(time_dim, f"{time_dim.description}:beam")
        out = Tensor(name=f"{self.rec_name}_output", dims=[self.time_dim_out, *frame.dims], dtype=frame.dtype,
                     sparse_dim=frame.sparse_dim, time_dim_axis=0,
                     feature_dim_axis=None if frame.feature_dim_axis is None else frame.feature_dim_axis + 1)
        return out

    def _ordered_choices(self, choices: List[str]) -> List[str]:
        """:return: the ``choice`` layers of the unit in the order a step runs them: each one after those it
        depends on (several choices in one step search one after the other, as the reference: a choice extends
        the hypotheses of the choice before it)
        :raises LayerArgError: in search, two choices of which neither depends on the other"""
        chosen = set(choices)
        ordered = sorted(choices, key=lambda c: len(self.templates.same_step_closure({c}) & chosen))
        if self.search:
            searching = [c for c in ordered if c not in self.forced_choices]
            for before, after in zip(searching, searching[1:]):
                if before not in self.templates.same_step_closure({after}):
                    raise LayerArgError(
                        layer=f"{self.rec_name}/{after}", layer_class="choice", arg="from",
                        problem=f"a search over several choice layers in one step needs each to depend on the one "
                                f"before it; this choice does not depend on choice {before!r} via its",
                        hint=f"make the input of {after!r} depend on {before!r} (e.g. via an embedding of it)")
        return ordered

    def level_beam(self, level: int) -> int:
        """:return: the number of hypotheses per sequence at ``level`` (0: the loop's, else the level's choice's;
        a forced choice keeps those it extends; below 0: that of the previous step's level ``level + L``)"""
        if level < 0:
            level += len(self.choices)
        while level > 0 and self.choices[level - 1] in self.forced_choices:
            level -= 1
        if level == 0 or not self.choices:
            return self.beam_size
        return int(self.unit[self.choices[level - 1]].get("beam_size", 1))

    # ---- phase 2
    def _classify(self) -> None:
        """Sorts the needed layers into those moved out before the loop (:attr:`inputs`), those in the loop
        (:attr:`loop`) and those moved out after it (:attr:`outputs`); sets what the loop carries and
        accumulates and, in search, each layer's choice level."""
        self.stateful = {name for name, layer in self.layers.items() if _has_rec_state(layer)}
        move_out = self.optimize_move_layers_out and not self.search
        inputs = self._layers_over_loop_axis(self._computable_before_loop()) if move_out else set()
        output_layers = self._output_layers()
        needed_roots = self._needed_roots(output_layers)
        needed = self._prev_closure(needed_roots)
        # layers the same in every step are computed once before the loop, in search too (as the reference,
        # observed), read by the loop for its hypotheses
        self.static_inputs = self._loop_invariant(needed) if self.optimize_move_layers_out else set()
        inputs = (inputs & needed) | self.static_inputs
        loop = self._loop_roots(needed, needed_roots, inputs, move_out)
        loop = self._with_loop_local_users(self._with_collocated(loop, needed, inputs), needed, inputs)
        self.inputs = inputs
        self.loop = loop
        #: masked_computation layers moved out before the loop over their masked_from frames: the loop reads their
        #: whole value, and an unmask in the loop keeps a count of the masked frames so far (a state)
        self.masked_inputs = {name for name in inputs if self._is_masked_input(name)}
        self.stateful |= {name for name in loop if self.layers[name].layer_class == "unmask"
                          and set(self.layers[name].deps) & self.masked_inputs}
        self.inputs_before_loop = self._inputs_read_by_loop()
        self.outputs = needed - loop - inputs
        self.unused = set(self.layers) - needed
        self.prev_in_loop = sorted({prev for name in loop for prev in self.layers[name].prev_deps} - inputs)
        self._set_accumulated(output_layers)
        self._set_choice_levels()
        self._print_summary()

    def _inputs_read_by_loop(self) -> List[str]:
        """:return: the moved-out input layers the loop reads (directly or through other such layers), in the
        reference's order (they are built before the loop; the other moved-out layers after it)"""
        def read_inputs(name: str) -> List[str]:
            return [dep for dep in self.layers[name].deps + self.layers[name].prev_deps if dep in self.inputs]

        before: Set[str] = set()
        todo = [dep for name in self.loop for dep in read_inputs(name)]
        while todo:
            name = todo.pop()
            if name not in before:
                before.add(name)
                todo.extend(read_inputs(name))
        return [name for name in self.templates.discovery_order() if name in before]

    def _set_accumulated(self, output_layers: Set[str]) -> None:
        """Sets :attr:`accumulated` (the loop layers whose per-step values are kept: read after the loop, output
        layers, losses) and :attr:`search_loss_only`."""
        used_after = {"output"} & self.loop
        for name in self.outputs:
            used_after |= (set(self.layers[name].deps) | set(self.layers[name].prev_deps)) & self.loop
        used_after |= output_layers & self.loop
        # in a search, a loss is over the hypotheses of each step as they were (not followed back from the final
        # ones, as the reference: observed sums of an in-loop error count)
        self.search_loss_only = {name for name in self.loop if self.search_reports_loss(name)} - used_after
        with_loss = {name for name in self.loop if builds_loss(self.unit[name], self.sub_net)}
        # a loss's target "layer:X" of a loop layer X: accumulated as the loss's layer is
        loss_targets = set()
        for name in with_loss:
            target = self.unit[name].get("target")
            if isinstance(target, str) and target.startswith("layer:") and target[len("layer:"):] in self.loop:
                loss_targets.add(target[len("layer:"):])
                if name in self.search_loss_only and target[len("layer:"):] not in used_after:
                    self.search_loss_only.add(target[len("layer:"):])
        self.accumulated = sorted(used_after | with_loss | loss_targets)

    def _set_choice_levels(self) -> None:
        """Sets, in search (see :mod:`.levels`), :attr:`choice_level` (a layer's level in its step: the number of the
        step's choices it comes after; 0: the previous step's hypotheses, below 0: those of an earlier choice of
        the previous step, which a ``prev:`` value of a layer before the last choice keeps), :attr:`stored_level`
        (the level a layer's value is handed to the next step in) and :attr:`prev_level` (the level of ``prev:X``
        and of ``X``'s carried state)."""
        self.choice_level: Dict[str, int] = {}
        self.stored_level: Dict[str, int] = {}
        self.prev_level: Dict[str, int] = {}
        if self.search:
            num = len(self.choices)
            self.stored_level = stored_level(latest_choice(self.layers, self.choices), num)
            self.prev_level = {name: level - num for name, level in self.stored_level.items()}
            self.choice_level = step_levels(self.layers, self.choices, self.prev_level, self.stateful)
        self.choice_dependent = {name for name, level in self.choice_level.items() if level > 0}

    def search_reports_loss(self, name: str) -> bool:
        """:return: whether the loss of sub layer ``name`` is computed in a search, as the reference (observed): with
        the train flag (e.g. the extra search network of a training network; not in a search task), with or
        without target, over the frames of the hypotheses each step had (not followed back from the final ones)"""
        return self.search and builds_loss(self.unit[name], self.sub_net)

    def _can_run_over_time(self, name: str) -> bool:
        """:return: whether stateful layer ``name`` can be computed over the whole sequence outside the loop (its
        class allows it, it does not use its own ``prev:``, a ``base:`` layer in its ``from`` has no time axis, so
        that it is the same in every frame; as the reference, observed: an LSTM unit reading
        ``["prev:output_embed", "base:input_last"]`` runs after the loop)"""
        layer = self.layers[name]
        sources = layer.layer_desc.get("from", [])
        sources = [sources] if isinstance(sources, str) else list(sources)
        for src in sources:
            if str(src).startswith("base:") and self.get_base_layer(str(src)).output.have_time_axis():
                return False
        return getattr(layer.cls, "can_run_over_time", False) and name not in layer.prev_deps

    def _prev_closure(self, names: Set[str]) -> Set[str]:
        """:return: ``names`` plus all layers they depend on, in the same step or via ``prev:``, transitively"""
        result = set(names)
        todo = list(names)
        while todo:
            for dep in self.templates.same_step_closure({todo.pop()}):
                for name in self.layers[dep].prev_deps + [dep]:
                    if name not in result:
                        result.add(name)
                        todo.append(name)
        return result

    def on_loop_axis(self, data_name: str) -> bool:
        """:return: whether input ``data_name`` (``data:X``, ``data:source``, ``:i``) has the loop's time axis"""
        if data_name == ":i":  # moved out: the step of each frame, on the loop's (known) time axis
            return self.time_dim is not None
        if data_name == "data:source":
            return True
        key = data_name[len("data:"):]
        data = self.parent_net.extern_data.data.get(key)
        return data is not None and self.time_dim is not None and data.time_dim == self.time_dim

    def _check_initial_outputs(self) -> None:
        for name in {prev for layer in self.layers.values() for prev in layer.prev_deps} - self.unused:
            layer = self.layers[name]
            check_initial_output(f"{self.rec_name}/{name}", layer.layer_class, self.unit[name].get("initial_output"),
                                 layer.output, self.get_base_layer)

    def get_base_layer(self, name: str) -> Any:
        """:return: a layer of the enclosing network (``"base:X"`` or ``"X"``)"""
        if name.startswith("base:"):
            name = name[len("base:"):]
        return self.parent_net.get_layer(name)

    def _print_summary(self) -> None:
        train = self.parent_net.train_flag
        print(f"Rec layer {self.rec_name!r} (search {self.search}, train {train!r}) sub net:", file=log.v4)
        for title, names in (("Input layers moved out of loop", self.inputs),
                             ("Output layers moved out of loop", self.outputs),
                             ("Layers in loop", self.loop), ("Unused layers", self.unused)):
            print(f"  {title}: (#: {len(names)})", file=log.v4)
            for n in sorted(names) or ["None"]:
                print(f"    {n}", file=log.v4)

    # ---- the reference's names of the parts
    @property
    def input_layers_moved_out(self) -> List[str]:
        """:return: the unit's layers computed over the whole sequence before the loop that the loop reads (directly
        or through other such layers), sorted names; as the reference (observed), a layer moved out that no loop
        layer reads counts as moved out after the loop (:attr:`output_layers_moved_out`), e.g. all of them when
        no layer is left in the loop"""
        return self._with_sub_layer_refs(sorted(self.inputs_before_loop))

    @property
    def output_layers_moved_out(self) -> List[str]:
        """:return: the unit's other layers computed over the whole sequence (after the loop, or before it but not
        read by the loop), in the reference's order (observed): the layers are taken one at a time, each time the
        first in depth-first order from the needed layers (``output``, losses, output layers; by name) that no other
        layer still to take depends on (also via ``prev:``)"""
        remaining = set(self.outputs | (set(self.inputs) - set(self.inputs_before_loop)))
        roots = sorted(set(self._output_layers()) | {"output"}
                       | {name for name in self.layers if builds_loss(self.unit[name], self.sub_net)})
        order = [name for name in self.templates.construction_order(roots) if name in remaining]
        result: List[str] = []
        while remaining:
            free = [name for name in order if name in remaining and not any(
                name in self.layers[other].deps or name in self.layers[other].prev_deps
                for other in remaining if other != name)]
            if not free:  # (a cycle through prev: among them) the rest by name
                result.extend(sorted(remaining))
                break
            result.append(free[0])
            remaining.remove(free[0])
        return self._with_sub_layer_refs(result)

    def _with_sub_layer_refs(self, names: List[str]) -> List[str]:
        """:return: ``names``, each followed by the sub layers of it that the unit reads (``"split/0"``), as the
        reference's lists (observed: a moved-out ``split`` is listed with ``split/0`` and ``split/1``)"""
        return [n for name in names
                for n in [name] + sorted(ref for ref in self.templates.sub_layer_refs if ref.split("/", 1)[0] == name)]

    @property
    def layer_data_templates(self) -> Dict[str, TemplateLayer]:
        """:return: the reference's name of the unit's templates: sub layer name -> template layer, whose
        ``.output`` is the per-frame template (e.g. ``{B, F}`` for a layer with a feature axis)"""
        return self.layers

    @property
    def layers_in_loop(self) -> List[str]:
        """:return: the unit's layers computed step by step in the loop (sorted names), each followed by the sub
        layers of it that the unit reads (as the reference: ``"masked/sub1"`` of a ``masked_computation``)"""
        return self._with_sub_layer_refs(sorted(self.loop))

    # ---- phase 3
    def build(self, rec_layer: Any) -> None:
        """Creates the loop and all ops; sets ``rec_layer.output.placeholder`` and registers sub-layer losses.
        Afterwards :attr:`net` is the network of the loop's step (the layers in the loop, as built inside the while
        loop; the template network when no layer is in the loop) and :attr:`output_layers_net` /
        :attr:`input_layers_net` the network of the layers moved out of the loop (one network here, holding both;
        ``input_layers_net`` is None when no layer moved out before the loop)."""
        from returnn.tf.layers.recurrent.subnet.loop import build_loop
        with self._errors_naming_sub_layers():
            build_loop(self, rec_layer)
        self.full_layers: Dict[str, Any] = rec_layer.sub_layers

    def get_layer_from_outside(self, name: str) -> Any:
        """:return: sub layer ``name`` over the whole sequence (the reference's name): moved out of the loop, or the
        loop's accumulated outputs
        :raises LayerNotFound: no such layer (one of the unit's layers that nothing needs, or not in the unit)"""
        layer = getattr(self, "full_layers", {}).get(name)
        if layer is None:
            from returnn.errors import LayerNotFound
            raise LayerNotFound(f"layer {name!r} of rec layer {self.rec_name!r} is not available over the whole "
                                f"sequence", layer_name=name, network=self.sub_net,
                                suggestions=sorted(getattr(self, "full_layers", {})))
        return layer

    @contextlib.contextmanager
    def _errors_naming_sub_layers(self) -> Iterator[None]:
        """A layer error raised inside that names a sub layer ``x`` is re-raised naming it ``<rec>/x``."""
        try:
            yield
        except (LayerArgError, LayerShapeError, AxisDescriptionError) as exc:
            names = [name for name in self.unit if getattr(exc, "layer", None) == name]
            if names:
                raise rename_layer_error(exc, f"{self.rec_name}/{names[0]}", names[0]) from None
            raise
