"""Base class of the recurrent cells defined by one step (see :mod:`returnn.tf.layers.recurrent.cells`)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError

Params = Dict[str, tf.Variable]
# (name relative to "<layer>/rec", shape, init role): the role is "forward" / "recurrent" (the layer's
# forward/recurrent weights initializer), "bias" (the layer's bias_init), or ("const", value) for a fixed
# initial value (a number, or a list with one number per element)
ParamSpec = Tuple[str, Tuple[int, ...], Any]


class StepCell:
    """A cell: its parameters, the input projection (all frames at once) and one recurrent step.

    :param name: the unit name as given (for messages)
    :param unit_opts: the layer's ``unit_opts``; unknown keys raise :class:`LayerArgError`
    :param layer_name: the layer's name (for messages)
    :param layer_class: ``"rec"`` or ``"rnn_cell"`` (for messages)
    :ivar train_flag: python bool or scalar bool tensor; set by the layer before :meth:`step` is used
    """

    state_names: Tuple[str, ...] = ("c", "h")
    allowed_unit_opts: Tuple[str, ...] = ()

    def __init__(self, name: str, unit_opts: Optional[Dict[str, Any]] = None, *, layer_name: str = "?",
                 layer_class: str = "rec"):
        self.name = name
        self.layer_name = layer_name
        self.layer_class = layer_class
        if unit_opts is not None and not isinstance(unit_opts, dict):
            raise LayerArgError(layer=layer_name, layer_class=layer_class, arg="unit_opts", problem="invalid value",
                                got=unit_opts, expected="a dict")
        self.unit_opts = dict(unit_opts or {})
        unknown = sorted(set(self.unit_opts) - set(self.allowed_unit_opts))
        if unknown:
            from returnn.util.suggest import close_matches
            raise LayerArgError(layer=layer_name, layer_class=layer_class, arg="unit_opts",
                                problem=f"unknown option {unknown[0]!r} for unit {name!r} in", got=self.unit_opts,
                                suggestions=close_matches(unknown[0], self.allowed_unit_opts),
                                expected=f"options among {list(self.allowed_unit_opts)}")
        self.train_flag: Any = False

    def opt_error(self, problem: str, hint: Optional[str] = None) -> LayerArgError:
        """:return: the error for a bad combination of ``unit_opts``"""
        return LayerArgError(layer=self.layer_name, layer_class=self.layer_class, arg="unit_opts", problem=problem,
                             got=self.unit_opts, hint=hint)

    def param_specs(self, n_in: int, n: int) -> Sequence[ParamSpec]:
        raise NotImplementedError

    def project_input(self, x: tf.Tensor, params: Params, n_in: int, n: int) -> tf.Tensor:
        """:param x: float32 [..., n_in] (all frames, or one frame)
        :return: float32 [..., k], the part of the step that does not depend on the state"""
        raise NotImplementedError

    def step(self, xp: tf.Tensor, state: Dict[str, tf.Tensor], params: Params, n_in: int,
             n: int) -> Tuple[tf.Tensor, Dict[str, tf.Tensor]]:
        """:param xp: [B, k] from :meth:`project_input`
        :param state: state name -> [B, n]
        :return: (output [B, n], new state)"""
        raise NotImplementedError


def matmul_last_axis(x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    """:return: ``x @ w`` for ``x`` [..., n_in] (one matmul over all leading axes)"""
    if x.shape.rank == 2:
        return tf.matmul(x, w)
    shape = tf.shape(x)
    y = tf.matmul(tf.reshape(x, [-1, shape[-1]]), w)
    return tf.reshape(y, tf.concat([shape[:-1], tf.shape(w)[-1:]], axis=0))

