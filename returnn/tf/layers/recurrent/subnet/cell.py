"""``SubnetworkRecCell``: a ``rec`` layer's ``unit`` dict -- templates, which layers run in the loop, the loop.

Phases (see :mod:`.template`, :mod:`.loop`, :mod:`.move_out`):

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

from typing import Any, Dict, List, Optional, Set

from returnn.errors import LayerArgError, LayerShapeError, AxisDescriptionError
from returnn.log import log
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.scope_names import scope_prefix_of
from returnn.tf.layers.recurrent.subnet.initial import check_initial_output
from returnn.tf.layers.recurrent.subnet.template import SubnetTemplates, TemplateLayer, builds_loss
from returnn.tf.layers.search.beam import beam_dim


def _has_rec_state(layer: TemplateLayer) -> bool:
    """:return: whether the layer carries a state from step to step in the loop (``rnn_cell``, ``rec`` with a
    string unit, ``masked_computation``, ...; not a nested ``rec`` with a unit dict)"""
    if not getattr(layer.cls, "has_rec_state", False):
        return False
    return not (layer.layer_class == "rec" and not isinstance(layer.kwargs.get("unit", "lstm"), str))


def _has_loop_local_axis(frame: Tensor) -> bool:
    """:return: whether the frame template has a dynamic axis whose lengths are only known inside the loop"""
    return any(d.is_dynamic() and not d.is_batch_dim() and d.dyn_size is None for d in frame.dims)


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


class SubnetworkRecCell:
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
        self.unit = unit
        self.parent_net = parent_net
        self.sources = sources
        self.target = target[0] if isinstance(target, (list, tuple)) and target else target
        self.size_target = size_target
        self.max_seq_len = max_seq_len
        self.include_eos = include_eos
        self.axis = axis if isinstance(axis, Dim) else None  # the rec layer's "axis": the dim to loop over
        self.search = bool(parent_net.search_flag)
        if optimize_move_layers_out is None:
            optimize_move_layers_out = parent_net.config.bool("optimize_move_layers_out", True)
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
        self.net = self.sub_net  # after build: the network of the loop's step (see build)
        self.input_layers_net: Any = None
        self.output_layers_net: Any = None
        if not isinstance(unit, dict) or "output" not in unit:
            raise LayerArgError(layer=rec_name, layer_class="rec", arg="unit",
                                problem="the recurrent subnetwork (unit dict) needs a layer named 'output' in",
                                got=sorted(unit) if isinstance(unit, dict) else unit,
                                hint="the rec layer's output is the unit's 'output' layer")
        try:
            self.templates = SubnetTemplates(rec_name, unit, self.sub_net, self.time_dim, self.source_template)
            self.layers: Dict[str, TemplateLayer] = self._build_templates()
        except (LayerArgError, LayerShapeError, AxisDescriptionError) as exc:
            names = [n for n in unit if getattr(exc, "layer", None) == n]
            if names:
                raise rename_layer_error(exc, f"{rec_name}/{names[0]}", names[0]) from None
            raise
        # in a search, all choices in the order a step runs them; one with "search": False extends each hypothesis
        # by its target (a "forced" choice: the hypotheses stay, their scores add the target's log-probability)
        self.forced_choices = {n for n, l in self.layers.items()
                               if l.is_choice() and unit[n].get("search") not in (None, True)}
        self.choices = self._ordered_choices([n for n, l in self.layers.items() if l.is_choice()])
        self.beam_size = 1  # the loop's beam (the hypotheses carried from step to step): the last search's
        searching = [n for n in self.choices if n not in self.forced_choices]
        if self.search and searching:
            self.beam_size = int(unit[searching[-1]].get("beam_size", 1))
        self.end_layer = "end" if "end" in unit else None
        if self.time_dim is None and self.end_layer is None and max_seq_len is None:
            raise LayerArgError(layer=rec_name, layer_class="rec", arg="max_seq_len",
                                problem="the loop length is undefined: no 'end' layer in the unit and no",
                                got=None, expected="an 'end' layer (bool per hypothesis) or max_seq_len",
                                hint="add e.g. \"end\": {\"class\": \"compare\", \"from\": \"output\", \"value\": 0} "
                                     "to the unit, or set max_seq_len (e.g. \"max_len_from('base:encoder') * 3\")")
        # as the reference (observed): the layers max_seq_len refers to are built with the rec layer, also when
        # the loop's length comes from its input or target (their params exist, e.g. a frozen encoder's)
        from returnn.tf.layers.recurrent.subnet.loop import max_seq_len_base_layers
        for name in max_seq_len_base_layers(max_seq_len):
            self.get_base_layer(name)
        self._classify()
        self._check_initial_outputs()
        # the network of the layers moved out of the loop (before and after it: one network here), set by build();
        # the reference's names: its layers are e.g. ``cell.output_layers_net.layers["x"]``
        self.input_layers_net: Any = None
        self.output_layers_net: Any = None

    # ---- phase 1
    def _fixed_time_dim(self) -> Optional[Dim]:
        """:return: the loop's time dim when its length is known before the loop (input or target)"""
        if self.source_template is not None and self.source_template.time_dim is not None:
            return self.source_template.time_dim
        self.declared_time_dim = self._declared_rec_time()
        if self.declared_time_dim is None and self.axis is not None:
            self.declared_time_dim = self.axis
        if self.declared_time_dim is not None:
            return self.declared_time_dim
        # in a search with the train flag (e.g. MBR training), the reference runs the loop for the target's length
        # (observed: every hypothesis gets the target's length, the end layer does not end it)
        # with "cheating" (the gold hypothesis in the beam), also in a search, as the reference (observed)
        cheating = any(isinstance(desc, dict) and desc.get("class") == "choice" and desc.get("cheating")
                       for desc in self.unit.values())
        key = self.size_target or (self.target if not self.search or self.parent_net.train_flag is not False or cheating
                                   else None)
        if key and not str(key).startswith("layer:") and key in self.parent_net.extern_data.data:
            data = self.parent_net.get_extern_data(key)
            return data.time_dim
        return None

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

    def _build_templates(self) -> Dict[str, TemplateLayer]:
        return self.templates.build()

    def get_output_template(self) -> Tensor:
        """:return: the rec layer's output: the unit's ``output`` frame with the loop's time axis first"""
        frame = self.layers["output"].output
        time_dim = self.time_dim
        if time_dim is None:
            time_dim = SpatialDim(f"dyn-time:{self.rec_name}")
            self.time_dim_out = time_dim
        else:
            self.time_dim_out = time_dim
        if self.search and self.beam_size > 1 and self.time_dim is not None:
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
        a forced choice keeps those it extends)"""
        while level > 0 and self.choices[level - 1] in self.forced_choices:
            level -= 1
        if level == 0 or not self.choices:
            return self.beam_size
        return int(self.unit[self.choices[level - 1]].get("beam_size", 1))

    # ---- phase 2
    def _classify(self) -> None:
        t = self.templates
        layers = self.layers
        stateful = {n for n, l in layers.items() if _has_rec_state(l)}
        self.stateful = stateful
        move_out = self.optimize_move_layers_out and not self.search
        inputs: Set[str] = set()
        if move_out:
            changed = True
            while changed:
                changed = False
                for n, l in layers.items():
                    if n in inputs:
                        continue
                    if l.layer_desc.get("masked_from"):  # over other frames than the loop's when moved out
                        continue
                    if n in stateful:  # e.g. rnn_cell: over the whole sequence, base: only in initial_state
                        if not self._can_run_over_time(n):
                            continue
                    elif l.base_deps and not getattr(l.cls, "unstacks_over_loop", False):
                        continue
                    if any(not self._on_loop_axis(dd) for dd in l.data_deps):
                        continue
                    if all(d in inputs for d in l.deps) and all(p in inputs for p in l.prev_deps):
                        inputs.add(n)
                        changed = True
            # only layers that actually have the loop's time axis (through an input frame) move out
            with_axis: Set[str] = set()
            changed = True
            while changed:
                changed = False
                for n in inputs - with_axis:
                    l = layers[n]
                    if (any(self._on_loop_axis(dd) for dd in l.data_deps) or getattr(l.cls, "unstacks_over_loop", False)
                            or any(d in with_axis for d in l.deps + l.prev_deps)):
                        with_axis.add(n)
                        changed = True
            inputs = with_axis
        needed_roots = {"output"}
        needed_roots |= {n for n in layers if builds_loss(self.unit[n], self.sub_net)}
        # as the reference: "is_output_layer": True makes a sub layer available outside the loop ("rec/x")
        # "need_last": True: its last frame is read after the loop (rec_last_output)
        output_layers = {n for n, l in layers.items()
                         if l.layer_desc.get("is_output_layer") or l.layer_desc.get("need_last")}
        needed_roots |= output_layers
        if self.time_dim is None and self.end_layer:
            needed_roots.add(self.end_layer)
        if self.search:
            needed_roots |= set(self.choices)
        needed = self._prev_closure(needed_roots)
        inputs &= needed
        if move_out:
            # stateful layers that can run over time may also be moved out after the loop (as the reference)
            over_time = {n for n in stateful if self._can_run_over_time(n)}
            roots = ((stateful - inputs - over_time) & needed) | {p for n in needed for p in layers[n].prev_deps}
            roots |= needed_roots - {"output"} - {n for n in needed_roots if layers[n].loss}
            if self.time_dim is None:  # the step index exists only in the loop (else also over the whole time)
                roots |= {n for n in needed if ":i" in layers[n].data_deps}
            roots -= inputs
        else:
            roots = set(needed)
        loop = t.same_step_closure(roots) - inputs
        # a loop layer whose frame has an axis only known inside the loop (e.g. cum_concat's history) cannot be
        # accumulated over the steps: the layers using it stay in the loop too
        local = {n for n in loop if _has_loop_local_axis(layers[n].output)}
        changed = bool(local)
        while changed:
            changed = False
            for n in needed - loop - inputs:
                if set(layers[n].deps) & local:
                    loop |= t.same_step_closure({n}) - inputs
                    local |= {n} if _has_loop_local_axis(layers[n].output) else set()
                    changed = True
        self.inputs = inputs
        self.loop = loop
        # moved-out input layers the loop reads (directly or through other such layers): built before the loop, in
        # the reference's order; the other moved-out layers are built after the loop
        before: Set[str] = set()
        todo = [d for n in loop for d in layers[n].deps + layers[n].prev_deps if d in inputs]
        while todo:
            n = todo.pop()
            if n not in before:
                before.add(n)
                todo.extend(d for d in layers[n].deps + layers[n].prev_deps if d in inputs)
        self.inputs_before_loop = [n for n in t.discovery_order() if n in before]
        self.outputs = needed - loop - inputs
        self.unused = set(layers) - needed
        self.prev_in_loop = sorted({p for n in loop for p in layers[n].prev_deps} - inputs)
        # loop layers whose values are needed after the loop
        acc = {"output"} & loop
        for n in self.outputs:
            acc |= (set(layers[n].deps) | set(layers[n].prev_deps)) & loop
        used_after = set(acc) | (output_layers & loop)
        # in a search, a loss is over the hypotheses of each step as they were (not followed back from the final
        # ones, as the reference: observed sums of an in-loop error count)
        self.search_loss_only = {n for n in loop if self.search_reports_loss(n)} - used_after
        acc = used_after | {n for n in loop if builds_loss(self.unit[n], self.sub_net)}
        self.accumulated = sorted(acc)
        # search: the level of a layer is the number of the step's choices it comes after (0: before the first;
        # its rows are the hypotheses of the previous step, else those of the level's choice)
        self.choice_level: Dict[str, int] = {}
        if self.search:
            for name in layers:
                closure = t.same_step_closure({name})
                self.choice_level[name] = max((j + 1 for j, c in enumerate(self.choices) if c in closure), default=0)
        self.choice_dependent = {n for n, level in self.choice_level.items() if level > 0}
        self._print_summary()

    def search_reports_loss(self, name: str) -> bool:
        """:return: whether the loss of sub layer ``name`` is computed in a search, as the reference (observed): with
        the train flag (e.g. the extra search network of a training network; not in a search task), a loss without
        target (e.g. ``as_is`` of an error count), over the frames of the hypotheses of each step"""
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
        result = set(names)
        todo = list(names)
        while todo:
            n = todo.pop()
            for d in self.templates.same_step_closure({n}):
                for p in self.layers[d].prev_deps + [d]:
                    if p not in result:
                        result.add(p)
                        todo.append(p)
        return result

    def _on_loop_axis(self, data_name: str) -> bool:
        if data_name == ":i":  # moved out: the step of each frame, on the loop's (known) time axis
            return self.time_dim is not None
        if data_name == "data:source":
            return True
        key = data_name[len("data:"):]
        data = self.parent_net.extern_data.data.get(key)
        return data is not None and self.time_dim is not None and data.time_dim == self.time_dim

    def _check_initial_outputs(self) -> None:
        for n in {p for l in self.layers.values() for p in l.prev_deps}:
            if n in self.unused:
                continue
            tmpl = self.layers[n]
            check_initial_output(f"{self.rec_name}/{n}", tmpl.layer_class, self.unit[n].get("initial_output"),
                                 tmpl.output, self.get_base_layer)

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
        """:return: the unit's layers computed over the whole sequence before the loop (sorted names)"""
        return sorted(self.inputs)

    @property
    def output_layers_moved_out(self) -> List[str]:
        """:return: the unit's layers computed over the whole sequence after the loop (sorted names)"""
        return sorted(self.outputs)

    # ---- phase 3
    def build(self, rec_layer: Any) -> None:
        """Creates the loop and all ops; sets ``rec_layer.output.placeholder`` and registers sub-layer losses.
        Afterwards :attr:`net` is the network of the loop's step (the layers in the loop, as built inside the while
        loop; the template network when no layer is in the loop) and :attr:`output_layers_net` /
        :attr:`input_layers_net` the network of the layers moved out of the loop (one network here, holding both;
        ``input_layers_net`` is None when no layer moved out before the loop)."""
        from returnn.tf.layers.recurrent.subnet.loop import build_loop
        try:
            build_loop(self, rec_layer)
        except (LayerArgError, LayerShapeError, AxisDescriptionError) as exc:
            names = [n for n in self.unit if getattr(exc, "layer", None) == n]
            if names:
                raise rename_layer_error(exc, f"{self.rec_name}/{names[0]}", names[0]) from None
            raise
