"""Losses and objective of a :class:`~returnn.tf.network.tfnetwork.TFNetwork`: the layers' losses, constraints, the
total objective and the fetches of one step.

:class:`NetworkObjectiveMixin` is a base class of ``TFNetwork``; it uses the network's ``layers``, ``search_flag``,
``losses_dict``, ``extern_data`` and the ``total_*`` attributes ``TFNetwork.__init__`` sets.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import tensorflow as tf

from returnn.tf.layers.core.loss_holder import LossHolder
from returnn.tf.network.extra_nets import split_extra_name


class NetworkObjectiveMixin:
    """The losses / objective part of :class:`~returnn.tf.network.tfnetwork.TFNetwork`."""

    def get_losses_initialized(self, reduce_func: Any = None, with_total: bool = False
                               ) -> Tuple[Dict[str, LossHolder], Any, Any]:
        """:return: (losses dict name → LossHolder, total loss, total constraints); with ``with_total`` the totals are
            tf scalars or 0.0 when there are none; without, both are None"""
        if not self.losses_dict:
            # as the reference (observed): the main network's losses by layer name, then those of extra networks
            # ("extra.search:x") by their name there ("x"), or the full name where the main network has "x" too
            # each layer class's get_losses (a config's layer class may add its own loss there)
            holders = [holder for name, layer in self.layers.items()
                       if not (self.search_flag and layer.loss_only_on_non_search)
                       for holder in type(layer).get_losses(name=name, network=self, output=layer.output,
                                                            loss=layer.loss, layer=layer, loss_scale=layer.loss_scale)]
            extra = [(split_extra_name(holder.name), holder) for holder in holders]
            for split, holder in sorted(extra, key=lambda item: item[0] is not None):
                if split is not None and split[1] not in self.losses_dict:
                    holder.name = split[1]
                self.losses_dict[holder.name] = holder
        total_loss: Any = None
        total_constraints: Any = None
        if with_total:
            with tf.name_scope("objective/"):
                for holder in self.losses_dict.values():
                    value = holder.get_loss_value_for_objective()
                    if value is not None:
                        if reduce_func is not None:
                            value = reduce_func(value)
                        total_loss = value if total_loss is None else total_loss + value
                for layer in self.layers.values():
                    c = layer.get_constraints_value()
                    if c is not None:
                        total_constraints = c if total_constraints is None else total_constraints + c
            total_loss = 0.0 if total_loss is None else total_loss
            total_constraints = 0.0 if total_constraints is None else total_constraints
        return self.losses_dict, total_loss, total_constraints

    def maybe_construct_objective(self) -> None:
        """Builds total loss, constraints and objective once."""
        if self._objective_built:
            return
        _, total_loss, total_constraints = self.get_losses_initialized(with_total=True)
        self.total_loss = tf.convert_to_tensor(total_loss, tf.float32)
        self.total_constraints = tf.convert_to_tensor(total_constraints, tf.float32)
        self.total_objective = self.total_loss + self.total_constraints
        self._objective_built = True

    def get_total_loss(self) -> tf.Tensor:
        """:return: sum of all layer losses (for the objective) -- summed over frames, scaled"""
        self.maybe_construct_objective()
        return self.total_loss

    def get_total_constraints(self) -> Any:
        """:return: sum of L2/darc1/spatial_smoothing terms, float32 scalar tensor; the python int 0 when no layer
            has a constraint (as the reference, observed: ``get_total_constraints() == 0``)"""
        self.maybe_construct_objective()
        if tf.get_static_value(self.total_constraints) == 0 and self.total_constraints.op.type == "Const":
            return 0
        return self.total_constraints

    def get_objective(self) -> tf.Tensor:
        """:return: total loss + total constraints (what the updater minimises)"""
        self.maybe_construct_objective()
        return self.total_objective

    def _get_all_merged_summaries(self) -> Any:
        """:return: all summaries of the network's graph merged into one string tensor (a serialized ``Summary``),
            or None without any (the reference's name, used by its scripts and tests)"""
        graph = getattr(self, "graph", None) or tf.compat.v1.get_default_graph()
        with graph.as_default():
            return tf.compat.v1.summary.merge_all()

    def get_fetches_dict(self, config: Any = None, should_train: bool = False, should_eval: bool = False,
                         with_summary: bool = False, with_size: bool = False, horovod_collected_reduce_inputs: Any = None
                         ) -> Dict[str, tf.Tensor]:
        """:return: ``loss`` (the total loss of the objective, as the reference), ``cost:<loss>`` (summed loss),
        ``error:<loss>``, ``loss_norm_factor:<loss>`` (1/frames, as the reference), ``num_frames:<loss>``,
        ``post_control_dependencies`` (a list of ops, when registered), with ``with_size`` ``size:<key>:<axis>`` for
        used extern data, with ``with_summary`` ``summary`` (all summaries merged, if there are any)."""
        d: Dict[str, tf.Tensor] = {"loss": self.get_total_loss()}
        losses, _, _ = self.get_losses_initialized()
        for name, holder in losses.items():
            value = holder.get_loss_value()
            if value is not None:
                d[f"cost:{name}"] = value
            error = holder.get_error_value()
            if error is not None:
                d[f"error:{name}"] = error
            d[f"loss_norm_factor:{name}"] = holder.get_norm_factor()
            d[f"num_frames:{name}"] = holder.get_num_frames()
        post_deps = self.get_post_control_dependencies()
        if post_deps:  # e.g. hdf_dump: run with every step (as the reference's key)
            d["post_control_dependencies"] = post_deps
        if with_summary:
            summary = tf.compat.v1.summary.merge_all()
            if summary is not None:
                d["summary"] = summary
        if with_size:
            for key in self.get_used_data_keys():
                for axis, size in self.extern_data.data[key].size_placeholder.items():
                    d[f"size:{key}:{axis}"] = size
        return d
