"""``RFNetwork``: the TF graph of an RF model for the layer engine.

The network has the extern data placeholders of every ``TFNetwork`` (from config ``extern_data``: the config's own
``Dim`` objects get the placeholders' sizes, so the step functions see them) and no layers. Building it
(:meth:`RFNetwork.build_rf`) calls ``get_model(epoch=, step=)`` (the parameters become TF variables under their
checkpoint names, :mod:`~.param_names`), then ``train_step(model=, extern_data=)`` (its marked losses become the
network's losses, :mod:`~.losses`) or ``forward_step(model=, extern_data=)`` (its marked outputs become
:attr:`RFNetwork.rf_outputs`). The train flag is the engine's placeholder in training graphs (so one graph trains
and scores), else False. ``rf.get_run_ctx().epoch`` is a scalar int32 ``Tensor`` of the placeholder
:attr:`RFNetwork.epoch_placeholder` (default: the build epoch), which training and evaluation feed with the epoch
they run (:func:`epoch_feed`), so that an epoch-dependent schedule in the step function changes between epochs in
the same graph; ``get_model(epoch=)`` gets the build epoch as an int.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf.engine.frontend import rf_api
from returnn.options import FrontendOptions
from returnn.tf.engine.frontend.config_entry import check_model, get_step_func
from returnn.tf.engine.frontend.losses import RFLossHolder
from returnn.tf.network import TFNetwork


class RFNetwork(TFNetwork):
    """A ``TFNetwork`` whose params, losses and outputs come from RF code (see module doc).

    :ivar rf_model: the ``rf.Module`` of ``get_model``
    :ivar rf_params: checkpoint name → TF variable of each parameter (sorted by name)
    :ivar rf_outputs: output name → ``Tensor`` marked by ``forward_step`` (``mark_as_output``)
    :ivar step_func_name: ``train_step`` or ``forward_step``
    :ivar epoch_placeholder: scalar int32 placeholder (default: the build epoch) of ``rf.get_run_ctx().epoch``;
        None before :meth:`build_rf`
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.rf_model: Any = None
        self.rf_params: Dict[str, tf.Variable] = {}
        self.rf_outputs: Dict[str, Any] = {}
        self.step_func_name: Optional[str] = None
        self.epoch_placeholder: Optional[tf.Tensor] = None

    @property
    def recurrent(self) -> bool:
        """Always True: RF models get whole sequences (never frame-wise batches)."""
        return True

    def build_rf(self, *, step_func_name: str, epoch: int = 1, step: int = 0) -> None:
        """Builds the model, its variables and the step function's losses/outputs in the current graph.

        :param step_func_name: ``train_step`` (losses) or ``forward_step`` (outputs)
        :param step: the step passed to ``get_model``; the run context's ``step`` is the graph's global step (a Tensor)
        :raises ConfigValueError: the step function is missing, ``get_model`` returns no ``rf.Module``,
            ``train_step`` marks no loss, ``forward_step`` marks no output
        """
        frontend = FrontendOptions.from_config(self.config)
        func = get_step_func(frontend, step_func_name)
        get_model = frontend.get_model
        self.step_func_name = step_func_name
        rf_api.select_tf_backend()
        rf_api.register_dim_sizes(self.extern_data)
        self.rf_model, self.rf_params = rf_api.build_model(
            lambda: check_model(get_model(epoch=epoch, step=step)), net_seed=self.rnd_seed)
        extern_data = rf_api.tensor_dict_of(self.extern_data)
        step = self._global_train_step_tensor()  # the run context's step: the graph's global step, as the reference
        epoch_tensor = self._epoch_tensor(epoch)  # the run context's epoch: fed per epoch, as the reference's Tensor
        if step_func_name == "train_step":
            rf_api.init_train_step_run_ctx(train_flag=self.train_flag, step=step, epoch=epoch_tensor)
            with rf_api.call_site_names(self.rf_model):
                func(model=self.rf_model, extern_data=extern_data)
            losses = rf_api.run_ctx_losses()
            if not losses:
                raise ConfigValueError("train_step", expected="train_step(*, model, extern_data) to mark at least one "
                                                              "loss (loss.mark_as_loss(name=...))",
                                       got="no loss marked")
            for loss in losses:
                self.losses_dict[loss.name] = RFLossHolder.from_run_ctx_loss(loss)
        else:
            rf_api.init_forward_step_run_ctx(expected_outputs=frontend.model_outputs,
                                             step=step, epoch=epoch_tensor)
            with rf_api.call_site_names(self.rf_model):
                func(model=self.rf_model, extern_data=extern_data)
            self.rf_outputs = rf_api.run_ctx_outputs()
            if not self.rf_outputs:
                raise ConfigValueError("forward_step", expected="forward_step(*, model, extern_data) to mark at "
                                                                "least one output (mark_as_default_output / "
                                                                "mark_as_output)", got="no output marked")

    def _global_train_step_tensor(self) -> Any:
        """:return: scalar int64 ``Tensor`` of the global train step variable (``global_step``), what
            ``rf.get_run_ctx().step`` is in the reference's TF backend (observed: ``Tensor{'global_train_step_output',
            [], dtype='int64'}``), so that step-dependent schedules in the step functions advance while training"""
        from returnn.tensor import Tensor

        root_scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name="")
        with tf.compat.v1.variable_scope(root_scope, auxiliary_name_scope=False), tf.compat.v1.name_scope(None):
            raw = tf.cast(self.global_train_step.read_value(), tf.int64, name="global_train_step")
        return Tensor("global_train_step", dims=(), dtype="int64", raw_tensor=raw)

    def _epoch_tensor(self, epoch: int) -> Any:
        """:return: scalar int32 ``Tensor`` of :attr:`epoch_placeholder` (created here, at the graph's root, with the
            default ``epoch``): what ``rf.get_run_ctx().epoch`` is in the reference's TF backends (observed with
            ``tensorflow-net-dict``: ``Tensor{'epoch_output', [], dtype='int32'}``)"""
        from returnn.tensor import Tensor

        with tf.compat.v1.name_scope(None):
            self.epoch_placeholder = tf.compat.v1.placeholder_with_default(
                tf.constant(int(epoch), dtype=tf.int32), shape=(), name="epoch")
        return Tensor("epoch", dims=(), dtype="int32", raw_tensor=self.epoch_placeholder)

    def get_params_list(self) -> List[tf.Variable]:
        """:return: the model's parameter variables, sorted by checkpoint name"""
        return [self.rf_params[name] for name in sorted(self.rf_params)]

    def get_used_data_keys(self) -> List[str]:
        """:return: every extern data key except those not available for inference in a forward graph"""
        keys = sorted(self.extern_data.data)
        if self.step_func_name == "forward_step":
            keys = [k for k in keys if self.extern_data.data[k].available_for_inference]
        return keys

    def print_network_info(self, name: str = "Network") -> None:
        """The extern data, the RF parameters with shapes and their count (v2)."""
        print(f"{name} (RF model, {self.step_func_name}):", file=log.v2)
        print(f"  extern data: {self.extern_data.get_data_description()}", file=log.v2)
        for param_name in sorted(self.rf_params):
            print(f"  param {param_name!r}: {self.rf_params[param_name].shape.as_list()}", file=log.v2)
        print(f"net params #: {self.get_num_params()}", file=log.v2)


def create_rf_network(config, *, extern_data, train_flag: Any, eval_flag: bool, search_flag: bool = False,
                      rnd_seed: Optional[int] = None, epoch: Optional[int] = None) -> RFNetwork:
    """An :class:`RFNetwork` (in the current default graph), built with ``train_step`` for training and scoring
    graphs, else ``forward_step``."""
    from returnn.tf.engine.frontend.config_entry import step_func_name

    network = RFNetwork(config=config, extern_data=extern_data, rnd_seed=rnd_seed, train_flag=train_flag,
                        eval_flag=eval_flag, search_flag=search_flag)
    network.build_rf(step_func_name=step_func_name(train=train_flag is not False, eval_flag=eval_flag),
                     epoch=epoch or 1)
    return network


def epoch_feed(network: Any, epoch: Optional[int]) -> Dict[tf.Tensor, int]:
    """:return: the feed of ``rf.get_run_ctx().epoch`` for a pass of ``epoch`` over ``network``: ``{placeholder:
        epoch}`` for an :class:`RFNetwork` (when ``epoch`` is given), else empty"""
    if epoch is None or not isinstance(network, RFNetwork) or network.epoch_placeholder is None:
        return {}
    return {network.epoch_placeholder: int(epoch)}
