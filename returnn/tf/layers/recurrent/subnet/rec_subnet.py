"""``{"class": "rec", "unit": {...}}``: the ``rec`` layer with a recurrent subnetwork as its unit.

The one class registered under ``"rec"`` (public path :class:`returnn.tf.layers.rec.RecLayer`), with two
internal strategies: a string unit (``"nativelstm2"``, ``"gru"``, ...) runs the string-unit strategy
(:class:`returnn.tf.layers.recurrent.rec_layer.StringUnitRecLayer`, the base class, unchanged); a unit dict runs
the subnetwork strategy (:class:`returnn.tf.layers.recurrent.subnet.cell.SubnetworkRecCell`).

Shapes: the output is time-major ``{T, B, ...}`` where ``...`` are the dims of the unit's ``output`` layer per
frame; ``T`` is the input's time axis (``from``), else the axis of ``size_target``/``target`` (training), else a
new dynamic axis whose lengths come from the ``end`` layer (search, or no target). In search the batch axis holds
``B*K`` hypotheses (``output.beam``: a :class:`returnn.tf.layers.search.beam.SearchBeam`); use a ``decide``
layer to get ``{B, T}``.

Rec-specific args used with a unit dict: ``max_seq_len`` (int or expression such as
``"max_len_from('base:encoder') * 3"``), ``max_seq_len_via`` (instead: a layer outside the loop with an int scalar
value), ``optimize_move_layers_out`` (default: config key of the same name, else
True), ``include_eos`` (count the frame where ``end`` is true), ``size_target``/``target`` (common args), ``axis``
(a Dim: the loop runs over that dim when the input has no time axis, e.g. a dim of a layer outside that a
``rec_unstack`` reads frame by frame).
"""

from __future__ import annotations

import inspect
from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.load_on_init import check_load_on_init, load_params_from_checkpoint
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.recurrent.rec_layer import StringUnitRecLayer
from returnn.tf.layers.recurrent.subnet.cell import SubnetworkRecCell
from returnn.tf.layers.recurrent.subnet.flatten import inner_param_names

# the string-unit strategy's own args (from its signature): not passed to the base layer with a unit dict
_REC_ONLY_ARGS = tuple(name for name in inspect.signature(StringUnitRecLayer.__init__).parameters
                       if name not in ("self", "unit", "kwargs", "rec_previous_state"))


@register_layer
class RecLayer(StringUnitRecLayer):
    """``rec`` with a string unit (the string-unit strategy: see the base class) or a unit dict (the subnetwork
    strategy: see the module docstring)."""

    layer_class = "rec"
    recurrent = True  # depends on other frames (as the reference's class)

    @staticmethod
    def is_prev_step_layer(layer: Any) -> bool:
        """:return: whether ``layer`` is the value of the previous step of a unit layer (``prev:X`` in a loop)"""
        return isinstance(getattr(layer, "name", None), str) and layer.name.startswith("prev:")

    def __init__(self, unit: Any = "lstm", **kwargs: Any):
        if not isinstance(unit, SubnetworkRecCell):
            super().__init__(unit=unit, **kwargs)
            return
        for key in _REC_ONLY_ARGS:
            kwargs.pop(key, None)
        ConcatInputLayer.__init__(self, **kwargs)
        self.cell = unit
        # as the reference (observed): after its input's dropout, the layer draws three seeds from its network's
        # generator when the loop reads moved-out layers, else two; the layers moved out of the loop are built
        # with the second-last (before the loop) and the last (after the loop)
        rnd = self.network.random
        rnd.randint(2 ** 31)
        before_seed = int(rnd.randint(2 ** 31)) if unit.inputs_before_loop else None
        self.moved_out_seeds = (before_seed, int(rnd.randint(2 ** 31)))
        self.sub_layers: Dict[str, Any] = {}  # name -> full-sequence layer (moved out, or the accumulated output)
        self.loop_step_layers: Dict[str, Any] = {}  # name -> the layer of the loop's step (inside the while loop)
        unit.build(self)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """With a unit dict: resolves ``from`` and builds the cell's templates (``d["unit"]`` becomes the
        :class:`SubnetworkRecCell`)."""
        unit = d.get("unit")
        if not isinstance(unit, dict):
            super().transform_config_dict(d, network=network, get_layer=get_layer)
            return
        LayerBase.transform_config_dict.__func__(cls, d, network=network, get_layer=get_layer)
        max_seq_len = d.get("max_seq_len")
        if d.get("max_seq_len_via") is not None:
            if max_seq_len is not None:
                raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="max_seq_len_via",
                                    problem="give either max_seq_len or max_seq_len_via, not both:",
                                    got=d["max_seq_len_via"])
            d["max_seq_len_via"] = max_seq_len = get_layer(d["max_seq_len_via"])
        d["unit"] = SubnetworkRecCell(
            rec_name=d["name"], unit=unit, parent_net=network, sources=d.get("sources", []),
            target=d.get("target"), size_target=d.get("size_target"), max_seq_len=max_seq_len,
            optimize_move_layers_out=d.get("optimize_move_layers_out"), include_eos=bool(d.get("include_eos")),
            name_scope=d.get("name_scope"), axis=d.get("axis"))

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, unit: Any = "lstm", **kwargs: Any) -> Tensor:
        """:return: with a unit dict: ``{T, *output frame dims}`` (time-major)"""
        if isinstance(unit, SubnetworkRecCell):
            return unit.get_output_template()
        return super().get_out_data_from_opts(name=name, network=network, unit=unit, **kwargs)

    def get_constraints_value(self) -> Any:
        """The constraints of the unit's layers, as the reference (observed: ``L2`` of layers inside the loop and
        moved out of it counts in the objective): all constraints of the layers moved out of the loop, and the ``L2``
        of the layers in the loop (from their params; ``darc1``/``spatial_smoothing`` of an in-loop layer would need
        its per-step output and are left out)."""
        if not isinstance(getattr(self, "cell", None), SubnetworkRecCell):
            return super().get_constraints_value()
        counted: set = set()  # each param once (a layer can be in the loop and moved out, with the same params)
        # moved-out layers with a loss are also layers of the network ("<rec>/<name>"): counted there
        moved_out = []
        for name, layer in self.sub_layers.items():
            if self.network.layers.get(f"{self.name}/{name}") is layer:  # its params count there (and not again
                counted.update(id(param) for param in layer.params.values())  # for a step copy of the layer)
            else:
                moved_out.append(layer)
        terms = [layer.get_l2_constraint_value(counted) for layer in moved_out]
        terms += [layer.get_output_constraints_value() for layer in moved_out]
        terms += [layer.get_l2_constraint_value(counted) for layer in self.loop_step_layers.values()]
        terms = [t for t in terms if t is not None]
        return tf.add_n(terms) if terms else None

    @property
    def _optimize_move_layers_out(self) -> bool:
        """With a unit dict: whether the unit's layers that do not depend on the loop may move out of it (its
        ``optimize_move_layers_out``; the reference's attribute name, which its tests read); a string unit: False
        (it has no sub layers)."""
        cell = getattr(self, "cell", None)
        return bool(cell.optimize_move_layers_out) if isinstance(cell, SubnetworkRecCell) else False

    def load_params_on_init(self, session: Any) -> None:
        """The ``load_on_init`` of the unit's ``subnetwork`` layers (flattened into the unit, see
        :mod:`returnn.tf.layers.recurrent.subnet.flatten`): each sets the params of its inner layers from its
        checkpoint. :meth:`TFNetwork.initialize_params` calls it after the initializers."""
        cell = getattr(self, "cell", None)
        if not isinstance(cell, SubnetworkRecCell):
            return
        for sub_name, value in sorted(cell.load_on_init.items()):
            spec = check_load_on_init(f"{self.name}/{sub_name}", value)
            params = inner_param_names(self.params, sub_name)
            load_params_from_checkpoint(f"{self.name}/{sub_name}", spec, params, session)

    def get_sub_layer(self, name: str) -> Any:
        """:return: the full-sequence version of sub layer ``name`` (accumulated or moved out), if built"""
        return self.sub_layers.get(name)
