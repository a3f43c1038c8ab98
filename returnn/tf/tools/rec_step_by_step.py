"""The step-by-step graph of a recurrent subnetwork (``tools/compile_tf_graph.py --rec_step_by_step NAME``), for a
decoder outside TensorFlow (e.g. RASR) that runs the search itself, one step at a time.

Everything the loop carries from step to step lives in resource variables under ``IO/`` (the *state vars*); the
graph has ops that read and write them. The protocol, as the reference's graph has it (observed), with
``i`` the step, increased by the caller (or by the decode op with ``update_i_in_graph``):

1. ``init_op`` (``rec_step_by_step_init_op``, collection ``encode_ops``), fed with the network's input: computes
   the layers outside the loop that the unit reads (``base_value_<layer>``, with the lengths of their dynamic axes
   in ``base_size_<dim>``) and sets the initial values: ``i`` = 0, the initial outputs read via ``prev:``, the
   initial states of stateful layers (e.g. an LSTM's ``c`` and ``h``), ``end_flag`` False, ``dyn_seq_len`` 0,
   ``cond`` True.
2. per step: the update op (collection ``update_ops``): for ``i > 0``, the *delayed* layers -- those kept for the
   next step (read via ``prev:`` or stateful) that depend on the step's choice, e.g. the choice itself -- are
   computed from the choice the caller made in the step before, into ``state_delayed/<layer>/...``;
3. per choice layer, in ``stochastic_var_order``: its ``calc_scores_op`` writes the log-probabilities of its input
   ``[B, V]`` into its ``scores_state_var``; the caller writes its labels ``[B]`` into the ``choice_state_var``;
4. the decode op (``group_deps``, collection ``decode_ops``): computes the step's other layers with those labels
   and writes the new values into ``state/<layer>/output`` and ``state/<layer>/extra/state/<key>``; with an
   ``end`` layer also ``end_flag`` (ended before or now), ``dyn_seq_len`` (+1 where not ended) and ``cond``
   (some sequence had not ended before this step); it also writes the scores again (as the reference's).

The JSON file (``--rec_step_by_step_output_file``) describes it: ``init_op``, ``state_vars`` (name -> ``var_op``,
``shape`` with None for dynamic axes, ``dtype``), ``stochastic_var_order`` and ``stochastic_vars`` (choice name ->
``calc_scores_op``, ``choice_state_var``, ``scores_state_var``).

Differences to the reference: the choice and scores variables are set (zeros) by the init op (the reference leaves
them uninitialized until the first step); the layers outside the loop that read the rec layer (e.g. ``decide``)
are not built; a delayed layer may read non-delayed layers of its own step only via ``prev:``.

Values, compared with the reference's graph of the same config and params (observed): for the reference's
``test_tools.py`` configs with an LSTM decoder and with a time-synchronous transducer, and for a unit whose
embedding reads the step's own choice, every state var after each op and all scores are equal. With its attention
config, the reference's decode op writes an LSTM state other than the one its scores op used, so from the second
step on its scores differ; ours equal the log-probabilities of the rec loop with the chosen labels as target. With
its delayed transducer (a second LSTM after the choice), the delayed LSTM's values differ slightly from the
reference's (names, shapes and the other values are equal).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Set, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.log import log
from returnn.tensor import Dim, SpatialDim, Tensor

#: the collection of state variables kept per hypothesis, as the reference names it
STATE_VARS_COLLECTION = "_RETURNN_state_vars"
INIT_OP_NAME = "rec_step_by_step_init_op"


def _escape(name: str) -> str:
    """:return: ``name`` usable in a variable name as the reference writes it (``time:var:x`` -> ``time__var__x``)"""
    return name.replace(":", "__").replace(" ", "_")


class StateVar:
    """One resource variable under ``IO/`` (:attr:`var`), with its value template (:attr:`template`)."""

    def __init__(self, name: str, dtype: str, shape: List[Optional[int]]):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        static = [0 if d is None else d for d in shape]
        with tf.compat.v1.variable_scope("IO", auxiliary_name_scope=False), tf.name_scope("IO/"):
            self.var = tf.Variable(tf.zeros(static, dtype=dtype), shape=tf.TensorShape(shape), name=name,
                                   trainable=False, use_resource=True)

    @property
    def var_op(self) -> str:
        """:return: the name of the variable's op (``IO/<name>``)"""
        return self.var.op.name

    def read(self) -> tf.Tensor:
        """:return: the current value (a ``ReadVariableOp``)"""
        value = self.var.read_value()
        value.set_shape(self.shape)
        return value

    def assign(self, value: tf.Tensor, name: Optional[str] = None) -> tf.Operation:
        """:return: the op writing ``value``"""
        return tf.raw_ops.AssignVariableOp(resource=self.var.handle, value=tf.cast(value, self.dtype), name=name)

    def info(self) -> Dict[str, Any]:
        """:return: the JSON entry of the variable"""
        return {"dtype": self.dtype, "shape": list(self.shape), "var_op": self.var_op}


class _FakeLoop:
    """What :class:`returnn.tf.layers.recurrent.subnet.step.LoopStep` reads of a loop, served from state vars."""

    def __init__(self, builder: "RecStepByStep"):
        self.builder = builder
        self.frame_templates = {n: builder.cell.layers[n].output for n in builder.cell.layers}
        self.batch_size = builder.batch_size
        self.max_len = None
        self.full_source_tiled = builder.source_layer

    @staticmethod
    def in_beam(template: Tensor, beam: Optional[int] = None) -> Tensor:
        return template

    def base_layer(self, name: str) -> Any:
        return self.builder.base_layer(name)

    def data_layer(self, name: str) -> Any:
        raise LayerArgError(layer=self.builder.rec_name, layer_class="rec", arg="unit",
                            problem="the step-by-step graph cannot read extern data inside the loop:", got=name,
                            hint="read it via a layer outside the loop (base:...)")

    def static_layer(self, name: str) -> Any:  # (no loop-invariant layers: move-out is off)
        raise AssertionError(name)


class RecStepByStep:
    """Builds the step-by-step graph of the rec layer ``rec_name`` of ``net_dict`` (see module doc) in the current
    default graph.

    :param network: a network of ``net_dict`` without search (its layers outside the rec layer are built on demand)
    :param rec_name: the rec layer, whose ``unit`` is a dict with at least one ``choice`` layer
    :param update_i_in_graph: the decode op also increases ``i``
    :raises LayerArgError: no such rec layer, a unit that is not a dict, no choice layer
    """

    def __init__(self, network: Any, net_dict: Dict[str, Any], rec_name: str, update_i_in_graph: bool = False):
        from returnn.tf.layers.recurrent.subnet.cell import SubnetworkRecCell

        self.network = network
        self.rec_name = rec_name
        desc = net_dict.get(rec_name)
        if not isinstance(desc, dict) or desc.get("class") != "rec" or not isinstance(desc.get("unit"), dict):
            raise LayerArgError(layer=rec_name, layer_class=str((desc or {}).get("class")), arg="--rec_step_by_step",
                                problem="needs a rec layer with a unit dict; got",
                                got=desc if not isinstance(desc, dict) else desc.get("class"),
                                suggestions=sorted(n for n, d in net_dict.items()
                                                   if isinstance(d, dict) and d.get("class") == "rec"))
        sources = desc.get("from", "data")
        sources = [sources] if isinstance(sources, str) else list(sources)
        self.source_names = sources
        src_layers = [network.get_layer(s) for s in sources]
        self.state_vars: Dict[str, StateVar] = {}
        with tf.compat.v1.variable_scope(rec_name):
            self.cell = SubnetworkRecCell(rec_name=rec_name, unit=copy.deepcopy(desc["unit"]), parent_net=network,
                                          sources=src_layers, target=desc.get("target"),
                                          size_target=desc.get("size_target"), max_seq_len=desc.get("max_seq_len"),
                                          optimize_move_layers_out=False,
                                          include_eos=bool(desc.get("include_eos", False)))
        cell = self.cell
        cell.get_output_template()
        if not cell.choices:
            raise LayerArgError(layer=rec_name, layer_class="rec", arg="unit",
                                problem="the step-by-step graph needs a choice layer in the unit; got none in",
                                got=sorted(cell.unit))
        self.update_i_in_graph = update_i_in_graph
        self.batch_size = self._batch_size(src_layers)
        self._base: Dict[str, Any] = {}
        self._base_values: Dict[str, Tuple[StateVar, tf.Tensor]] = {}
        self._base_sizes: Dict[str, Tuple[StateVar, tf.Tensor, Dim]] = {}
        self._init_values: Dict[str, tf.Tensor] = {}
        self.source_layer = None
        if src_layers:
            self.source_layer = self._stored_base_layer("data:source", src_layers, var_name=_escape(sources[0]))
        self.delayed = self._delayed_layers()
        for name in sorted(self.delayed):
            print(f"Delayed: Layer {name!r} depends on choices "
                  f"{set(cell.choices) & cell.templates.same_step_closure({name})}", file=log.v4)
        self.stochastic_vars: Dict[str, Dict[str, str]] = {}
        self.stochastic_var_order = list(cell.choices)
        self._build()

    # ---- helpers
    def _batch_size(self, src_layers: List[Any]) -> tf.Tensor:
        if src_layers and src_layers[0].output.batch_dim_axis is not None:
            out = src_layers[0].output
            return tf.shape(out.placeholder)[out.batch_dim_axis]
        net = self.network
        data = net.extern_data.data[net.extern_data.default_input]
        net.get_extern_data(net.extern_data.default_input)
        return tf.shape(data.placeholder)[data.batch_dim_axis]

    def _new_var(self, name: str, template_or_dtype: Any, shape: Optional[List[Optional[int]]] = None) -> StateVar:
        if isinstance(template_or_dtype, Tensor):
            shape = [d.dimension if not d.is_batch_dim() else None for d in template_or_dtype.dims]
            dtype = template_or_dtype.dtype
        else:
            dtype = template_or_dtype
        var = StateVar(name, dtype, list(shape or []))
        self.state_vars[name] = var
        print(f"New state var {name!r}: {var.var_op}, shape {var.shape}, dtype {dtype}", file=log.v4)
        return var

    def _stored_base_layer(self, name: str, layers: List[Any], var_name: str) -> Any:
        """:return: an internal layer whose value is read from ``base_value_<var_name>`` (set by the init op from
        ``layers``' output, batch-major), each dynamic axis with lengths from ``base_size_<dim>``"""
        from returnn.tf.layers.core.sources import concat_sources
        from returnn.tf.layers.recurrent.subnet.move_out import make_internal

        full = layers[0].output if len(layers) == 1 else concat_sources(layers, name=name)
        full = full.copy_as_batch_major()
        out = full.copy_template(name=name)
        for axis, dim in enumerate(full.dims):
            if dim.is_batch_dim() or not dim.is_dynamic():
                continue
            key = _escape(dim.description or f"dim{axis}")
            if key not in self._base_sizes:
                size_var = self._new_var(f"base_size_{key}", "int32", [None])
                self._base_sizes[key] = (size_var, dim.dyn_size, SpatialDim(f"{dim.description}_base_state_var"))
                self._base_sizes[key][2].dyn_size = size_var.read()
            out = out.copy_template_replace_dim_tag(axis, self._base_sizes[key][2], name=name)
        if var_name in self._base_values:  # e.g. the rec layer's input, also read as base:X
            var = self._base_values[var_name][0]
        else:
            var = self._new_var(f"base_value_{var_name}", full)
            self._base_values[var_name] = (var, full.placeholder)
        out.placeholder = var.read()
        return make_internal(name, self.cell.sub_net, out)

    def base_layer(self, name: str) -> Any:
        """:return: the layer ``base:name`` as the step reads it: from its state var"""
        if name not in self._base:
            self._base[name] = self._stored_base_layer(f"base:{name}", [self.network.get_layer(name)],
                                                       var_name=_escape(name))
        return self._base[name]

    def _delayed_layers(self) -> Set[str]:
        """:return: the layers kept for the next step (read via ``prev:`` or stateful) that depend on a choice of
        their own step (the choices among them)"""
        cell = self.cell
        kept = set(cell.prev_in_loop) | (cell.stateful & cell.loop)
        return {name for name in kept if cell.templates.same_step_closure({name}) & set(cell.choices)}

    def _state_keys(self, name: str) -> Dict[str, tf.Tensor]:
        """:return: the initial rec state of the stateful layer ``name`` (key -> ``[B, ...]``), keys flattened"""
        layer = self.cell.layers[name]
        kwargs = {k: v for k, v in layer.kwargs.items() if k not in ("sources", "network")}
        kwargs.update(name=name, network=self.network, n_out=layer.output.dim, rec_max_len=None,
                      param_scope=f"{tf.compat.v1.get_variable_scope().name}/{name}")
        return dict(layer.cls.get_rec_initial_state(self.batch_size, **kwargs))

    # ---- the graph
    def _build(self) -> None:
        self._create_vars()
        self._decode_net = self._build_decode()
        self._build_update()
        self._build_init()
        # collections, as the reference's graph has them
        tf.compat.v1.add_to_collection("encode_ops", self.init_op)
        tf.compat.v1.add_to_collection("decode_ops", self.decode_op)
        tf.compat.v1.add_to_collection("update_ops", self.update_op)
        for name in self.cell.choices:
            tf.compat.v1.add_to_collection("decoder_input_vars", self.choice_vars[name].var)
            tf.compat.v1.add_to_collection("decoder_output_vars", self.scores_vars[name].var)
        for name in sorted(self.state_vars):
            if name in ("end_flag", "dyn_seq_len") or name.startswith(("state/", "state_delayed/")):
                tf.compat.v1.add_to_collection(STATE_VARS_COLLECTION, self.state_vars[name].var)

    def _create_vars(self) -> None:
        """The state vars of the step, the choices and what the loop carries, with their initial values"""
        from returnn.tf.layers.recurrent.subnet.while_loop import _initial_output

        cell = self.cell
        self.i_var = self._new_var("i", "int32", [])
        self.cond_var = self._new_var("cond", "bool", [])
        self.end_var = self.len_var = None
        if cell.end_layer is not None:
            self.end_var = self._new_var("end_flag", "bool", [None])
            self.len_var = self._new_var("dyn_seq_len", "int32", [None])
        self.choice_vars: Dict[str, StateVar] = {}
        self.scores_vars: Dict[str, StateVar] = {}
        for name in cell.choices:
            self.scores_vars[name] = self._new_var(f"stochastic_var_scores_{name}", "float32",
                                                   [None, cell.layers[name].output.sparse_dim.dimension])
            self.choice_vars[name] = self._new_var(f"stochastic_var_choice_{name}", cell.layers[name].output)
        # prev: values and rec states: state/... (written by the decode op), state_delayed/... (the update op)
        self.prev_vars: Dict[str, StateVar] = {}
        self.rec_state_vars: Dict[str, Dict[str, StateVar]] = {}
        self.delayed_prev_copies: Dict[str, StateVar] = {}
        self.delayed_state_copies: Dict[str, Dict[str, StateVar]] = {}
        init = self._init = {}
        with tf.compat.v1.variable_scope(self.rec_name), tf.name_scope(f"{self.rec_name}/rec/"):
            for name in cell.prev_in_loop:
                kind = "state_delayed" if name in self.delayed else "state"
                frame = cell.layers[name].output
                self.prev_vars[name] = var = self._new_var(f"{kind}/{name}/output", frame)
                init[var] = _initial_output(cell, self.batch_size, name, frame)
            for name in sorted(cell.stateful & cell.loop):
                kind = "state_delayed" if name in self.delayed else "state"
                self.rec_state_vars[name] = {}
                for key, value in self._state_keys(name).items():
                    var = self._new_var(f"{kind}/{name}/extra/state/{key}", value.dtype.name,
                                        [None] + value.shape.as_list()[1:])
                    self.rec_state_vars[name][key] = var
                    init[var] = value
            # prev: values of non-delayed layers read by delayed ones: their value of the step before, kept
            for name in sorted(self.delayed):
                for prev in cell.layers[name].prev_deps:
                    if prev not in self.delayed and prev not in self.delayed_prev_copies:
                        frame = cell.layers[prev].output
                        self.delayed_prev_copies[prev] = var = self._new_var(f"state_delayed/{prev}/output", frame)
                        init[var] = _initial_output(cell, self.batch_size, prev, frame)
                        if prev in self.rec_state_vars:  # its cell state too (prev:X of a stateful layer has it)
                            self.delayed_state_copies[prev] = {}
                            for key, state_var in self.rec_state_vars[prev].items():
                                var = self._new_var(f"state_delayed/{prev}/extra/state/{key}", state_var.dtype,
                                                    state_var.shape)
                                self.delayed_state_copies[prev][key] = var
                                init[var] = init[state_var]

    def _new_step(self, prev_of: Dict[str, StateVar], states_of: Dict[str, Dict[str, StateVar]]) -> Any:
        """:return: a :class:`LoopStep` whose ``prev:`` values and cell states are read from the given vars and
        whose choices (and their targets) are the caller's labels"""
        from returnn.tf.layers.recurrent.subnet.step import LoopStep
        from returnn.tf.layers.recurrent.subnet.move_out import make_internal

        cell = self.cell
        i = self.i_var.read()
        prev_values = {n: prev_of[n].read() for n in cell.prev_in_loop}
        states = {n: {k: v.read() for k, v in d.items()} for n, d in states_of.items()}
        step = LoopStep(cell, _FakeLoop(self), i, prev_values, states, None)
        step.net.set_rec_step_info(i, prev_end_flag=self.end_var.read() if self.end_var is not None else None)
        step.net.set_layer_resolver(step.get_layer)
        for name in cell.choices:
            out = cell.layers[name].output.copy_template(name=name)
            out.placeholder = self.choice_vars[name].read()
            step.net.layers[name] = make_internal(name, step.net, out)
            target = cell.unit[name].get("target")
            if isinstance(target, str) and not target.startswith("layer:"):
                # the step's frame of the target, as layers with a target read it: the caller's labels
                step.net.layers[f"data:{target}"] = step.net.layers[name]
        return step

    def _build_decode(self) -> Any:
        """The scores ops and the decode op (see module doc). :return: the step's network"""
        cell = self.cell
        with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope(), auxiliary_name_scope=False):
            step = self._new_step(self.prev_vars, self.rec_state_vars)
            scores = {name: self._log_probs(step, name) for name in cell.choices}
            for name in sorted(set(cell.prev_in_loop) | (cell.stateful & cell.loop)):
                if name not in self.delayed:
                    step.get_layer(name)
            if cell.end_layer is not None:
                step.get_layer(cell.end_layer)
        for name in cell.choices:
            var = self.scores_vars[name]
            op = var.assign(scores[name], name=f"final_state_var_{var.name}")
            self.stochastic_vars[name] = {"calc_scores_op": op.name, "choice_state_var": self.choice_vars[name].name,
                                          "scores_state_var": var.name}
        new_values: Dict[StateVar, tf.Tensor] = {self.scores_vars[n]: scores[n] for n in cell.choices}
        for name, var in self.prev_vars.items():
            if name not in self.delayed:
                new_values[var] = step.net.layers[name].output.copy_compatible_to(
                    cell.layers[name].output).placeholder
        for name, d in self.rec_state_vars.items():
            if name not in self.delayed:
                for key, var in d.items():
                    new_values[var] = step.net.layers[name].rec_state[key]
        if self.end_var is not None:
            ended = self.end_var.read()
            end_now = tf.reshape(tf.cast(step.net.layers[cell.end_layer].output.placeholder, tf.bool), [-1])
            new_ended = tf.logical_or(ended, end_now)
            counted = tf.logical_not(ended) if cell.include_eos else tf.logical_not(new_ended)
            new_values[self.end_var] = new_ended
            new_values[self.len_var] = self.len_var.read() + tf.cast(counted, tf.int32)
            new_values[self.cond_var] = tf.logical_not(tf.reduce_all(ended))
        else:
            new_values[self.cond_var] = tf.constant(True)
        if self.update_i_in_graph:
            new_values[self.i_var] = self.i_var.read() + 1
        self._step_nets = [step.net]
        with tf.control_dependencies(list(new_values.values())):
            self.decode_op = tf.group(*[var.assign(value) for var, value in new_values.items()], name="group_deps")
        return step.net

    def _build_update(self) -> None:
        """The update op (for i > 0): the delayed layers from the labels of the step before (see module doc)"""
        cell = self.cell
        delayed_values: Dict[StateVar, tf.Tensor] = {}
        if self.delayed:
            prev_of = {n: (self.delayed_prev_copies.get(n) or self.prev_vars[n]) for n in cell.prev_in_loop}
            states_of = {n: self.delayed_state_copies.get(n, d) for n, d in self.rec_state_vars.items()}
            with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope(), auxiliary_name_scope=False,
                                             reuse=tf.compat.v1.AUTO_REUSE):
                with tf.name_scope("delayed_state_update_step"):
                    step = self._new_step(prev_of, states_of)
                    self._step_nets.append(step.net)
                    for name in sorted(self.delayed):
                        self._check_delayed_inputs(name)
                        layer = step.get_layer(name)
                        if name in self.prev_vars:
                            delayed_values[self.prev_vars[name]] = layer.output.copy_compatible_to(
                                cell.layers[name].output).placeholder
                        for key, var in self.rec_state_vars.get(name, {}).items():
                            delayed_values[var] = layer.rec_state[key]
            # then the copies of the non-delayed values they read via prev: move on to the latest step's
            for prev, var in self.delayed_prev_copies.items():
                delayed_values[var] = self.prev_vars[prev].read()
            for prev, d in self.delayed_state_copies.items():
                for key, var in d.items():
                    delayed_values[var] = self.rec_state_vars[prev][key].read()

        def do_update() -> tf.Tensor:
            with tf.control_dependencies([var.assign(tf.identity(v)) for var, v in delayed_values.items()]):
                return tf.constant(True)

        with tf.name_scope(f"{self.rec_name}/rec/delayed_state_update"):
            self.update_op = tf.cond(tf.greater(self.i_var.read(), 0), do_update, lambda: tf.constant(False))

    def _build_init(self) -> None:
        """The init op (see module doc)"""
        init = self._init
        init[self.i_var] = tf.constant(0)
        init[self.cond_var] = tf.constant(True)
        if self.end_var is not None:
            init[self.end_var] = tf.zeros([self.batch_size], tf.bool)
            init[self.len_var] = tf.zeros([self.batch_size], tf.int32)
        for name in self.cell.choices:
            init[self.choice_vars[name]] = tf.zeros([self.batch_size], self.choice_vars[name].dtype)
            init[self.scores_vars[name]] = tf.zeros([self.batch_size, self.scores_vars[name].shape[1]], tf.float32)
        for var, value in self._base_values.values():
            init[var] = value
        for var, value, _ in self._base_sizes.values():
            init[var] = value if value.shape.rank == 1 else tf.fill([self.batch_size], value)
        self.init_op = tf.group(*[var.assign(value) for var, value in init.items()], name=INIT_OP_NAME)

    def _check_delayed_inputs(self, name: str) -> None:
        """:raises LayerArgError: a delayed layer reading a non-delayed, non-choice layer of its own step"""
        cell = self.cell
        for dep in cell.layers[name].deps:
            if dep in cell.unit and dep not in self.delayed and dep not in cell.choices:
                raise LayerArgError(layer=f"{self.rec_name}/{name}", layer_class=cell.layers[name].layer_class,
                                    arg="from", problem="in the step-by-step graph, a layer kept for the next step "
                                    "that depends on the step's choice may read other layers of its step only via "
                                    "prev: or when they depend on the choice too; got", got=dep)

    def _log_probs(self, step: Any, choice: str) -> tf.Tensor:
        """:return: float32 ``[B, V]``: the log-probabilities of the choice's input (as the choice layer takes
        them: ``input_type`` ``"prob"`` (default) or ``"log_prob"``)"""
        cell = self.cell
        src = cell.unit[choice].get("from", "data")
        src = src[0] if isinstance(src, (list, tuple)) else src
        layer = step.get_layer(src)
        x = layer.output.copy_as_batch_major().placeholder
        if cell.unit[choice].get("input_type", "prob") == "log_prob":
            return tf.cast(x, tf.float32)
        before = getattr(layer, "output_before_activation", None)
        if before is not None and before.is_softmax_act_func() and layer.output.is_batch_major:
            return tf.nn.log_softmax(before.x)
        return tf.math.log(tf.maximum(tf.cast(x, tf.float32), 1e-30))

    @property
    def params(self) -> List[tf.Variable]:
        """:return: the variables of the unit's layers (each once, sorted by name), e.g. ``output/rec/s/rec/W``"""
        found: Dict[str, tf.Variable] = {}
        for net in self._step_nets:
            for layer in net.layers.values():
                for param in layer.params.values():
                    found.setdefault(param.name, param)
        return [found[name] for name in sorted(found)]

    def info(self) -> Dict[str, Any]:
        """:return: the JSON description (see module doc)"""
        return {"init_op": self.init_op.name,
                "state_vars": {name: var.info() for name, var in sorted(self.state_vars.items())},
                "stochastic_var_order": list(self.stochastic_var_order),
                "stochastic_vars": {name: dict(d) for name, d in self.stochastic_vars.items()}}

    def print_info(self) -> None:
        """Prints the state vars and the choices' order (log level 3)."""
        print("State vars:", file=log.v3)
        for name, var in sorted(self.state_vars.items()):
            print(f" {name}: {var.var_op!r}, shape {var.shape}, dtype {var.dtype}", file=log.v3)
        print("Stochastic vars, and their order:", file=log.v3)
        for name in self.stochastic_var_order:
            print(f" {name}", file=log.v3)

    def write_json(self, filename: str) -> None:
        """Writes :meth:`info` as JSON (sorted keys, indent 2, as the reference's file)."""
        import json
        import os

        tmp = f"{filename}.tmp-{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(self.info(), f, sort_keys=True, indent=2)
        os.replace(tmp, filename)


def build_step_by_step_network(config: Any, *, extern_data: Any, net_dict: Dict[str, Any], rec_name: str,
                               train_flag: Any = False, update_i_in_graph: bool = False) -> Tuple[Any, RecStepByStep]:
    """Builds, in the current default graph, a network of ``net_dict`` without search in which only the layers the
    step of rec layer ``rec_name`` reads are constructed, and the step-by-step graph of that rec layer.

    :return: (the network, the :class:`RecStepByStep`)
    :raises LayerArgError: see :class:`RecStepByStep`
    """
    from returnn.tf.network import TFNetwork

    network = TFNetwork(config=config, extern_data=extern_data, train_flag=train_flag, eval_flag=False,
                        search_flag=False)
    network.layers_desc.update({k: v for k, v in net_dict.items() if k != rec_name})
    return network, RecStepByStep(network, net_dict, rec_name, update_i_in_graph=update_i_in_graph)
