"""``{"class": "rnn_cell", "unit": "LSTMBlock", "n_out": N}``: one step of an RNN cell, inside a recurrent
subnetwork (``rec`` with a ``unit`` dict). The cell state is carried from step to step by the loop.

Shape: ``{B, F_in} -> {B, F=n_out}`` (all sources concatenated on the feature axis; sparse inputs are one-hot).

Units (case-insensitive) and params under ``<layer>/rec/`` (the reference's names, observed):

- LSTMs (``lstm``, ``lstmblock``, ``standardlstm``, ``basiclstm``, ``nativelstm``, ``nativelstm2``, ...):
  ``lstm_cell/kernel`` ``[n_in + n, 4n]``, ``lstm_cell/bias`` ``[4n]``; gates (input, cell input, forget,
  output) as TensorFlow's ``LSTMCell``; ``forget_bias`` (``unit_opts``, default 1.0) added to the forget gate;
  ``use_peepholes`` adds the peephole weights ``lstm_cell/w_f_diag``, ``w_i_diag``, ``w_o_diag`` ``[n]`` and
  ``cell_clip`` clips the cell state (see :mod:`returnn.tf.layers.recurrent.cells.standard_lstm`).
  State ``c`` and ``h`` (output = ``h``).
- ``gru``: ``gru_cell/gates/kernel`` ``[n_in + n, 2n]``, ``gru_cell/gates/bias`` (init 1),
  ``gru_cell/candidate/kernel`` ``[n_in + n, n]``, ``gru_cell/candidate/bias``; TensorFlow's ``GRUCell``.
- ``basicrnn``/``rnn``: ``basic_rnn_cell/kernel``, ``basic_rnn_cell/bias``; ``h' = tanh([x, h] W + b)``
  (``unit_opts`` ``{"activation": f}``: ``f`` instead of ``tanh``, a function or a name such as ``"relu"``).
- ``zoneoutlstm`` (``ZoneoutLSTM``), ``layernormvariantslstm``: the step cells of
  :mod:`returnn.tf.layers.recurrent.cells` (the same params and numerics as the ``rec`` units of these names;
  ``weights_init`` initializes all their weight matrices). State ``c`` and ``h``.

``initial_state``: None/``"zeros"`` (default), ``"ones"``, ``"var"`` (trainable, see ``get_rec_initial_state``),
a number, a layer (e.g. ``"base:enc_last"``) with ``{B, n}`` (GRU/RNN; LSTM: used for both ``c`` and ``h``) or
``{B, 2n}`` (LSTM: ``c`` then ``h``), or a dict ``{"c": ..., "h": ...}`` of those.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.init import get_initializer

_LSTM_UNITS = ("lstm", "lstmblock", "lstmblockfused", "standardlstm", "basiclstm", "nativelstm", "nativelstm2",
               "lstmcell", "cudnnlstm")
_STEP_CELL_UNITS = ("zoneoutlstm", "layernormvariantslstm")  # returnn.tf.layers.recurrent.cells
_UNITS = _LSTM_UNITS + ("gru", "basicrnn", "rnn", "grublock") + _STEP_CELL_UNITS
_CONST = {"zeros": 0.0, "ones": 1.0}
_VAR = "var"  # a trainable initial state (zeros-initialized), one vector [n] per state, shared by all sequences


def _kind(name: str, unit: Any) -> str:
    if not isinstance(unit, str) or unit.lower() not in _UNITS:
        from returnn.util.suggest import close_matches
        raise LayerArgError(layer=name, layer_class="rnn_cell", arg="unit", problem="unknown unit",
                            got=unit, suggestions=close_matches(str(unit).lower(), _UNITS),
                            expected="one of " + ", ".join(_UNITS))
    unit = unit.lower()
    if unit in _LSTM_UNITS or unit in _STEP_CELL_UNITS:
        return "lstm"
    if unit in ("gru", "grublock"):
        return "gru"
    return "rnn"


def _lstm_step_cell_opts(unit: str, unit_opts: Any) -> bool:
    """:return: whether ``unit_opts`` of an LSTM unit need the step cell ``StandardLSTMCell`` (``use_peepholes``,
    ``cell_clip``) instead of the plain LSTM step"""
    if not isinstance(unit_opts, dict) or unit.lower() not in _LSTM_UNITS:
        return False
    return bool(unit_opts.get("use_peepholes")) or unit_opts.get("cell_clip") is not None


@register_layer
class RnnCellLayer(ConcatInputLayer):
    """One RNN step. See the module docstring for units, params and ``initial_state``.

    :param unit: cell name (``LSTMBlock``, ``standardlstm``, ``gru``, ``basicrnn``, ...)
    :param unit_opts: ``{"forget_bias": float, "use_peepholes": bool, "cell_clip": float}`` for LSTMs,
        ``{"activation": f}`` for ``basicrnn``
    :param initial_state: see the module docstring
    :param weights_init: initializer of the kernels (default ``glorot_uniform``)
    :param rec_previous_state: set by the loop: state name -> float32 ``[B, n]`` of the previous step
    :raises LayerArgError: unknown unit, bad ``initial_state``
    :raises LayerShapeError: input neither ``{B, F}`` nor ``{B, T, F}``

    With an input over time (``{B, T, F}``, e.g. when a rec unit in training moves this layer out of its loop,
    as the reference does), all steps are computed at once with the same params: output ``{T, B, n}``.
    """

    layer_class = "rnn_cell"
    recurrent = True
    has_rec_state = True
    can_run_over_time = True  # a rec unit may move it out of the loop

    def __init__(self, unit: str = "lstm", unit_opts: Optional[Dict[str, Any]] = None, initial_state: Any = None,
                 weights_init: Any = "glorot_uniform", rec_previous_state: Optional[Dict[str, tf.Tensor]] = None,
                 rec_previous_layer: Any = None, **kwargs: Any):
        """
        :param rec_previous_layer: a layer built by hand standing for this layer's previous step (the reference's
            API): its ``rec_vars_outputs["state"]`` (from :meth:`get_rec_initial_state`) is the previous state
        """
        super().__init__(**kwargs)
        kind = _kind(self.name, unit)
        if rec_previous_state is None and rec_previous_layer is not None:
            rec_previous_state = rec_previous_layer.rec_vars_outputs.get("state")
        inp = self.input_data
        if inp.time_dim_axis is not None or unit.lower() in _STEP_CELL_UNITS or _lstm_step_cell_opts(unit, unit_opts):
            self._run_with_unit(unit, kind, unit_opts, initial_state, weights_init, rec_previous_state)
            return
        x = inp.copy_as_batch_major().placeholder
        if inp.sparse:
            x = tf.one_hot(tf.cast(x, tf.int32), inp.sparse_dim.dimension, dtype=tf.float32)
        n_in, n = int(x.shape[-1]), self.output.dim
        if rec_previous_state is None:
            rec_previous_state = self.get_rec_initial_state(tf.shape(x)[0], name=self.name, n_out=n, unit=unit,
                                                            initial_state=initial_state)
            self._register_initial_state_vars()
        seed = self.network.random.randint(2 ** 31)
        kernel_init = get_initializer(weights_init, seed=seed, key=f"{self.name}/weights_init")
        with self._params_scope():
            if kind == "lstm":
                forget_bias = float((unit_opts or {}).get("forget_bias", 1.0))
                kernel = self._param("lstm_cell/kernel", (n_in + n, 4 * n), kernel_init)
                bias = self._param("lstm_cell/bias", (4 * n,), tf.zeros_initializer())
                h_prev, c_prev = rec_previous_state["h"], rec_previous_state["c"]
                z = self.network.amp.matmul(tf.concat([x, h_prev], axis=-1), kernel) + bias  # tf_amp
                i, j, f, o = tf.split(z, 4, axis=-1)
                c = tf.sigmoid(f + forget_bias) * c_prev + tf.sigmoid(i) * tf.tanh(j)
                h = tf.sigmoid(o) * tf.tanh(c)
                self.rec_state = {"c": c, "h": h}
            elif kind == "gru":
                g_kernel = self._param("gru_cell/gates/kernel", (n_in + n, 2 * n), kernel_init)
                g_bias = self._param("gru_cell/gates/bias", (2 * n,), tf.ones_initializer())
                c_kernel = self._param("gru_cell/candidate/kernel", (n_in + n, n), kernel_init)
                c_bias = self._param("gru_cell/candidate/bias", (n,), tf.zeros_initializer())
                h_prev = rec_previous_state["h"]
                mm = self.network.amp.matmul  # tf_amp
                r, u = tf.split(tf.sigmoid(mm(tf.concat([x, h_prev], -1), g_kernel) + g_bias), 2, axis=-1)
                cand = tf.tanh(mm(tf.concat([x, r * h_prev], -1), c_kernel) + c_bias)
                h = u * h_prev + (1.0 - u) * cand
                self.rec_state = {"h": h}
            else:
                kernel = self._param("basic_rnn_cell/kernel", (n_in + n, n), kernel_init)
                bias = self._param("basic_rnn_cell/bias", (n,), tf.zeros_initializer())
                activation = _rnn_activation(self.name, unit_opts)
                h = activation(tf.matmul(tf.concat([x, rec_previous_state["h"]], -1), kernel) + bias)
                self.rec_state = {"h": h}
        self.output.placeholder = h

    def _run_with_unit(self, unit_name: str, kind: str, unit_opts: Any, initial_state: Any, weights_init: Any,
                       rec_previous_state: Optional[Dict[str, tf.Tensor]]) -> None:
        """With the string units of :mod:`returnn.tf.layers.recurrent.units` (same params and numerics): the whole
        sequence at once when the input has a time axis (a rec unit moved this layer out of its loop; output
        ``{T, B, n}``), else one step of a step cell (``zoneoutlstm``, ``layernormvariantslstm``)."""
        from returnn.tf.layers.recurrent.units import get_unit
        over_time = self.input_data.time_dim_axis is not None
        inp = self.input_data.copy_as_time_major() if over_time else self.input_data.copy_as_batch_major()
        x = inp.placeholder
        if inp.sparse:
            x = tf.one_hot(tf.cast(x, tf.int32), inp.sparse_dim.dimension, dtype=tf.float32)
        n_in, n = int(x.shape[-1]), self.output.dim
        name = unit_name.lower() if unit_name.lower() in _STEP_CELL_UNITS else \
            {"lstm": "standardlstm", "gru": "gru", "rnn": "basicrnn"}[kind]
        unit = get_unit(name, unit_opts, layer_name=self.name)
        unit.train_flag = self.network.train_flag
        seed = self.network.random.randint(2 ** 31)
        kernel_init = get_initializer(weights_init, seed=seed, key=f"{self.name}/weights_init")
        with self._params_scope():
            params = {}
            for param_name, shape, role in unit.param_specs(n_in, n):
                init = tf.constant_initializer(role[1]) if isinstance(role, tuple) else (
                    tf.zeros_initializer() if role == "bias" else kernel_init)
                params[param_name] = self._param(param_name, shape, init)
        batch = tf.shape(x)[1 if over_time else 0]
        if over_time or rec_previous_state is None:
            init = self.get_rec_initial_state(batch, name=self.name, n_out=n, unit=kind, initial_state=initial_state)
            self._register_initial_state_vars()
        if over_time:
            y, self.rec_state = unit.run(x, inp.get_sequence_lengths(), params, n, 1, init)
        else:
            state = init if rec_previous_state is None else rec_previous_state
            cell = unit.cell
            cell.train_flag = unit.train_flag
            y, self.rec_state = cell.step(cell.project_input(x, params, n_in, n), state, params, n_in, n)
        self.output.placeholder = y

    @classmethod
    def hidden_state_names(cls, unit: str = "lstm", **_kwargs: Any) -> Tuple[str, ...]:
        """:return: the state parts in the order of ``get_last_hidden_state("*")``: ``("c", "h")`` for LSTMs
            (the reference's ``LSTMStateTuple`` order, observed), else ``("h",)``"""
        return ("c", "h") if _kind("rnn_cell", unit) == "lstm" else ("h",)

    @classmethod
    def get_last_hidden_state_dim_from_opts(cls, key: Any = "*", *, n_out: Any = None, out_dim: Any = None,
                                            unit: str = "lstm", **_kwargs: Any) -> int:
        """:return: feature dim of :meth:`get_last_hidden_state` for ``key`` (from the layer dict)"""
        n = out_dim.dimension if out_dim is not None else n_out
        return n * len(cls.hidden_state_names(unit)) if key in (None, "*") else n

    def get_last_hidden_state_dim(self, key: Any = "*") -> int:
        """:return: feature dim of :meth:`get_last_hidden_state` for ``key``"""
        return self.output.dim * (len(self.rec_state) if key in (None, "*") else 1)

    def get_last_hidden_state(self, key: Any = "*") -> tf.Tensor:
        """The state after this step (as the reference: ``"*"`` concatenates all parts, ``[c, h]`` for LSTMs).

        :return: float32 ``[B, n]`` (``[B, 2n]`` for ``"*"`` on LSTMs)
        :raises LayerArgError: unknown ``key``"""
        from returnn.tf.layers.recurrent.get_last_hidden_state import select_hidden_state
        names = [k for k in ("c", "h") if k in self.rec_state] + sorted(set(self.rec_state) - {"c", "h"})
        return select_hidden_state(self.name, self.rec_state, names, key)

    def _params_scope(self) -> Any:
        """:return: the variable scope of the cell's weights in the layer's scope: ``rec``
        (``<layer>/rec/lstm_cell/kernel``); with an explicit ``name_scope`` the layer's scope itself (as the
        reference, observed: ``"name_scope": "s/rec"`` in a loop gives ``<loop>/rec/s/rec/lstm_cell/kernel``)"""
        if self.name_scope is None:
            return tf.compat.v1.variable_scope("rec")
        return contextlib.nullcontext(tf.compat.v1.get_variable_scope())

    def _register_initial_state_vars(self) -> None:
        """Adds the variables of ``initial_state="var"`` (made by :meth:`get_rec_initial_state` in this layer's
        scope) to the layer's params: trainable, counted and saved like the weights."""
        scope = tf.compat.v1.get_variable_scope().name
        for var in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, scope=f"{scope}/rec/initial_"):
            self.add_param(var)

    def _param(self, name: str, shape: Tuple[int, ...], init: Any) -> tf.Variable:
        param = tf.compat.v1.get_variable(name, shape=list(shape), dtype=tf.float32, initializer=init,
                                          trainable=self.trainable)
        return self.add_param(param)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Also resolves layer names in ``initial_state``."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)

        def resolve(value: Any) -> Any:
            if isinstance(value, str) and value not in _CONST and value != _VAR:
                return get_layer(value)
            return value

        state = d.get("initial_state")
        if isinstance(state, dict):
            d["initial_state"] = {k: resolve(v) for k, v in state.items()}
        elif state is not None:
            d["initial_state"] = resolve(state)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), unit: str = "lstm",
                               n_out: Any = NotSpecified, out_dim: Any = None, **kwargs: Any) -> Tensor:
        """:return: ``{B, F=n_out}``
        :raises LayerArgError: missing ``n_out``, unknown ``unit``, input with a time axis"""
        _kind(name, unit)
        if out_dim is not None:
            n_out = out_dim.dimension
        if n_out is NotSpecified or n_out is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        from returnn.tensor import batch_dim
        feat = out_dim if out_dim is not None else FeatureDim(f"{name}:rnn_cell_feat", n_out)
        if inp.time_dim_axis is not None:  # over the whole sequence (moved out of a rec loop): {T, B, n}
            if inp.batch_dim_axis is None or inp.batch_ndim != (2 if inp.sparse else 3):
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem="input must be {B, F} (one step) or {B, T, F}", got=inp.get_dims_repr())
            return Tensor(name=f"{name}_output", dims=[inp.time_dim, batch_dim, feat], dtype="float32",
                          time_dim_axis=0, feature_dim_axis=2)
        return Tensor(name=f"{name}_output", dims=[batch_dim, feat], dtype="float32")

    @classmethod
    def get_rec_initial_state(cls, batch_size: Any = None, *, name: str, n_out: int, unit: str = "lstm",
                              initial_state: Any = None, param_scope: Optional[str] = None, batch_dim: Any = None,
                              name_scope: Optional[str] = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:param batch_size: int or int32 scalar: the batch size (``batch_dim``: the reference's name of it)
        :param param_scope: given by a rec loop (the layer runs step by step in it): the layer's absolute variable
            scope as the loop names it (``"<loop>/rec/<layer>"``). ``initial_state="var"`` creates its variables
            (float32 ``[n_out]``, zeros-initialized) as the reference names them (observed): in a loop directly in
            the layer's scope, ``<loop>/rec/<layer>/initial_c`` and ``initial_h`` (LSTM) or ``initial_var``
            (GRU/RNN), with ``name_scope`` in the scope it gives relative to the loop's; otherwise (over time, also
            moved out of a loop) in ``rec/`` of the current variable scope (the layer's): ``<layer>/rec/initial_c``
        :param name_scope: the layer's ``name_scope`` (in a loop: where its ``"var"`` states are)
        :return: state name -> float32 ``[B, n_out]`` for step 0
        :raises LayerArgError: ``initial_state`` of the wrong shape or kind"""
        if batch_size is None:
            batch_size = batch_dim
        kind = _kind(name, unit)
        names = ("c", "h") if kind == "lstm" else ("h",)
        spec = initial_state
        if spec == _VAR or (isinstance(spec, dict) and _VAR in spec.values()):
            if param_scope is None:  # the layer itself, over time: "<layer>/rec/initial_c"
                scope = f"{tf.compat.v1.get_variable_scope().name}/rec"
            elif name_scope is None:  # a loop step: "<loop>/rec/<layer>/initial_c"
                scope = param_scope
            else:
                from returnn.tf.layers.core.scope_names import get_layer_scope_name
                loop_prefix = param_scope.rsplit("/", 1)[0] + "/" if "/" in param_scope else ""
                scope = get_layer_scope_name(loop_prefix, name, name_scope)
            var_names = {"c": "initial_c", "h": "initial_h"} if kind == "lstm" else {"h": "initial_var"}
            spec = dict(spec) if isinstance(spec, dict) else {k: _VAR for k in names}
            for key, value in list(spec.items()):
                if value == _VAR and key in var_names:
                    full_name = f"{scope}/{var_names[key]}" if scope else var_names[key]
                    spec[key] = _initial_state_var(full_name, n_out, batch_size)
        if isinstance(spec, dict):
            unknown = sorted(set(spec) - set(names))
            if unknown:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="initial_state",
                                    problem=f"unknown state name(s) {unknown} in", got=sorted(spec),
                                    expected=f"keys among {list(names)}")
            return {k: _state_value(name, spec.get(k), batch_size, n_out, 1, 0) for k in names}
        if spec is not None and not isinstance(spec, (int, float, str)) and kind == "lstm":
            dim = spec.output.dim
            if dim == 2 * n_out:
                return {"c": _state_value(name, spec, batch_size, n_out, 2, 0),
                        "h": _state_value(name, spec, batch_size, n_out, 2, 1)}
        return {k: _state_value(name, spec, batch_size, n_out, 1, 0) for k in names}


def _rnn_activation(name: str, unit_opts: Any) -> Any:
    """:return: the ``activation`` of ``unit_opts`` of a ``basicrnn`` cell (a function, or a name such as
    ``"relu"``), default ``tf.tanh``
    :raises LayerArgError: other ``unit_opts``, or an unknown activation name"""
    opts = dict(unit_opts or {})
    activation = opts.pop("activation", None)
    if opts:
        raise LayerArgError(layer=name, layer_class="rnn_cell", arg="unit_opts",
                            problem=f"unknown option {sorted(opts)[0]!r} for a basic RNN cell in", got=unit_opts,
                            expected="options among ['activation']")
    if activation is None:
        return tf.tanh
    if callable(activation):
        return activation
    from returnn.tf.ops.activations import get_activation_function
    return get_activation_function(activation)


def _initial_state_var(full_name: str, n: int, batch_size: tf.Tensor) -> tf.Tensor:
    """:return: float32 ``[B, n]``: the trainable vector ``full_name`` (created once) repeated for every sequence"""
    scope_name, var_name = full_name.rsplit("/", 1) if "/" in full_name else ("", full_name)
    with tf.compat.v1.variable_scope(tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name=scope_name)):
        var = tf.compat.v1.get_variable(var_name, shape=[n], dtype=tf.float32, initializer=tf.zeros_initializer())
    return tf.tile(var[None, :], tf.stack([batch_size, 1]))


def _state_value(name: str, spec: Any, batch_size: tf.Tensor, n: int, parts: int, part: int) -> tf.Tensor:
    if spec is None:
        spec = 0.0
    if isinstance(spec, tf.Tensor):  # already [B, n] (initial_state "var")
        return spec
    if isinstance(spec, str):
        if spec not in _CONST:
            raise LayerArgError(layer=name, layer_class="rnn_cell", arg="initial_state", problem="invalid value",
                                got=spec,
                                expected='"zeros", "ones", "var", a number, a layer name or a dict of those')
        spec = _CONST[spec]
    if isinstance(spec, (int, float)):
        return tf.fill(tf.stack([batch_size, n]), tf.constant(float(spec), tf.float32))
    out = spec.output.copy_as_batch_major()
    if out.batch_ndim != 2 or out.dim != n * parts:
        raise LayerArgError(layer=name, layer_class="rnn_cell", arg="initial_state",
                            problem=f"layer {spec.name!r} has the wrong shape for", got=out.get_dims_repr(),
                            expected=f"{{B, F={n}}}" + (f" or {{B, F={2 * n}}} (c, h)" if parts == 2 else ""))
    value = out.placeholder
    if parts > 1:
        value = value[:, part * n:(part + 1) * n]
    return tf.cast(value, tf.float32)
