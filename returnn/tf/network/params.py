"""Param values of a :class:`~returnn.tf.network.tfnetwork.TFNetwork`: initialize, read, set, save and load them.

:class:`NetworkParamsMixin` is a base class of ``TFNetwork``; it uses only the network's public methods
(``get_params_list``, ``get_saveable_params_list``, ``layers``, ``global_train_step``).
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, List

import numpy
import tensorflow as tf

from returnn.errors import DataFileError
from returnn.tf.layers.core.kept_state import COLLECTION as KEPT_STATES
from returnn.tf.network.lstm_param_conversion import converted_lstm_param
from returnn.tf.util.variables import VariableAssigner
from returnn.util.suggest import close_matches

tf1 = tf.compat.v1


class TFNetworkParamsSerialized:
    """The param values of a network as plain numpy arrays, with the global train step.

    :param values_dict: layer name → param name (as in ``layer.params``) → numpy array
    :param global_train_step: int
    """

    def __init__(self, values_dict: Dict[str, Dict[str, numpy.ndarray]], global_train_step: int):
        self.values_dict = values_dict
        self.global_train_step = global_train_step

    def __repr__(self) -> str:
        return "<TFNetworkParamsSerialized %d layers, global_train_step=%d>" % (
            len(self.values_dict), self.global_train_step)


def _assign_value(var: tf.Variable, value: Any, session: tf1.Session) -> None:
    """Sets ``var`` to ``value`` with a placeholder feed (no constant of the value in the graph)."""
    var.load(value, session=session)


class NetworkParamsMixin:
    """Param handling of ``TFNetwork`` (see module doc)."""

    @property
    def global_train_step_var(self) -> tf.Variable:
        """The int64 scalar variable ``global_step`` (the same object as ``global_train_step``)."""
        return self.global_train_step

    def get_global_train_step(self, session: tf1.Session) -> int:
        """:return: the current value of the global train step"""
        return int(session.run(self.global_train_step_var))

    def set_global_train_step(self, step: int, session: tf1.Session) -> None:
        """Sets the global train step variable to ``step``."""
        _assign_value(self.global_train_step_var, int(step), session)

    def initialize_params(self, session: tf1.Session) -> None:
        """Runs the initializers of all params of the network and of the global train step (already initialized
        params get fresh initial values, as the reference does); then layers that load their initial values from a
        file (a subnetwork's ``load_on_init``) load them."""
        variables: List[tf.Variable] = list(self.get_params_list())
        # the states kept over runs (initial_state "keep_over_epoch"; no params) start at zeros too
        variables += [v for v in tf1.get_collection(KEPT_STATES) if all(v is not p for p in variables)]
        step = self.global_train_step_var
        if all(step is not v for v in variables):
            variables.append(step)
        session.run(tf1.variables_initializer(variables))
        for _, layer in sorted(self.layers.items()):  # e.g. a subnetwork's load_on_init
            load = getattr(layer, "load_params_on_init", None)
            if load is not None:
                load(session)

    def get_var_assigner(self, var: tf.Variable) -> VariableAssigner:
        """:return: the assigner of ``var`` (``.assign(value, session)``; one per variable, reused), as the
            reference's"""
        assigners = self.__dict__.setdefault("_var_assigners", {})
        if id(var) not in assigners:
            assigners[id(var)] = VariableAssigner(var)
        return assigners[id(var)]

    def get_param_values_dict(self, session: tf1.Session) -> Dict[str, Dict[str, numpy.ndarray]]:
        """:return: layer name → param name → numpy value, for every layer (an empty dict for layers without
            params)"""
        return {name: layer.get_param_values_dict(session) for name, layer in self.layers.items()}

    def set_param_values_by_dict(self, values_dict: Dict[str, Dict[str, Any]], ignore_non_existing: bool = False,
                                 **kwargs: Any) -> None:
        """Sets params from ``values_dict`` (as :meth:`get_param_values_dict` returns).

        :param ignore_non_existing: skip layer names this network does not have (else ``KeyError``)
        :param kwargs: passed to each ``layer.set_param_values_by_dict`` (``session``, ``ignore_wrong_shape``, ...)
        :raises KeyError: an unknown layer name (and not ``ignore_non_existing``), naming the known ones
        """
        for layer_name, layer_values in values_dict.items():
            if not layer_values:
                continue
            if layer_name not in self.layers:
                if ignore_non_existing:
                    continue
                raise KeyError("set_param_values_by_dict: layer %r not in network %r (layers: %s)"
                               % (layer_name, self, ", ".join(sorted(self.layers))))
            self.layers[layer_name].set_param_values_by_dict(values_dict=layer_values, **kwargs)

    def get_params_serialized(self, session: tf1.Session) -> TFNetworkParamsSerialized:
        """:return: all param values and the global train step, as numpy values"""
        return TFNetworkParamsSerialized(values_dict=self.get_param_values_dict(session),
                                         global_train_step=self.get_global_train_step(session))

    def set_params_by_serialized(self, serialized: TFNetworkParamsSerialized, session: tf1.Session,
                                 **kwargs: Any) -> None:
        """Sets all params and the global train step from ``serialized`` (kwargs as in
        :meth:`set_param_values_by_dict`)."""
        self.set_param_values_by_dict(serialized.values_dict, session=session, **kwargs)
        self.set_global_train_step(serialized.global_train_step, session)

    def save_params_to_file(self, filename: str, session: tf1.Session) -> None:
        """Writes a TF checkpoint ``filename`` (``.index``, ``.data-*``, ``.meta``, ``checkpoint`` beside) with the
        saveable params and the global train step."""
        directory = os.path.dirname(os.path.abspath(filename))
        os.makedirs(directory, exist_ok=True)
        variables = list(self.get_saveable_params_list())
        if all(self.global_train_step_var is not v for v in variables):
            variables.append(self.global_train_step_var)
        saver = tf1.train.Saver(var_list={_var_name(v): v for v in variables}, max_to_keep=None)
        saver.save(session, filename)

    def load_params_from_file(self, filename: str, session: tf1.Session) -> None:
        """Loads the saveable params from the TF checkpoint ``filename``; the global train step too if the
        checkpoint has it. A batch norm param saved with another ``param_version`` (names
        ``batch_norm/<layer>_<layer>_output_mean`` (0), ``batch_norm/mean`` (1), ``batch_norm/v2_mean`` (2); shapes
        ``[1, ..., D]`` or ``[D]``) is found under its other names and reshaped. The params of an LSTM ``rec``
        layer saved with another LSTM unit are converted
        (:mod:`returnn.tf.network.lstm_param_conversion`, e.g. ``nativelstm2`` -> ``standardlstm``).

        :raises DataFileError: file missing/corrupted, a param missing or of another size
        """
        try:
            reader = tf1.train.NewCheckpointReader(filename)
        except Exception as exc:  # noqa: BLE001 (TF raises various errors for a missing/corrupt file)
            raise DataFileError(filename, "cannot read the checkpoint: %s" % str(exc).splitlines()[0]) from exc
        available = reader.get_variable_to_shape_map()
        step = self.global_train_step_var
        for var in self.get_saveable_params_list():
            name = _var_name(var)
            ckpt = next((c for c in _checkpoint_name_candidates(name, available) if c in available), None)
            if ckpt is None:
                if var is step:
                    continue
                value = converted_lstm_param(name, var.shape.as_list(), reader.get_tensor, available)
                if value is None:
                    raise DataFileError(filename, "param %r not in the checkpoint (similar: %s)"
                                        % (name, ", ".join(close_matches(name, sorted(available))) or "none"))
                ckpt = "(converted from another LSTM unit's params)"
            else:
                value = reader.get_tensor(ckpt)
            want = var.shape.as_list()
            if list(value.shape) != want:
                if int(numpy.prod(value.shape)) != int(numpy.prod(want)):
                    raise DataFileError(filename, "param %r has shape %s in the checkpoint (as %r), but the network "
                                                  "has %s" % (name, list(value.shape), ckpt, want))
                value = value.reshape(want)
            _assign_value(var, value, session)


_BATCH_NORM_PARAM = re.compile(r"^(?P<prefix>.*/batch_norm/)(v2_|.*_output_)?(?P<kind>mean|variance|gamma|beta)$")


def _var_name(var: tf.Variable) -> str:
    return var.name[:-2] if var.name.endswith(":0") else var.name


def _checkpoint_name_candidates(name: str, available: Dict[str, Any]) -> List[str]:
    """:return: names under which the param ``name`` may be in a checkpoint: itself first, for batch norm params
        the names of the other param versions"""
    match = _BATCH_NORM_PARAM.match(name)
    if not match:
        return [name]
    prefix, kind = match.group("prefix"), match.group("kind")
    others = [prefix + kind, prefix + "v2_" + kind]
    others += sorted(n for n in available if n.startswith(prefix) and n.endswith("_output_" + kind))
    return [name] + [n for n in others if n != name]
