"""``{"class": "rec", "unit": "<name>", "n_out": N, "direction": 1 or -1}``: a recurrent layer over time.

String units (see :mod:`returnn.tf.layers.recurrent.units` for the list, their parameter names and numerics);
a dict ``unit`` (recurrent subnetwork) is handled by :mod:`returnn.tf.layers.recurrent.subnet`. The one registered
``rec`` class is :class:`returnn.tf.layers.rec.RecLayer`; this module holds its string-unit strategy.

Shapes: the input (all sources concatenated on the feature axis; ``dropout`` applied during training) must be
``{B, T (dynamic), F}``; the output is *time-major* ``{T, B, F=n_out}`` as in the reference, with exactly zero
in padded frames. ``direction=-1`` processes every sequence backwards within its own length.

Inside a rec loop (as the reference), an input frame ``{B, F}`` gives one step ``{B, F=n_out}``: the unit's
state is carried by the loop (``rec_previous_state``), with the same params and numerics as over time; such a
layer is moved out of the loop and run over the whole sequence where the loop allows it.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Optional

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, NotSpecified, Tensor, single_step_dim
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.out_template import base_out_template
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.core import kept_state
from returnn.tf.layers.recurrent.rec_axes import flat_sequences, is_plain, loop_axis, over_axis_layout
from returnn.tf.layers.recurrent.units import USER_CELLS, RecUnit, TFCellUnit, get_unit
from returnn.tf.ops.init import get_initializer

_CONST_STATES = {"zeros": 0.0, "ones": 1.0}


class StringUnitRecLayer(ConcatInputLayer):
    """The string-unit strategy of the ``rec`` layer: a recurrent layer with a string ``unit``
    (``lstm``/``nativelstm2``/... , ``gru``, ``basicrnn``). Not registered itself: ``"class": "rec"`` is
    :class:`returnn.tf.layers.rec.RecLayer` (:mod:`returnn.tf.layers.recurrent.subnet.rec_subnet`), which uses this
    strategy for a string unit and the subnetwork strategy for a unit dict.

    :param unit: unit name, case-insensitive; default ``"lstm"`` (the reference's NativeLstm2 layout)
    :param unit_opts: options of the unit: ``forget_bias`` (``standardlstm``/``basiclstm``), those of
        ``zoneoutlstm`` and ``layernormvariantslstm`` (see :mod:`returnn.tf.layers.recurrent.cells`)
    :param direction: 1 (forward, default) or -1 (backward)
    :param initial_state: None/``"zeros"`` (default), ``"ones"``, a number, ``"var"`` (a trainable variable of
        shape ``[n_out]`` starting at zero, the same for every sequence: ``rec/initial_c`` and ``rec/initial_h`` for
        the LSTM units, ``rec/initial_var`` for one-state units, as the reference), ``"keep_over_epoch"`` /
        ``"keep_over_epoch_no_init"`` (the final state of the previous run, in the non-trainable variables
        ``rec/keep_state_<state>``, ``rec/keep_state_var`` for one-state units; see
        :mod:`returnn.tf.layers.core.kept_state`; not inside a rec loop), the name of a layer with output
        ``{B, F=n_out}``, or a dict state name -> one of those (LSTM states ``"c"``, ``"h"``; others ``"h"``)
    :param forward_weights_init: initializer of the input weights (default ``glorot_uniform``)
    :param recurrent_weights_init: initializer of the recurrent weights (default ``glorot_uniform``); also of the
        combined kernels ``[n_in + n, ...]`` (``standardlstm``, ``gru``, ``zoneoutlstm``, ...), as the reference
    :param bias_init: initializer of the native units' bias ``b`` (default 0); the other units' biases have fixed
        initial values (0; GRU gate bias 1), as the reference
    :param max_seq_len: accepted for compatibility; only meaningful for recurrent subnetworks (ignored here)
    :param max_seq_len_via: accepted for compatibility; only meaningful for recurrent subnetworks (a layer whose
        int scalar value is the loop's maximal length; ignored here)
    :raises LayerArgError: dict ``unit``, bad ``direction``, unknown ``unit_opts``, bad ``initial_state``
    :raises UnknownNameError: unknown ``unit`` (with close matches)
    :raises LayerShapeError: input without a dynamic time axis or with extra axes
    """

    layer_class = "rec"
    recurrent = True
    has_rec_state = True  # inside a rec loop (string units): the unit's state is carried by the loop
    can_run_over_time = True  # ... and such a layer may be moved out of the loop

    def __init__(self, unit: Any = "lstm", unit_opts: Optional[Dict[str, Any]] = None, direction: Optional[int] = None,
                 input_projection: bool = True, initial_state: Any = None, max_seq_len: Any = None,
                 max_seq_len_via: Any = None,
                 forward_weights_init: Any = None, recurrent_weights_init: Any = None, bias_init: Any = None,
                 optimize_move_layers_out: Any = None, cheating: bool = False, unroll: bool = False,
                 back_prop: Optional[bool] = None, use_global_rec_step_offset: bool = False,
                 include_eos: bool = False, debug: Any = None, axis: Any = None, state: Any = None,
                 rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, _in_frame: Any = None,
                 **kwargs: Any):
        """
        :param input_projection: accepted for compatibility with the reference; no effect here
        :param optimize_move_layers_out: move the unit's layers that do not depend on the loop out of it (default: the
            config key of this name, else True)
        :param cheating: accepted for compatibility with the reference; no effect here (a ``choice`` layer's own
            ``cheating`` is used)
        :param unroll: accepted for compatibility with the reference; no effect here
        :param back_prop: string units: False stops the gradient at the output; a unit dict's loop has gradients
            whenever the network is built with the train flag, whatever this is
        :param use_global_rec_step_offset: accepted for compatibility with the reference; no effect here
        :param include_eos: count the frame where the ``end`` layer is true in the output's lengths
        :param debug: accepted for compatibility with the reference; no effect here
        :param axis: the input axis the unit runs over (a Dim of the input, or an axis description; default the
            time axis); the other axes but the feature axis count as batch (see
            :mod:`returnn.tf.layers.recurrent.rec_axes`); ``single_step_dim``: one step for every frame of the input
            on its own (inside a rec loop: the loop's step, the state of each frame carried)
        :param state: one step outside a rec loop (the input has no time axis, or ``axis=single_step_dim``): the
            state before the step, as ``initial_state`` (default zeros)
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        :param _in_frame: set by :meth:`transform_config_dict` inside a rec loop, not in a config
        """
        super().__init__(**kwargs)
        self._unit = _get_checked_unit(self.name, unit, unit_opts)
        self.direction = _check_direction(self.name, direction)
        self.rec_state: Dict[str, tf.Tensor] = {}  # inside a rec loop: the state for the next step (single steps)
        input_data = _with_loop_axis(self.input_data, axis)
        ax = loop_axis(input_data, axis)
        frames = ax is None  # every frame of the input is one step on its own (inside a rec loop or not)
        if frames and rec_previous_state is None and state is not None:
            initial_state = state
        plain = not frames and is_plain(input_data, ax)
        if frames:
            inp = _frames_layout(input_data)
        elif plain:
            inp = input_data.copy_as_time_major()
        else:
            inp = over_axis_layout(self.name, self.layer_class, input_data, ax)
        n_in = inp.sparse_dim.dimension if inp.sparse else inp.dim
        n_out = self.output.dim
        if frames or plain:
            x = inp.placeholder if not inp.sparse else tf.one_hot(tf.cast(inp.placeholder, tf.int32), n_in)
            seq_lens, batch_shape = (None if frames else inp.get_sequence_lengths()), tf.shape(x)[:-1]
            if frames:  # [..., F] -> [N, F]: each frame one step
                x = tf.reshape(x, [-1, n_in])
        else:  # [L, ..., F] -> [L, N, F]: each entry of the batch-like axes a sequence
            x, seq_lens, batch_shape = flat_sequences(inp, n_in)
            batch_shape = tf.concat([[tf.shape(x)[0]], batch_shape], axis=0)
        params = self._create_unit_params(n_in, n_out, forward_weights_init, recurrent_weights_init, bias_init)
        # inside a rec loop, "var" states are in the layer's own scope (``<loop>/rec/<layer>/initial_c``, as the
        # reference, observed); the loop creates them first (get_rec_initial_state), the step reuses them
        initial_state = self._create_state_vars(initial_state, n_out, in_loop=rec_previous_state is not None)
        kept = self._create_kept_state_vars(initial_state, n_out)
        self._unit.train_flag = self.network.train_flag  # used by units with zoneout/dropout
        self._unit.amp = self.network.amp  # tf_amp: the LSTM units' gate matmuls
        self._unit.params_scope = self._params_scope  # a user cell creates its own variables there
        if frames:
            self._run_step(x, rec_previous_state, initial_state, kept, params, n_out, batch_shape)
        else:
            self._run_over_time(x, seq_lens, initial_state, kept, params, n_out)
        with self._params_scope():  # a user cell's own variables, keys relative to that scope (as the reference)
            for param in getattr(self._unit, "created_params", ()):
                self.add_param(param)
        y = self.output.placeholder
        if frames or not plain:  # back to the input's frames (the output's axis order: see get_out_data_from_opts)
            y = tf.reshape(y, tf.concat([batch_shape, [n_out]], axis=0))
        if back_prop is False:
            y = tf.stop_gradient(y)
        y.set_shape(self.output.batch_shape)
        self.output.placeholder = y

    def _run_over_time(self, x: tf.Tensor, seq_lens: tf.Tensor, initial_state: Any, kept: Dict[str, Any],
                       params: Dict[str, tf.Variable], n_out: int) -> None:
        """The unit over the time axis of ``x`` ``[T, N, F]`` (lengths ``seq_lens`` ``[N]``) from ``initial_state``
        (the kept-over-epoch states replacing their entries); sets the output ``[T, N, n_out]`` and the final state"""
        init_state = _initial_states(self.name, self._unit, initial_state, tf.shape(x)[1], n_out)
        for key, (mode, var) in kept.items():
            init_state[key] = kept_state.initial_value(self.network, mode, var, init_state[key])
        y, self.final_state = self._unit.run(x, seq_lens, params, n_out, self.direction, init_state)
        for key, (_, var) in kept.items():
            kept_state.register_final_value(self.network, var, self.final_state[key])
        self.output.placeholder = y

    def _run_step(self, x: tf.Tensor, rec_previous_state: Optional[Dict[str, tf.Tensor]], initial_state: Any,
                  kept: Dict[str, Any], params: Dict[str, tf.Variable], n_out: int, frames_shape: tf.Tensor) -> None:
        """One step for each frame ``x`` ``[N, F]`` (inside a rec loop: from ``rec_previous_state``, each state in
        the frames' layout ``{B, ..., n_out}``); sets the output ``[N, n_out]``, the final and the loop state"""
        if kept:
            raise LayerArgError(layer=self.name, layer_class="rec", arg="initial_state",
                                problem="a state kept over runs is not supported (yet) inside a rec loop in "
                                        "this implementation:", got=initial_state,
                                expected='"zeros", "ones", a number or a layer name')
        if rec_previous_state is None:
            rec_previous_state = _initial_states(self.name, self._unit, initial_state, tf.shape(x)[0], n_out)
        else:
            rec_previous_state = {key: tf.reshape(value, [-1, n_out]) for key, value in rec_previous_state.items()}
        y, self.final_state = self._unit.step(x, rec_previous_state, params, n_out)
        self.rec_state = {key: tf.reshape(value, tf.concat([frames_shape, [n_out]], axis=0))
                          for key, value in self.final_state.items()}
        self.output.placeholder = y

    def _create_unit_params(self, n_in: int, n_out: int, forward_weights_init: Any, recurrent_weights_init: Any,
                            bias_init: Any) -> Dict[str, tf.Variable]:
        """Creates the string unit's params under ``<layer>/rec/`` (in the layer's scope with an explicit
        ``name_scope``, see :meth:`_params_scope`; names and shapes from the unit's
        ``param_specs``), all initialized from one seed drawn from the network (as the reference, observed).

        :return: param name -> variable (also added to the layer's params)"""
        seed = self.network.random.randint(2 ** 31)  # one seed for all params (as the reference, observed)
        inits = {
            "forward": (forward_weights_init, "glorot_uniform", "forward_weights_init"),
            "recurrent": (recurrent_weights_init, "glorot_uniform", "recurrent_weights_init"),
            "bias": (bias_init, 0.0, "bias_init"),
        }
        params = {}
        with self._params_scope():
            for param_name, shape, role in self._unit.param_specs(n_in, n_out):
                if isinstance(role, tuple):  # ("const", value): a fixed initial value
                    init = tf.constant_initializer(role[1])
                else:
                    spec, default, key = inits[role]
                    init = get_initializer(default if spec is None else spec, seed=seed,
                                           key=f"{self.name}/{key}")
                param = tf.compat.v1.get_variable(param_name, shape=list(shape), dtype=tf.float32, initializer=init,
                                                  trainable=self.trainable)
                params[param_name] = self.add_param(param)
        return params

    def _params_scope(self) -> Any:
        """:return: the variable scope of the unit's params, inside the layer's scope: ``rec`` (``<layer>/rec/W``);
        with an explicit ``name_scope`` (also ``""``) the layer's scope itself (as the reference, observed:
        ``"name_scope": "x"`` gives ``x/W``, inside a loop ``<loop>/rec/x/W``)"""
        if self.name_scope is None:
            return tf.compat.v1.variable_scope("rec")
        return contextlib.nullcontext(tf.compat.v1.get_variable_scope())

    #: user-registered TF RNN cell classes by lower-case unit name (see :meth:`_create_rnn_cells_dict`)
    _rnn_cells_dict: Dict[str, Any] = USER_CELLS

    @property
    def time_dim_tag(self):
        """The dim the layer loops over (its output's time dim; the ``axis`` given, as the reference), None for one
        step (inside a rec loop, or an input without time axis)."""
        out = self.output
        return out.dims[out.time_dim_axis] if out.time_dim_axis is not None else None

    @classmethod
    def _create_rnn_cells_dict(cls) -> Dict[str, Any]:
        """The registry of user cell classes, as the reference's (its only API to add a cell class):
        ``RecLayer._create_rnn_cells_dict(); RecLayer._rnn_cells_dict["mycell"] = MyCell`` makes
        ``{"class": "rec", "unit": "mycell", "n_out": n}`` build ``MyCell(n, **unit_opts)`` (a
        ``tf.compat.v1.nn.rnn_cell.RNNCell``, e.g. a :class:`returnn.tf.layers.rec.BaseRNNCell`) and run it over time.
        Names are lower case; a registered name takes precedence over the built-in unit of that name.

        :return: the registry (the same dict each call)
        """
        return cls._rnn_cells_dict

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Also resolves layer names in ``initial_state`` to layers; inside a rec loop keeps the input frame's
        template (``_in_frame``) for :meth:`get_rec_initial_state`."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("initial_state", "state"):
            d[key] = cls._resolve_state(d, key, get_layer)
        if network.is_inside_rec_layer() and d.get("sources"):
            d["_in_frame"] = concat_sources_template(d["sources"], name=f"{d['name']}/data",
                                                     layer_class=cls.layer_class)

    @classmethod
    def _resolve_state(cls, d: Dict[str, Any], key: str, get_layer: Any) -> Any:
        """:return: ``d[key]`` (``initial_state`` or ``state``) with layer names resolved to layers"""
        state = d.get(key)

        def resolve(value: Any) -> Any:
            if (isinstance(value, str) and value not in _CONST_STATES and value != "var"
                    and not kept_state.is_kept_state(value)):
                return get_layer(value)
            return value

        if isinstance(state, dict):
            return {k: resolve(v) for k, v in state.items()}
        return resolve(state) if state is not None else None

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), unit: Any = "lstm",
                               unit_opts: Any = None, direction: Any = None, n_out: Any = NotSpecified,
                               out_type: Any = None, out_dim: Any = None, target: Any = None,
                               _target_layers: Any = None, loss: Any = None, axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: time-major ``{T, B, F=n_out}`` (the input's time and batch dims); in general the input's dims
        with the axis the unit runs over first (``axis``, default the time axis) and the feature dim ``n_out`` last
        (see :mod:`returnn.tf.layers.recurrent.rec_axes`); for single steps (``axis=single_step_dim``, or an input
        frame without that axis, e.g. ``{B, F}`` inside a rec loop) the input's dims, batch-major, with the feature
        dim ``n_out`` last
        :raises LayerShapeError: no batch or no feature axis"""
        _get_checked_unit(name, unit, unit_opts)
        _check_direction(name, direction)
        inp = _with_loop_axis(concat_sources_template(sources, name=name, layer_class=cls.layer_class), axis)
        ax = loop_axis(inp, axis)
        if ax is None:
            if inp.batch_dim_axis is None or (inp.feature_dim_axis is None and not inp.sparse):
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem="one step per frame (axis=single_step_dim, or an input without a time "
                                              "axis) needs a batch and a feature axis in the input",
                                      expected="{B, ..., F}", got=inp.get_dims_repr())
            inp = _frames_layout(inp)
        elif is_plain(inp, ax):
            inp = inp.copy_as_time_major()
        else:
            inp = over_axis_layout(name, cls.layer_class, inp, ax)
        return base_out_template(cls, name=name, network=network, sources=sources, n_out=n_out, out_type=out_type,
                                 out_dim=out_dim, target=target, target_layers=_target_layers, loss=loss,
                                 sources_template=inp if not inp.sparse else inp.copy_as_dense_template(),
                                 out_dim_description=f"{name}:feature", require_n_out=True)

    def _create_state_vars(self, spec: Any, n_out: int, in_loop: bool = False) -> Any:
        """:return: ``spec`` with each ``"var"`` replaced by its trainable variable ``[n_out]`` (zeros), a param of
        this layer: ``rec/initial_<state>`` with several states, ``rec/initial_var`` with one (as the reference);
        ``in_loop``: in the layer's scope itself (no ``rec/``), the variables the loop created"""
        names = self._unit.state_names
        specs = dict(spec) if isinstance(spec, dict) else {key: spec for key in names}
        if "var" not in [v for v in specs.values() if isinstance(v, str)]:
            return spec
        scope = contextlib.nullcontext() if in_loop else self._params_scope()
        with scope:
            for key, var in _initial_state_vars(self._unit.state_names, specs, n_out, self.trainable).items():
                specs[key] = self.add_param(var)
        return specs

    def _create_kept_state_vars(self, spec: Any, n_out: int) -> Dict[str, Any]:
        """:return: state name -> (mode, variable ``rec/keep_state_<name>``) for each state kept over runs
        (``initial_state`` ``"keep_over_epoch"``/``"keep_over_epoch_no_init"``, see
        :mod:`returnn.tf.layers.core.kept_state`)"""
        names = self._unit.state_names
        specs = dict(spec) if isinstance(spec, dict) else {key: spec for key in names}
        kept = {}
        with self._params_scope():
            for key in names:
                if kept_state.is_kept_state(specs.get(key)):
                    var_name = f"keep_state_{key}" if len(names) > 1 else "keep_state_var"  # as the reference
                    kept[key] = (specs[key], kept_state.create_state_var(var_name, [None, n_out]))
        return kept

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, n_out: int, unit: Any = "lstm",
                              unit_opts: Any = None, initial_state: Any = None, axis: Any = None,
                              _in_frame: Optional[Tensor] = None, param_scope: Optional[str] = None,
                              name_scope: Optional[str] = None, trainable: bool = True,
                              **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """For a string unit inside a rec loop (called by the loop). A ``"var"`` state is a variable in the layer's
        scope (``<loop>/rec/<layer>/initial_c``, or the ``name_scope``'s, as the reference, observed), created here.

        :param param_scope: the layer's variable scope as the loop gives it (``"<loop>/rec/<layer>"``)

        :param _in_frame: the input frame's template (set by :meth:`transform_config_dict`)
        :return: state name -> float32 ``[B, n_out]`` before the first step, from ``initial_state``; for a frame
            with more axes ``{B, ..., n_out}`` (static dims besides the batch); ``{}`` when the unit runs over an
            axis of each frame (a whole sequence per step, no state carried)
        :raises LayerShapeError: a frame with a dynamic axis besides the batch
        """
        specs = initial_state.values() if isinstance(initial_state, dict) else [initial_state]
        if any(kept_state.is_kept_state(v) for v in specs if isinstance(v, str)):
            raise LayerArgError(layer=name, layer_class="rec", arg="initial_state",
                                problem='a state kept over runs is not supported (yet) inside a rec '
                                        'loop in this implementation:',
                                got=initial_state, expected='"zeros", "ones", "var", a number or a layer name')
        rec_unit = _get_checked_unit(name, unit, unit_opts)
        if any(v == "var" for v in specs if isinstance(v, str)):
            initial_state = _in_loop_state_vars(rec_unit, initial_state, n_out, param_scope, name, name_scope,
                                                trainable)
        if _in_frame is None:
            return _initial_states(name, rec_unit, initial_state, batch_size, n_out)
        if loop_axis(_in_frame, axis) is not None:
            return {}
        frame = _frames_layout(_in_frame)
        sizes = [d.dimension for d in frame.dims[1:len(frame.dims) - (0 if frame.sparse else 1)]]
        if any(size is None for size in sizes):
            raise LayerShapeError(layer=name, layer_class="rec", problem="one step per frame inside a rec loop "
                                  "needs static dims besides the batch and the feature dim in the frame",
                                  expected="{B, F} or {B, <static dims>, F}", got=_in_frame.get_dims_repr())
        n_frames = batch_size * int(np.prod(sizes, dtype=np.int64))
        states = _initial_states(name, rec_unit, initial_state, n_frames, n_out)
        return {key: tf.reshape(value, tf.stack([batch_size, *sizes, n_out])) for key, value in states.items()}

    def get_last_hidden_state(self, key: Any = "*") -> tf.Tensor:
        """
        :param key: ``"c"`` or ``"h"`` (LSTM units), ``"h"`` (others), or ``"*"``/None: all state parts
            concatenated on the feature axis (``[c, h]`` for LSTMs, as observed from the reference)
        :return: float32 [B, n] (``[B, 2n]`` for ``"*"`` on LSTMs), the state after the last real frame in the
            direction of processing
        :raises LayerArgError: unknown key
        """
        if key is None or key == "*":
            return tf.concat([self.final_state[k] for k in self._unit.state_names], axis=-1)
        if key not in self.final_state:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="key",
                                problem="unknown hidden state", got=key,
                                expected=f"one of {list(self._unit.state_names) + ['*']}")
        return self.final_state[key]

    def get_last_hidden_state_dim(self, key: Any = "*") -> int:
        """:return: feature dim of :meth:`get_last_hidden_state` for ``key`` (known before the layer is built)"""
        n = self.output.dim
        return n * len(self._unit.state_names) if key in (None, "*") else n


def _initial_state_vars(names: Any, specs: Dict[str, Any], n_out: int, trainable: bool) -> Dict[str, tf.Variable]:
    """:return: state name -> its ``"var"`` variable ``[n_out]`` (zeros) in the current variable scope (created, or
    reused if it exists): ``initial_<state>`` with several states, ``initial_var`` with one"""
    result = {}
    for key in names:
        if specs.get(key) == "var":
            var_name = f"initial_{key}" if len(names) > 1 else "initial_var"
            result[key] = tf.compat.v1.get_variable(var_name, shape=[n_out], dtype=tf.float32,
                                                    initializer=tf.zeros_initializer(), trainable=trainable)
    return result


def _in_loop_state_vars(unit: RecUnit, spec: Any, n_out: int, param_scope: Optional[str], name: str,
                        name_scope: Optional[str], trainable: bool) -> Dict[str, Any]:
    """:return: ``spec`` as a dict with each ``"var"`` replaced by its variable in the layer's scope inside the loop
    (``param_scope``, or the one ``name_scope`` gives relative to the loop's scope)"""
    from returnn.tf.layers.core.scope_names import get_layer_scope_name
    if param_scope is None:
        param_scope = f"{tf.compat.v1.get_variable_scope().name}/{name}"
    loop_prefix = param_scope.rsplit("/", 1)[0] + "/" if "/" in param_scope else ""
    scope = param_scope if name_scope is None else get_layer_scope_name(loop_prefix, name, name_scope)
    specs = dict(spec) if isinstance(spec, dict) else {key: spec for key in unit.state_names}
    with tf.compat.v1.variable_scope(tf.compat.v1.VariableScope(tf.compat.v1.AUTO_REUSE, name=scope),
                                     auxiliary_name_scope=False), tf.init_scope():
        specs.update(_initial_state_vars(unit.state_names, specs, n_out, trainable))
    return specs


def _frames_layout(inp: Tensor) -> Tensor:
    """:return: ``inp`` batch-major with its feature axis last: each frame one step"""
    inp = inp.copy_as_batch_major()
    if not inp.sparse:
        inp = inp.copy_move_axis(inp.feature_dim_axis, inp.batch_ndim - 1)
    return inp


def _initial_states(name: str, unit: RecUnit, spec: Any, batch: tf.Tensor, n_out: int) -> Dict[str, tf.Tensor]:
    """:return: state name -> float32 [B, n_out] from the layer's ``initial_state`` (see the class docstring)"""
    if isinstance(spec, dict):
        unknown = set(spec) - set(unit.state_names)
        if unknown:
            raise LayerArgError(layer=name, layer_class="rec", arg="initial_state",
                                problem=f"unknown state name(s) {sorted(unknown)} in", got=spec,
                                expected=f"keys among {list(unit.state_names)} for unit {unit.name!r}")
    return {key: _state_value(name, spec.get(key) if isinstance(spec, dict) else spec, batch, n_out)
            for key in unit.state_names}


def _state_value(name: str, spec: Any, batch: tf.Tensor, n_out: int) -> tf.Tensor:
    if spec is None:
        spec = 0.0
    if isinstance(spec, str):  # a state kept over runs starts as zeros (see kept_state.initial_value)
        spec = 0.0 if kept_state.is_kept_state(spec) else _CONST_STATES[spec]
    if isinstance(spec, (int, float)):
        return tf.fill(tf.stack([batch, n_out]), tf.constant(float(spec), tf.float32))
    if isinstance(spec, (tf.Variable, tf.Tensor)):  # "var": [n_out], the same for every sequence
        return tf.tile(tf.expand_dims(tf.convert_to_tensor(spec), 0), tf.stack([batch, 1]))
    out = spec.output.copy_as_batch_major()  # a layer
    if out.batch_ndim != 2 or out.dim != n_out:
        raise LayerArgError(layer=name, layer_class="rec", arg="initial_state",
                            problem=f"layer {spec.name!r} has the wrong shape for",
                            expected=f"{{B, F={n_out}}}", got=out.get_dims_repr())
    return out.placeholder


def _get_checked_unit(name: str, unit: Any, unit_opts: Any) -> RecUnit:
    if isinstance(unit, dict):
        raise LayerArgError(layer=name, layer_class="rec", arg="unit",
                            problem="recurrent subnetworks are not supported yet:", got="{...}",
                            expected="a unit name such as 'nativelstm2', 'standardlstm', 'gru'")
    if isinstance(unit, type):  # a TF RNN cell class (e.g. a BaseRNNCell subclass), as a registered user cell
        return TFCellUnit(unit.__name__.lower(), unit_opts, cell_class=unit)
    if not isinstance(unit, str):
        raise LayerArgError(layer=name, layer_class="rec", arg="unit", problem="invalid value", got=unit,
                            expected="a unit name such as 'nativelstm2', or a TF RNN cell class")
    if unit_opts is not None and not isinstance(unit_opts, dict):
        raise LayerArgError(layer=name, layer_class="rec", arg="unit_opts", problem="invalid value", got=unit_opts,
                            expected="a dict")
    result = get_unit(unit, unit_opts, context=f"layer {name!r} {{\"class\": \"rec\"}}, arg 'unit'",
                      layer_name=name)
    unknown = sorted(set(unit_opts or {}) - set(result.allowed_unit_opts))
    if unknown:
        raise LayerArgError(layer=name, layer_class="rec", arg="unit_opts",
                            problem=f"unknown option {unknown[0]!r} for unit {unit!r} in", got=unit_opts,
                            expected=f"options among {list(result.allowed_unit_opts) or '(none)'}")
    return result


def _with_loop_axis(inp: Tensor, axis: Any) -> Tensor:
    """:return: ``inp`` with ``axis`` (a Dim of it, e.g. a static time dim of an input without ``time_dim_axis``) as
        its time axis: the loop runs over it; unchanged for ``axis`` None, ``single_step_dim`` or the time dim"""
    if not isinstance(axis, Dim) or axis is single_step_dim or axis not in inp.dims:
        return inp
    idx = inp.dims.index(axis)
    if inp.time_dim_axis == idx:
        return inp
    inp = inp.copy()
    inp.time_dim_axis = idx
    return inp


def _check_direction(name: str, direction: Any) -> int:
    if direction is None:
        return 1
    if direction not in (1, -1):
        raise LayerArgError(layer=name, layer_class="rec", arg="direction", problem="invalid value", got=direction,
                            expected="1 (forward) or -1 (backward)")
    return int(direction)

