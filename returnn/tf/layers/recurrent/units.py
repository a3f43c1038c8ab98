"""The string ``unit`` of a ``rec`` layer: parameters (names, shapes, default initializers) and the kernel.

Parameter names, shapes and numerics follow the reference (observed by running it; see
tests/tf/layers/recurrent/test_rec_layer.py). All variables live under ``<layer>/rec/``:

=====================================================================  ======================================
unit                                                                    params (n_in input dim, n = n_out)
=====================================================================  ======================================
``lstm``, ``lstmp``, ``nativelstm``, ``nativelstm2``, ``lstmblock``,    ``W`` [n_in, 4n], ``W_re`` [n, 4n],
``lstmblockfused``, ``cudnnlstm``                                       ``b`` [4n]
``nativelstmlowmem``                                                    ``W`` [n_in + n, 4n], ``b`` [4n]
``standardlstm``                                                        ``lstm_cell/kernel`` [n_in + n, 4n],
                                                                        ``lstm_cell/bias`` [4n]; with
                                                                        ``use_peepholes`` also
                                                                        ``lstm_cell/w_{f,i,o}_diag`` [n]
``basiclstm``                                                           ``basic_lstm_cell/kernel``, ``.../bias``
``gru``                                                                 ``gru_cell/gates/kernel`` [n_in + n, 2n],
                                                                        ``gru_cell/gates/bias`` [2n] (init 1),
                                                                        ``gru_cell/candidate/kernel`` [n_in+n, n],
                                                                        ``gru_cell/candidate/bias`` [n]
``rnn``, ``basicrnn``                                                   ``basic_rnn_cell/kernel`` [n_in + n, n],
                                                                        ``basic_rnn_cell/bias`` [n]
``zoneoutlstm``                                                         ``lstm_cell/kernel`` [n_in + n, 4n],
                                                                        ``lstm_cell/bias`` [4n]
``layernormvariantslstm``                                               ``W_ff``, ``W_re``, norm gains/shifts
                                                                        (see :mod:`.cells.layer_norm_lstm`)
``rhn``                                                                 ``W`` [n_in, 2n], ``b`` [2n],
                                                                        ``rhn_cell/depth_<l>/W`` [n, 2n]
                                                                        (see :mod:`.cells.rhn`)
=====================================================================  ======================================

Gate blocks: the native units use (cell input, input, forget, output) without a forget bias; the TF-cell units
``standardlstm``/``basiclstm`` use (input, cell input, forget, output) with ``forget_bias`` (default 1.0) added
to the forget gate, as TensorFlow's ``LSTMCell``. Every LSTM unit runs on the same fast kernel
(:func:`returnn.tf.ops.rnn.lstm.lstm`); the TF-cell layouts are converted on the fly (a cheap slice/concat of
the weights per run). Exceptions: ``nativelstm`` runs the op ``LstmGenericBase`` over time, as the reference
(:mod:`returnn.tf.ops.rnn.native_lstm_op`; same numerics) and, as the reference, cannot run step by step inside a
rec loop; ``standardlstm`` with ``use_peepholes``/``cell_clip`` is a step cell
(:mod:`returnn.tf.layers.recurrent.cells.standard_lstm`). ``cudnnlstm`` on a machine without GPU prints the reference's note and uses the same CPU
kernel. ``rnn`` is an alias of ``basicrnn`` (in the reference, ``rnn`` names an abstract cell and fails).
``lstmp`` is ``nativelstm2`` (as the reference). ``zoneoutlstm`` and ``layernormvariantslstm`` are step cells
(:mod:`returnn.tf.layers.recurrent.cells`), run over time by :func:`returnn.tf.ops.rnn.cell_loop.run_cell_loop`.
Initializers (as observed): ``W`` of the native units ``forward_weights_init``; ``W_re`` and every combined
kernel (``[n_in + n, ...]``: ``standardlstm``, ``basiclstm``, ``gru``, ``basicrnn``, ``nativelstmlowmem``,
``zoneoutlstm``) ``recurrent_weights_init``; both default ``glorot_uniform``. ``bias_init`` (default 0) is used by
the native units' ``b`` only; the other biases start at 0 (the GRU gate bias at 1) whatever ``bias_init`` says.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.log import log
from returnn.tf.layers.recurrent.cells import LayerNormVariantsLSTMCell, StandardLSTMCell, ZoneoutLSTMCell
from returnn.tf.layers.recurrent.cells.rhn import RHNStepCell
from returnn.tf.ops.dropout import cond_on_train_flag
from returnn.tf.ops import step_random
from returnn.tf.ops.rnn.cell_loop import run_cell_loop
from returnn.tf.ops.rnn.lstm import lstm
from returnn.tf.ops.rnn.masking import last_frame, reverse_by_length
from returnn.tf.ops.rnn.native_lstm_op import native_lstm
from returnn.tf.util.amp import OFF as AMP_OFF
from returnn.tf.ops.rnn.simple_loop import basic_rnn, gru
from returnn.util.registry import Registry

Params = Dict[str, tf.Variable]


class RecUnit:
    """One string unit. Subclasses define ``param_specs``, ``state_names`` and :meth:`run`.

    :param unit_opts: the layer's ``unit_opts`` dict (validated by :meth:`check_unit_opts`)
    """

    name = "?"
    state_names: Tuple[str, ...] = ("h",)
    allowed_unit_opts: Tuple[str, ...] = ()
    #: the network's ``tf_amp`` cast policy (set by the rec layer; the LSTM units' gate matmuls follow it)
    amp: Any = AMP_OFF
    #: () -> context manager entering the variable scope of the params (set by the rec layer: ``<layer>/rec``, or
    #: the layer's scope with an explicit ``name_scope``); used by units that create their own variables
    params_scope: Any = staticmethod(lambda: tf.compat.v1.variable_scope("rec"))

    def __init__(self, name: str, unit_opts: Optional[Dict[str, Any]] = None):
        self.name = name
        self.unit_opts = dict(unit_opts or {})

    def param_specs(self, n_in: int, n: int) -> Sequence[Tuple[str, Tuple[int, ...], str]]:
        """:return: (name relative to ``<layer>/rec``, shape, role) with role in ``"forward"``, ``"recurrent"``
        (the layer's forward/recurrent weights initializer), ``"bias"`` (its ``bias_init``) or ``("const", value)``
        (a fixed initial value: a number, or a list with one number per element)"""
        raise NotImplementedError

    def run(self, x: tf.Tensor, seq_len: tf.Tensor, params: Params, n: int, direction: int,
            initial_state: Dict[str, tf.Tensor]) -> Tuple[tf.Tensor, Dict[str, tf.Tensor]]:
        """
        :param x: float32 [T, B, n_in], time-major
        :param seq_len: int32 [B]
        :param params: name -> variable, as in :meth:`param_specs`
        :param initial_state: state name -> float32 [B, n]
        :return: (y [T, B, n] zero in padded frames, final state name -> [B, n])
        """
        raise NotImplementedError

    def step(self, x: tf.Tensor, state: Dict[str, tf.Tensor], params: Params,
             n: int) -> Tuple[tf.Tensor, Dict[str, tf.Tensor]]:
        """One frame (a ``rec`` layer with this unit inside a rec loop), same params and numerics as :meth:`run`.

        :param x: float32 [B, n_in]
        :param state: state name -> float32 [B, n]
        :return: (y [B, n], new state)
        """
        raise NotImplementedError


def _reorder_tf_cell_gates(m: tf.Tensor, n: int) -> tf.Tensor:
    """(input, cell input, forget, output) -> (cell input, input, forget, output) along the last axis"""
    i, j, rest = tf.split(m, [n, n, 2 * n], axis=-1)
    return tf.concat([j, i, rest], axis=-1)


class NativeLstmUnit(RecUnit):
    """The reference's NativeLstm2 layout (``W``, ``W_re``, ``b``).

    ``unit_opts`` (as the reference): ``forget_bias`` (only 0; other values raise, as the reference: "should be
    done via right param init"); for the NativeLstm2 units also ``rec_weight_dropout`` (dropout on ``W_re`` in
    training, one mask per run over the sequence, scaled by 1/(1-rate); inside a rec loop one mask per step) and
    ``rec_weight_dropout_shape`` (noise shape of ``W_re``, None per axis for independent noise, 1 to share).
    """

    state_names = ("c", "h")
    allowed_unit_opts = ("forget_bias", "rec_weight_dropout", "rec_weight_dropout_shape")
    native_forget_bias_check = True  # TF-cell layouts have their own forget_bias

    def __init__(self, name: str, unit_opts: Optional[Dict[str, Any]] = None, impl: str = "auto",
                 native2: bool = True, layer_name: str = "?"):
        super().__init__(name, unit_opts)
        self.impl = impl
        self.native2 = native2
        self.layer_name = layer_name
        if not native2:  # the reference's NativeLstmCell
            self.allowed_unit_opts = ("forget_bias",)
        if self.native_forget_bias_check and self.unit_opts.get("forget_bias", 0.0):
            raise LayerArgError(layer=layer_name, layer_class="rec", arg="unit_opts",
                                problem=f"forget_bias is not supported for unit {name!r} (as in the reference; "
                                        "it should be done via the param init):", got=self.unit_opts,
                                hint='remove forget_bias, or use e.g. "bias_init"')
        self.rec_weight_dropout = float(self.unit_opts.get("rec_weight_dropout", 0.0) or 0.0)
        self.rec_weight_dropout_shape = self.unit_opts.get("rec_weight_dropout_shape")
        self.train_flag: Any = False

    def _dropped_w_re(self, w_re: tf.Tensor) -> tf.Tensor:
        if not self.rec_weight_dropout:
            return w_re
        noise_shape = None
        if self.rec_weight_dropout_shape is not None:
            noise_shape = [dim if s is None else s for s, dim in zip(self.rec_weight_dropout_shape,
                                                                         w_re.shape.as_list())]
        rate = self.rec_weight_dropout
        return cond_on_train_flag(self.train_flag, lambda: step_random.nn_dropout(w_re, rate=rate, noise_shape=noise_shape),
                                  lambda: w_re)

    def param_specs(self, n_in, n):
        return [("W", (n_in, 4 * n), "forward"), ("W_re", (n, 4 * n), "recurrent"), ("b", (4 * n,), "bias")]

    def get_weights(self, params: Params, n_in: int, n: int):
        """:return: (W [n_in, 4n], W_re [n, 4n], b [4n]) in the native gate order"""
        return params["W"], params["W_re"], params["b"]

    def step(self, x, state, params, n):
        if not self.native2:  # as the reference: its NativeLstm (v1) cannot run one step
            raise LayerArgError(layer=self.layer_name, layer_class="rec", arg="unit",
                                problem="the unit cannot run step by step inside a rec loop "
                                        "(see https://github.com/rwth-i6/returnn/issues/813):", got=self.name,
                                expected="'NativeLstm2' or 'lstm' inside a rec loop")
        w, w_re, b = self.get_weights(params, int(x.shape[-1]), n)
        w_re = self._dropped_w_re(w_re)
        j, i, f, o = tf.split(self.amp.matmul(x, w) + self.amp.matmul(state["h"], w_re) + b, 4, axis=-1)
        c = tf.sigmoid(f) * state["c"] + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, {"c": c, "h": h}

    def run(self, x, seq_len, params, n, direction, initial_state):
        w, w_re, b = self.get_weights(params, int(x.shape[-1]), n)
        if not self.native2 and type(self) is NativeLstmUnit:
            return self._run_native_op(x, seq_len, w, params["W_re"], b, direction, initial_state)
        w_re = self._dropped_w_re(w_re)
        y, (c, h) = lstm(x, seq_len, w, w_re, b, direction=direction, initial_c=initial_state["c"],
                         initial_h=initial_state["h"], impl=self.impl, compute_dtype=self.amp.compute_dtype)
        return y, {"c": c, "h": h}


    @staticmethod
    def _run_native_op(x, seq_len, w, w_re, b, direction, initial_state):
        """``nativelstm`` (the reference's ``NativeLstm``) over time: the op ``LstmGenericBase``
        (:mod:`returnn.tf.ops.rnn.native_lstm_op`), as the reference; the initial output enters through the first
        frame's projected input (every sequence starts at frame 0)."""
        if direction == -1:
            x = reverse_by_length(x, seq_len)
        num_frames = tf.shape(x)[0]
        z = tf.reshape(tf.matmul(tf.reshape(x, [-1, tf.shape(x)[-1]]), w) + b,
                       tf.concat([tf.shape(x)[:2], tf.shape(w)[-1:]], axis=0))
        z = tf.concat([z[:1] + tf.matmul(initial_state["h"], w_re)[None], z[1:]], axis=0)
        index = tf.transpose(tf.sequence_mask(seq_len, maxlen=num_frames, dtype=tf.float32))
        y, _, c = native_lstm(z, w_re, initial_state["c"], index)
        h = last_frame(y, seq_len, initial_state["h"])
        if direction == -1:
            y = reverse_by_length(y, seq_len)
        return y, {"c": c, "h": h}


class CudnnLstmUnit(NativeLstmUnit):
    """``cudnnlstm``: GPU-only in the reference; without a GPU it falls back with a note (as the reference)."""

    def __init__(self, name, unit_opts=None):
        super().__init__(name, unit_opts)
        if not tf.config.list_physical_devices("GPU"):
            print(f"You have selected unit {name!r} in a rec layer which is for GPU only, "
                  "so we are using 'LSTMBlockFused' instead.", file=log.v2)


class NativeLstmLowMemUnit(NativeLstmUnit):
    """``nativelstmlowmem``: one ``W`` [n_in + n, 4n] (input rows, then recurrent rows) and ``b``."""

    allowed_unit_opts = ()

    def param_specs(self, n_in, n):
        return [("W", (n_in + n, 4 * n), "recurrent"), ("b", (4 * n,), ("const", 0.0))]

    def get_weights(self, params, n_in, n):
        return params["W"][:n_in], params["W"][n_in:], params["b"]


class TFCellLstmUnit(NativeLstmUnit):
    """``standardlstm`` (``lstm_cell``) / ``basiclstm`` (``basic_lstm_cell``): TF's LSTMCell layout.
    ``standardlstm`` also accepts ``use_peepholes`` and ``cell_clip`` (False/None here: with a value, the unit is the
    step cell :class:`returnn.tf.layers.recurrent.cells.StandardLSTMCell`, see :func:`_standard_lstm`)."""

    allowed_unit_opts = ("forget_bias",)
    native_forget_bias_check = False

    def __init__(self, name, unit_opts=None, cell_name="lstm_cell"):
        super().__init__(name, unit_opts)
        self.cell_name = cell_name
        if cell_name == "lstm_cell":
            self.allowed_unit_opts = StandardLSTMCell.allowed_unit_opts
        self.forget_bias = float(self.unit_opts.get("forget_bias", 1.0))

    def param_specs(self, n_in, n):
        return [(f"{self.cell_name}/kernel", (n_in + n, 4 * n), "recurrent"),
                (f"{self.cell_name}/bias", (4 * n,), ("const", 0.0))]

    def get_weights(self, params, n_in, n):
        kernel = _reorder_tf_cell_gates(params[f"{self.cell_name}/kernel"], n)
        bias = _reorder_tf_cell_gates(params[f"{self.cell_name}/bias"], n)
        if self.forget_bias:
            bias = bias + tf.concat([tf.zeros([2 * n]), tf.fill([n], self.forget_bias), tf.zeros([n])], 0)
        return kernel[:n_in], kernel[n_in:], bias


class GruUnit(RecUnit):
    """``gru``: TF's GRUCell layout (``gru_cell/gates/...``, ``gru_cell/candidate/...``)."""

    def param_specs(self, n_in, n):
        return [("gru_cell/gates/kernel", (n_in + n, 2 * n), "recurrent"),
                ("gru_cell/gates/bias", (2 * n,), ("const", 1.0)),
                ("gru_cell/candidate/kernel", (n_in + n, n), "recurrent"),
                ("gru_cell/candidate/bias", (n,), ("const", 0.0))]

    def run(self, x, seq_len, params, n, direction, initial_state):
        y, h = gru(x, seq_len, params["gru_cell/gates/kernel"], params["gru_cell/gates/bias"],
                   params["gru_cell/candidate/kernel"], params["gru_cell/candidate/bias"],
                   initial_h=initial_state["h"], direction=direction)
        return y, {"h": h}

    def step(self, x, state, params, n):
        h = state["h"]
        gates = tf.sigmoid(tf.matmul(tf.concat([x, h], -1), params["gru_cell/gates/kernel"])
                           + params["gru_cell/gates/bias"])
        r, u = tf.split(gates, 2, axis=-1)
        cand = tf.tanh(tf.matmul(tf.concat([x, r * h], -1), params["gru_cell/candidate/kernel"])
                       + params["gru_cell/candidate/bias"])
        h = u * h + (1.0 - u) * cand
        return h, {"h": h}


class BasicRnnUnit(RecUnit):
    """``basicrnn`` / ``rnn``: TF's BasicRNNCell (tanh) layout (``basic_rnn_cell/kernel``, ``.../bias``)."""

    def param_specs(self, n_in, n):
        return [("basic_rnn_cell/kernel", (n_in + n, n), "recurrent"), ("basic_rnn_cell/bias", (n,), ("const", 0.0))]

    def run(self, x, seq_len, params, n, direction, initial_state):
        y, h = basic_rnn(x, seq_len, params["basic_rnn_cell/kernel"], params["basic_rnn_cell/bias"],
                         initial_h=initial_state["h"], direction=direction)
        return y, {"h": h}

    def step(self, x, state, params, n):
        h = tf.tanh(tf.matmul(tf.concat([x, state["h"]], -1), params["basic_rnn_cell/kernel"])
                    + params["basic_rnn_cell/bias"])
        return h, {"h": h}


class StepCellUnit(RecUnit):
    """A unit defined by a :class:`returnn.tf.layers.recurrent.cells.StepCell` (same params as the cell in
    ``rnn_cell``), run over time with :func:`returnn.tf.ops.rnn.cell_loop.run_cell_loop`.

    :ivar train_flag: set by the layer (python bool or bool tensor); the cell's zoneout/dropout use it
    """

    def __init__(self, name: str, unit_opts: Optional[Dict[str, Any]] = None, *, cell_class: Any = None,
                 layer_name: str = "?"):
        super().__init__(name, unit_opts)
        self.cell = cell_class(name, unit_opts, layer_name=layer_name, layer_class="rec")
        self.state_names = self.cell.state_names
        self.allowed_unit_opts = self.cell.allowed_unit_opts
        self.train_flag: Any = False

    def param_specs(self, n_in, n):
        return self.cell.param_specs(n_in, n)

    def run(self, x, seq_len, params, n, direction, initial_state):
        n_in = int(x.shape[-1])
        self.cell.train_flag = self.train_flag
        names = self.state_names

        def step(xp_t, states):
            y_t, new = self.cell.step(xp_t, dict(zip(names, states)), params, n_in, n)
            return y_t, tuple(new[k] for k in names)

        if direction == -1:  # as the reference: the input reversed before its projection (the same rounding)
            x = reverse_by_length(x, seq_len)
        begin_run = getattr(self.cell, "begin_run", None)
        if begin_run is not None:  # e.g. rhn: one dropout mask per sequence for the whole run
            begin_run(tf.shape(x)[1], n)
        xp = self.cell.project_input(x, params, n_in, n)
        y, final = run_cell_loop(xp, seq_len, step, [initial_state[k] for k in names])
        if direction == -1:
            y = reverse_by_length(y, seq_len)
        return y, dict(zip(names, final))

    def step(self, x, state, params, n):
        n_in = int(x.shape[-1])
        self.cell.train_flag = self.train_flag
        return self.cell.step(self.cell.project_input(x, params, n_in, n), state, params, n_in, n)


class TFCellUnit(RecUnit):
    """A user-registered TF RNN cell class (``RecLayer._rnn_cells_dict[name] = cls``, e.g. a subclass of
    :class:`returnn.tf.layers.recurrent.cells.BaseRNNCell`): built as ``cls(n, **unit_opts)``, run over time with
    ``tf.compat.v1.nn.dynamic_rnn`` (output zero in padded frames, final state at each sequence's end). The cell
    creates its own variables (under ``<layer>/rec/``); they are the layer's params. One state ``"h"`` of
    ``[B, cell.state_size]``; a cell with a nested state (e.g. an ``LSTMStateTuple``) runs over time only, from
    zeros, its last part (the ``h`` of an LSTM) being ``"h"``.

    :ivar created_params: the trainable variables the cell created (set by :meth:`run`/:meth:`step`)
    """

    def __init__(self, name: str, unit_opts: Optional[Dict[str, Any]] = None, *, cell_class: Any = None):
        super().__init__(name, unit_opts)
        self.cell_class = cell_class
        self.allowed_unit_opts = tuple(self.unit_opts)  # passed on to the cell's constructor
        self.created_params: Sequence[tf.Variable] = ()

    def param_specs(self, n_in, n):
        return []  # the cell creates its own variables

    def _call_cell(self, n: int, func: Any) -> Any:
        cell = self.cell_class(n, **self.unit_opts)
        before = {id(v) for v in tf.compat.v1.trainable_variables()}
        with self.params_scope() as scope:
            result = func(cell, scope)
        self.created_params = [v for v in tf.compat.v1.trainable_variables() if id(v) not in before]
        return result

    def run(self, x, seq_len, params, n, direction, initial_state):
        if direction == -1:
            x = reverse_by_length(x, seq_len)

        def func(cell, scope):
            if hasattr(cell, "get_input_transformed"):
                x_ = cell.get_input_transformed(x, batch_dim=tf.shape(x)[1])
            else:
                x_ = x
            # the cell's variables directly under <layer>/rec/ (as the reference, observed), not under .../rnn/
            if _nested_state(cell):  # e.g. an LSTMStateTuple (c, h): from zeros
                return tf.compat.v1.nn.dynamic_rnn(cell, x_, sequence_length=seq_len, dtype=x_.dtype,
                                                   time_major=True, scope=scope)
            return tf.compat.v1.nn.dynamic_rnn(cell, x_, sequence_length=seq_len, initial_state=initial_state["h"],
                                               time_major=True, scope=scope)

        y, final = self._call_cell(n, func)
        if not isinstance(final, tf.Tensor):  # a nested state: its last part (h of an LSTMStateTuple) is "h"
            final = tf.nest.flatten(final)[-1]
        if direction == -1:
            y = reverse_by_length(y, seq_len)
        return y, {"h": final}

    def step(self, x, state, params, n):
        def func(cell, scope):
            if _nested_state(cell):
                raise LayerArgError(layer="?", layer_class="rec", arg="unit",
                                    problem=f"a cell with a nested state ({cell.state_size!r}) runs only over a "
                                            "whole sequence, not one step per frame inside a rec loop:",
                                    got=self.cell_class, expected="a cell whose state_size is an int")
            if hasattr(cell, "get_input_transformed"):
                x_ = cell.get_input_transformed(x, batch_dim=tf.shape(x)[0])
            else:
                x_ = x
            return cell(x_, state["h"])

        y, new_state = self._call_cell(n, func)
        return y, {"h": new_state}


def _nested_state(cell: Any) -> bool:
    """:return: whether the TF RNN cell's ``state_size`` is a structure (e.g. ``LSTMStateTuple``), not one int"""
    return not isinstance(cell.state_size, (int, tf.compat.v1.Dimension))


#: user-registered TF RNN cell classes by lower-case unit name (``RecLayer._rnn_cells_dict``); they take
#: precedence over the built-in units of the same name
USER_CELLS: Dict[str, Any] = {}


# factories: (name, unit_opts, layer_name) -> RecUnit
UNITS: Registry[Any] = Registry("rec unit", normalize=str.lower)
for _name in ("lstm", "lstmp", "nativelstm2", "lstmblock"):
    UNITS.register(_name, lambda name, unit_opts, layer_name: NativeLstmUnit(name, unit_opts, layer_name=layer_name))
UNITS.register("nativelstm",
               lambda name, unit_opts, layer_name: NativeLstmUnit(name, unit_opts, native2=False, layer_name=layer_name))
UNITS.register("lstmblockfused",
               lambda name, unit_opts, layer_name: NativeLstmUnit(name, unit_opts, impl="block", layer_name=layer_name))
UNITS.register("cudnnlstm", lambda name, unit_opts, layer_name: CudnnLstmUnit(name, unit_opts))
UNITS.register("nativelstmlowmem", lambda name, unit_opts, layer_name: NativeLstmLowMemUnit(name, unit_opts))


def _standard_lstm(name: str, unit_opts: Optional[Dict[str, Any]], layer_name: str) -> RecUnit:
    """:return: ``standardlstm``: the fast LSTM kernel, or the step cell with ``use_peepholes``/``cell_clip``"""
    opts = unit_opts if isinstance(unit_opts, dict) else {}
    if opts.get("use_peepholes") or opts.get("cell_clip") is not None:
        return StepCellUnit(name, unit_opts, cell_class=StandardLSTMCell, layer_name=layer_name)
    return TFCellLstmUnit(name, unit_opts, cell_name="lstm_cell")


UNITS.register("standardlstm", _standard_lstm)
UNITS.register("basiclstm",
               lambda name, unit_opts, layer_name: TFCellLstmUnit(name, unit_opts, cell_name="basic_lstm_cell"))
UNITS.register("gru", lambda name, unit_opts, layer_name: GruUnit(name, unit_opts))
for _name in ("basicrnn", "rnn"):
    UNITS.register(_name, lambda name, unit_opts, layer_name: BasicRnnUnit(name, unit_opts))
for _name, _cell in (("zoneoutlstm", ZoneoutLSTMCell), ("layernormvariantslstm", LayerNormVariantsLSTMCell),
                     ("rhn", RHNStepCell)):
    UNITS.register(_name, lambda name, unit_opts, layer_name, cell=_cell: StepCellUnit(
        name, unit_opts, cell_class=cell, layer_name=layer_name))


def get_unit(name: str, unit_opts: Optional[Dict[str, Any]] = None, *, context: str = "",
             layer_name: str = "?") -> RecUnit:
    """
    :param name: the ``unit`` string, case-insensitive (``"NativeLSTM2"``, ``"ZoneoutLSTM"`` work)
    :param unit_opts: the layer's ``unit_opts``
    :param layer_name: for messages about ``unit_opts``
    :raises UnknownNameError: unknown unit, with close matches
    :raises LayerArgError: invalid ``unit_opts`` of a step-cell unit
    """
    if isinstance(name, str) and name.lower() in USER_CELLS:
        return TFCellUnit(name.lower(), unit_opts, cell_class=USER_CELLS[name.lower()])
    return UNITS.get(name, context=context or None)(name.lower(), unit_opts, layer_name)
