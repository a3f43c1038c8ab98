"""The updater: gradients of the training objective → one optimizer step per ``Session.run`` (TF v1 graph mode).

Config keys (defaults as the reference):

* ``optimizer``: ``{"class": "adam", ...}`` (see :mod:`returnn.tf.updater.optimizers`); without it the legacy
  flags ``adam``/``nadam``/``adamw``/``adadelta``/``adagrad``/``rmsprop`` ``= True`` select the class, else
  ``momentum > 0`` selects momentum SGD, else plain SGD (with ``behavior_version >= 2`` an ``optimizer`` is
  required). ``optimizer_epsilon`` (1e-16) is the default ``epsilon``, ``momentum`` (0.0) the default momentum.
* ``learning_rate`` is a non-trainable float32 variable ``learning_rate`` set per epoch by
  :meth:`Updater.set_learning_rate`; ``dynamic_learning_rate(*, network, global_train_step, learning_rate)``
  (a callable returning a scalar tensor) gives the per-step learning rate from it (e.g. warmup/Noam).
* Gradients, in this order, per parameter: ``gradient_nan_inf_filter`` (non-finite elements → 0), ``grad_filter``
  (norm above threshold → all 0), ``gradient_clip_norm`` (per-parameter norm), ``gradient_clip`` (by value); then
  ``gradient_clip_global_norm`` over all parameters; then ``gradient_noise`` (Gaussian stddev).
* ``reset_updater_vars_mod_step`` (0: off): every N-th step, after its update, the optimizer state (slots,
  ``beta1_power``, ...) is reset to its initial values.
* ``accum_grad_multiple_step`` (0/1: off): the processed gradients of N consecutive steps are summed in variables
  ``optimize/<param>/accum_grad`` and the optimizer is applied with the sum on every N-th step
  (``global_train_step % N == N - 1``); the other steps only accumulate. The global step counts every step.
* Per-parameter options: a parameter variable may carry ``RETURNN_updater_opts`` (a dict, set with
  :func:`set_param_updater_opts` from a layer's ``updater_opts``/``grad_filter``) with ``optimizer`` (a separate
  optimizer dict, which may hold a ``learning_rate_multiplier`` of its own; each distinct dict is one more entry of
  :attr:`Updater.optimizers`), ``learning_rate_multiplier``, ``gradient_clip``, ``gradient_clip_norm``,
  ``gradient_noise``, ``grad_filter``, ``gradient_nan_inf_filter``, ``max_norm`` (see
  :func:`gradients.max_norm_constraint`), ``accum_grad_multiple_step`` (this parameter's own number of steps).
* ``decouple_constraints`` (False): the optimizers minimize the network's total loss only; the constraints (``L2``,
  ``darc1``, ...) are applied after each optimizer step of a parameter as ``param -= d constraints / d param``
  (gradient at the value before the step, no learning rate: observed from the reference, where
  ``decouple_constraints_factor`` (0.025) changes nothing either).
* ``debug_grad_summaries`` (False): TensorBoard summaries of each parameter (``vars/<scope>/summaries_<name>/...``),
  its gradient (``grads/...``) and ``optimize/global_grad_norm`` (see :func:`~.summaries.add_grad_summaries`)
* ``debug_add_check_numerics_ops`` (False): the step fails (``tf.errors.InvalidArgumentError``) before any update
  when the objective, a gradient or a float tensor they are computed from holds a NaN or inf
  (:func:`returnn.tf.util.numeric_checks.add_check_numerics_ops`).
* A parameter with a :class:`returnn.tf.util.custom_update.CustomUpdate` (``CustomUpdate.set_on_var``) gets no
  gradient step: its ``update_var`` op runs in each step instead (learning rate, gradient options and
  accumulation do not apply to it).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import tensorflow as tf

from returnn.errors import ConfigValueError, NoTrainableLossError
from returnn.tf.updater.summaries import add_grad_summaries
from returnn.log import log
from returnn.options.precision import PrecisionOptions
from returnn.options.updater import LEGACY_OPTIMIZER_FLAGS as LEGACY_OPTIMIZER_FLAGS
from returnn.options.updater import UpdaterOptions
from returnn.tf.updater import gradients as grad_ops
from returnn.tf.updater.optimizers import (
    Optimizer, TFV1OptimizerWrapper, create_optimizer, is_resource_variable, root_variable_scope)
from returnn.tf.util.numeric_checks import add_check_numerics_ops
from returnn.tf.util.custom_update import get_custom_update
from returnn.tf.util.gradient_checkpoint import prepare_gradient_checkpointing
from returnn.tf.util.meta_losses import MetaLossCollector

TF = tf.compat.v1

_PARAM_OPTS = ("optimizer", "learning_rate_multiplier", "gradient_clip", "gradient_clip_norm", "gradient_noise",
               "grad_filter", "gradient_nan_inf_filter", "max_norm", "accum_grad_multiple_step")


def set_param_updater_opts(var, opts: Dict[str, Any], *, layer_name: Optional[str] = None) -> None:
    """Attaches per-parameter updater options (a layer's ``updater_opts``, plus ``grad_filter``) to ``var``.

    :raises ConfigValueError: (key ``updater_opts``, naming the layer) for an unknown option
    """
    for key in opts:
        if key not in _PARAM_OPTS:
            from returnn.util.suggest import close_matches
            raise ConfigValueError(f"updater_opts of layer {layer_name!r}" if layer_name else "updater_opts",
                                   expected="options " + ", ".join(_PARAM_OPTS), got={key: opts[key]},
                                   suggestions=close_matches(key, _PARAM_OPTS))
    merged = dict(getattr(var, "RETURNN_updater_opts", None) or {})
    merged.update(opts)
    var.RETURNN_updater_opts = merged


def get_param_updater_opts(var) -> Dict[str, Any]:
    """The per-parameter options of ``var`` (empty dict if none)."""
    return dict(getattr(var, "RETURNN_updater_opts", None) or {})


def optimizer_dict_from_config(config) -> Dict[str, Any]:
    """The ``optimizer`` dict of ``config``: :meth:`UpdaterOptions.optimizer_dict` of the parsed updater keys.

    :raises ConfigValueError: for an invalid ``optimizer`` value, or none with ``behavior_version >= 2``
    """
    return UpdaterOptions.from_config(config).optimizer_dict()


class Updater:
    """Builds the training op for ``loss`` w.r.t. ``var_list`` (or the network's objective and trainable params).

    :param config: the parsed :class:`~returnn.options.updater.UpdaterOptions` (every key the updater reads:
        optimizer, gradient processing, ``accum_grad_multiple_step``, ...), or a :class:`returnn.config.Config`
        (the reference's signature), which is parsed into them once here
    :param network: a ``TFNetwork`` (``get_objective()``, ``get_trainable_params()``, ``global_train_step``), or None
    :param initial_learning_rate: initial value of the ``learning_rate`` variable
    :param loss: scalar float tensor to minimize (required without ``network``)
    :param var_list: variables to train (default without network: all trainable variables of the graph)
    :param strategy: the run's :class:`returnn.tf.distributed.strategy.DistributionStrategy` (the engine passes
        its own, see ``returnn/tf/engine/build.py``); it builds the graph side of multi-worker training (gradient
        all-reduce or parameter averaging, ``horovod_scale_lr``). Default: one process (nothing added).
    :raises ConfigValueError: an invalid updater key (see :class:`~returnn.options.updater.UpdaterOptions`)
    """

    def __init__(self, config: Union[UpdaterOptions, Any], network=None, initial_learning_rate: float = 1.0, *,
                 loss: Optional[tf.Tensor] = None, var_list: Optional[Sequence[tf.Variable]] = None, strategy=None):
        if strategy is None:
            from returnn.tf.distributed.strategy import SingleProcessStrategy

            strategy = SingleProcessStrategy()
        options = config if isinstance(config, UpdaterOptions) else UpdaterOptions.from_config(config)
        self.options = options
        self.strategy = strategy
        self.network = network
        self.initial_learning_rate = float(initial_learning_rate)
        self._loss = loss
        self._var_list: Optional[List[tf.Variable]] = list(var_list) if var_list is not None else None
        self.optimizer_dict = options.optimizer_dict()
        self.optimizer_epsilon = options.optimizer_epsilon
        self.momentum = options.momentum
        self.gradient_clip = options.gradient_clip
        self.gradient_clip_norm = options.gradient_clip_norm
        self.gradient_clip_global_norm = options.gradient_clip_global_norm
        self.gradient_noise = options.gradient_noise
        self.gradient_nan_inf_filter = options.gradient_nan_inf_filter
        self.accum_grad_multiple_step = options.accum_grad_multiple_step or 0
        self.reset_updater_vars_mod_step = options.reset_updater_vars_mod_step or 0
        self.decouple_constraints = options.decouple_constraints
        self.decouple_constraints_factor = options.decouple_constraints_factor
        self.debug_add_check_numerics_ops = options.debug_add_check_numerics_ops
        self.debug_grad_summaries = options.debug_grad_summaries
        self.dynamic_learning_rate = options.dynamic_learning_rate
        with root_variable_scope():
            self.learning_rate_var = TF.Variable(self.initial_learning_rate, name="learning_rate", trainable=False,
                                                 dtype=tf.float32, use_resource=True)
        self._learning_rate_placeholder = TF.placeholder(tf.float32, shape=(), name="learning_rate_value")
        self._learning_rate_assign = self.learning_rate_var.assign(self._learning_rate_placeholder, read_value=False)
        # the value the variable holds once initialized; set_learning_rate skips the Session.run when unchanged
        self._learning_rate_value: Optional[float] = float(self.initial_learning_rate)
        if network is not None and getattr(network, "global_train_step", None) is not None:
            self.global_train_step = network.global_train_step
        else:
            self.global_train_step = TF.train.get_or_create_global_step()
        self.learning_rate: tf.Tensor = self._make_step_learning_rate()
        self.optimizers: Dict[Any, Optimizer] = {}
        self._optimizer_display_keys: Dict[Any, str] = {}  # key in optimizers -> "default" or the key (log lines)
        self._accum_vars: Dict[str, tf.Variable] = {}
        self._loss_scale: Any = None  # tf_amp = "float16": returnn.tf.util.amp.DynamicLossScale
        self.optim_op: Optional[tf.Operation] = None
        self.grads_and_vars: List[Tuple[tf.Tensor, tf.Variable]] = []
        #: after :meth:`get_optim_op`: ``{"cost:<name>": tensor, "loss_norm_factor:<name>": tensor}`` of the meta
        #: losses (e.g. of ``synthetic_gradient`` layers) the training step minimizes too; empty without any
        self.optim_meta_losses_dict: Dict[str, tf.Tensor] = {}
        #: set by the strategy (multi-worker training only): with ``horovod_reduce_type = "grad"`` the float32
        #: scalar placeholder of this worker's weight in the gradient average (default 1.0; 0.0 for a step without
        #: own data), with ``"param"`` the op averaging the trainable parameters over the workers; else None
        self.dist_grad_weight: Optional[tf.Tensor] = None
        self.dist_average_op: Optional[tf.Operation] = None

    # ------------------------------------------------------------------ learning rate

    def _make_step_learning_rate(self) -> tf.Tensor:
        learning_rate = self.learning_rate_var.read_value() if is_resource_variable(self.learning_rate_var) \
            else tf.identity(self.learning_rate_var)
        if self.dynamic_learning_rate is None:
            return learning_rate
        with tf.name_scope("dynamic_learning_rate"):
            value = self.dynamic_learning_rate(network=self.network, global_train_step=self.global_train_step,
                                               learning_rate=learning_rate)
            return tf.cast(tf.convert_to_tensor(value), tf.float32)

    def set_learning_rate(self, value: float, session: TF.Session) -> None:
        """Sets the ``learning_rate`` variable (the per-epoch rate from the learning-rate control; times the number
        of workers with ``horovod_scale_lr``, by the strategy)."""
        value = self.strategy.scale_learning_rate(float(value))
        if value == self._learning_rate_value:
            return
        session.run(self._learning_rate_assign, feed_dict={self._learning_rate_placeholder: float(value)})
        self._learning_rate_value = value

    def get_current_step_learning_rate(self) -> tf.Tensor:
        """Scalar float32 tensor: the learning rate of the current step (after ``dynamic_learning_rate``)."""
        return self.learning_rate

    # ------------------------------------------------------------------ variables

    def set_trainable_vars(self, trainable_vars: Sequence[tf.Variable]) -> None:
        """Changes the trained variables; the training op is rebuilt on the next :meth:`get_optim_op` (optimizer
        state of variables trained before is kept)."""
        new = list(trainable_vars)
        if self._var_list is not None and [v.name for v in new] == [v.name for v in self._var_list]:
            return
        self._var_list = new
        self.optim_op = None

    def _get_var_list(self) -> List[tf.Variable]:
        if self._var_list is None:
            if self.network is not None:
                self._var_list = list(self.network.get_trainable_params())
            else:
                self._var_list = list(TF.trainable_variables())
        return self._var_list

    def get_optimizer_vars(self) -> List[tf.Variable]:
        """All variables of the optimizers (slots, ``beta1_power``...) and gradient accumulators."""
        result = []
        for optimizer in self.optimizers.values():
            result += optimizer.variables()
        return result + list(self._accum_vars.values()) + (self._loss_scale.variables if self._loss_scale else [])

    def _make_loss_scale(self):
        """:return: the dynamic loss scale of ``tf_amp = "float16"`` (:mod:`returnn.tf.util.amp`), else None"""
        from returnn.tf.util.amp import AmpPolicy, DynamicLossScale, policy_of_network

        if self.network is not None:
            policy = policy_of_network(self.network)
        else:
            policy = AmpPolicy.from_options(PrecisionOptions(tf_amp=self.options.tf_amp, device=self.options.device))
        if not policy.loss_scaling:
            return None
        if self.accum_grad_multiple_step > 1:
            _reject_loss_scale_with_accumulation(policy.dtype)
        if self._loss_scale is None:
            with root_variable_scope():
                self._loss_scale = DynamicLossScale()
        return self._loss_scale

    def get_slot_variables(self) -> List[tf.Variable]:
        """Alias of :meth:`get_optimizer_vars`."""
        return self.get_optimizer_vars()

    def init_optimizer_vars(self, session: TF.Session) -> None:
        """Initializes the optimizer state (builds the training op if needed); the learning-rate variable and the
        global train step only when they are not initialized yet (a rate set before with :meth:`set_learning_rate`,
        a step loaded from a checkpoint are kept)."""
        self.get_optim_op()
        variables = self.get_optimizer_vars()
        for var in (self.learning_rate_var, self.global_train_step):
            if not session.run(TF.is_variable_initialized(var)):
                variables.append(var)
        session.run(TF.variables_initializer(variables))
        self._learning_rate_value = float(session.run(self.learning_rate_var))

    # ------------------------------------------------------------------ optimizers

    def _optimizer_dict_for(self, var) -> Dict[str, Any]:
        """:return: the optimizer dict of ``var``: its ``updater_opts`` optimizer, else the config's, with its
            ``learning_rate_multiplier``"""
        opts = get_param_updater_opts(var)
        optimizer_dict = opts.get("optimizer", self.optimizer_dict)
        if isinstance(optimizer_dict, str):
            optimizer_dict = {"class": optimizer_dict}
        multiplier = opts.get("learning_rate_multiplier", None)
        if multiplier is not None:
            optimizer_dict = dict(optimizer_dict, learning_rate_multiplier=multiplier)
        return optimizer_dict

    def _optimizer_of_dict(self, optimizer_dict: Dict[str, Any], *, config_key: str) -> Tuple[Any, Optimizer]:
        """:return: (key, optimizer) of ``optimizer_dict``, created on first use (one per distinct dict)"""
        key = repr(sorted(optimizer_dict.items()))
        if key not in self.optimizers:
            is_default = optimizer_dict is self.optimizer_dict
            name = "optimize" if not self.optimizers else f"optimize_{len(self.optimizers)}"
            optimizer, options = create_optimizer(
                optimizer_dict, self.learning_rate, default_epsilon=self.optimizer_epsilon,
                default_momentum=self.momentum, name=name, config_key="optimizer" if is_default else config_key)
            shown = dict(options, learning_rate=self.learning_rate_var)
            cls = optimizer.optimizer.__class__ if isinstance(optimizer, TFV1OptimizerWrapper) else type(optimizer)
            print(f"Create optimizer {cls} with options {shown!r}.", file=log.v2)
            self.optimizers[key] = optimizer
            self._optimizer_display_keys[key] = "default" if is_default else key
        return key, self.optimizers[key]

    def _optimizer_for(self, var) -> Tuple[Any, Optimizer]:
        return self._optimizer_of_dict(self._optimizer_dict_for(var), config_key=f"updater_opts of {var.op.name}")

    def get_default_optimizer(self) -> Optimizer:
        """The optimizer of config ``optimizer`` (that of every param without an ``optimizer`` in its
        ``updater_opts``; e.g. for ``{"class": "adam"}`` an :class:`~returnn.tf.updater.optimizers.AdamOptimizer`,
        which is a ``tf.compat.v1.train.AdamOptimizer``), created here when no param uses it yet.

        :raises ConfigValueError: an invalid ``optimizer``
        """
        return self._optimizer_of_dict(self.optimizer_dict, config_key="optimizer")[1]

    def get_slot(self, var, name: str) -> Optional[tf.Variable]:
        """The optimizer state ``name`` of param ``var`` (e.g. ``"m"``/``"v"`` of Adam, see the optimizer's
        ``get_slot_names()``), as ``tf.compat.v1.train.Optimizer.get_slot``.

        :return: the variable, or None: no such slot, or the training op (:meth:`get_optim_op`) was not built yet
        """
        key = repr(sorted(self._optimizer_dict_for(var).items()))
        optimizer = self.optimizers.get(key)
        return optimizer.get_slot(var, name) if optimizer is not None else None

    def _process_gradients(self, grads_and_vars):
        processed = []
        for grad, var in grads_and_vars:
            opts = get_param_updater_opts(var)
            if opts.get("gradient_nan_inf_filter", self.gradient_nan_inf_filter):
                grad = grad_ops.nan_inf_filter(grad)
            if opts.get("grad_filter"):
                grad = grad_ops.grad_filter(grad, opts["grad_filter"])
            clip_norm = opts.get("gradient_clip_norm", self.gradient_clip_norm)
            if clip_norm:
                grad = grad_ops.clip_by_norm(grad, clip_norm)
            clip = opts.get("gradient_clip", self.gradient_clip)
            if clip:
                grad = grad_ops.clip_by_value(grad, clip)
            processed.append((grad, var))
        if self.gradient_clip_global_norm and processed:
            clipped = grad_ops.clip_by_global_norm([g for g, _ in processed], self.gradient_clip_global_norm)
            processed = [(g, v) for g, (_, v) in zip(clipped, processed)]
        result = []
        for grad, var in processed:
            noise = get_param_updater_opts(var).get("gradient_noise", self.gradient_noise)
            if noise:
                grad = grad_ops.add_noise(grad, noise)
            result.append((grad, var))
        return result

    def _apply(self, grads_and_vars, constraint_grads: Dict[str, tf.Tensor]) -> tf.Operation:
        """The optimizers' step for ``grads_and_vars``, then the decoupled constraint step of these vars
        (``var -= d constraints / d var``, the gradient taken before the step), then ``max_norm``."""
        own_constraint_grads = [(constraint_grads[v.op.name], v) for _, v in grads_and_vars
                                if v.op.name in constraint_grads]
        with tf.control_dependencies([g for g, _ in own_constraint_grads]):  # read before the step changes the var
            groups: Dict[Any, List] = {}
            for grad, var in grads_and_vars:
                key, _ = self._optimizer_for(var)
                groups.setdefault(key, []).append((grad, var))
            ops = [self.optimizers[key].apply_gradients(gvs) for key, gvs in groups.items()]
        with tf.control_dependencies(ops):
            decoupled = [var.assign_sub(grad, read_value=False) for grad, var in own_constraint_grads]
        constraints = []
        with tf.control_dependencies(ops + decoupled):
            for _, var in grads_and_vars:
                max_norm = get_param_updater_opts(var).get("max_norm")
                if max_norm:
                    constraints.append(grad_ops.max_norm_constraint(var, max_norm))
        return tf.group(*ops, *decoupled, *constraints)

    def _accum_steps(self, var) -> int:
        """:return: ``accum_grad_multiple_step`` of ``var`` (its ``updater_opts``, else the config's)"""
        return int(get_param_updater_opts(var).get("accum_grad_multiple_step", self.accum_grad_multiple_step) or 0)

    def _accum_var(self, var) -> tf.Variable:
        name = var.op.name
        if name not in self._accum_vars:
            with root_variable_scope():
                self._accum_vars[name] = TF.Variable(
                    tf.zeros(var.shape, var.dtype.base_dtype), trainable=False, name=f"optimize/{name}/accum_grad",
                    use_resource=is_resource_variable(var))
        return self._accum_vars[name]

    def _loss_and_constraints(self) -> Tuple[tf.Tensor, Optional[tf.Tensor]]:
        """:return: what the optimizers minimize and, with ``decouple_constraints``, the constraints (L2, ...)
            applied separately (else None: they are part of the network's objective)"""
        if self._loss is not None:
            return self._loss, None
        if self.network is None:
            raise ConfigValueError("Updater", expected="a network or loss=", got=None)
        if self.decouple_constraints:
            return self.network.get_total_loss(), self.network.get_total_constraints()
        return self.network.get_objective(), None

    def get_optim_op(self) -> tf.Operation:
        """The op of one training step: applies the optimizer (or only accumulates, see
        ``accum_grad_multiple_step``), runs the custom updates (:class:`returnn.tf.util.custom_update.CustomUpdate`)
        of the vars that have one instead of their gradient step, and increments the global step. Built once (per
        trainable var list).

        :raises NoTrainableLossError: if no trainable variable gets a gradient or a custom update
        """
        if self.optim_op is not None:
            return self.optim_op
        var_list = self._get_var_list()
        custom_updates = [(v, get_custom_update(v)) for v in var_list if get_custom_update(v) is not None]
        var_list = [v for v in var_list if get_custom_update(v) is None]
        loss, constraints = self._loss_and_constraints()
        loss_scale = self._make_loss_scale()
        with tf.name_scope("optimize"):
            if loss_scale is not None:
                loss = loss_scale.scale_loss(loss)
            grads = self._gradients_with_meta_losses(loss, var_list) if var_list else []
            grads_and_vars = [(grad_ops.densify(g), v) for g, v in zip(grads, var_list) if g is not None]
            missing = [v.op.name for g, v in zip(grads, var_list) if g is None]
            if missing:
                print(f"Note: no gradient for variables {missing}.", file=log.v4)
            if not grads_and_vars and not custom_updates:
                raise NoTrainableLossError([v.op.name for v in var_list])
            if self.debug_grad_summaries and grads_and_vars:
                add_grad_summaries(grads_and_vars)
            if self.debug_add_check_numerics_ops and grads_and_vars:
                check = add_check_numerics_ops([loss] + [g for g, _ in grads_and_vars])
                with tf.control_dependencies([check]):
                    grads_and_vars = [(tf.identity(g), v) for g, v in grads_and_vars]
            constraint_grads = self._constraint_grads(constraints, [v for _, v in grads_and_vars])
            grads_and_vars, self.dist_grad_weight, self.dist_average_op = self.strategy.sync_gradients(
                grads_and_vars, var_list)
            if loss_scale is not None:
                grads_and_vars, grads_finite = loss_scale.unscale(grads_and_vars)
            grads_and_vars = self._process_gradients(grads_and_vars)
            self.grads_and_vars = grads_and_vars
            for _, var in grads_and_vars:
                self._optimizer_for(var)
            for optimizer in self.optimizers.values():
                optimizer.create_slots([v for _, v in grads_and_vars])
            by_steps: Dict[int, List] = {}
            for grad, var in grads_and_vars:
                by_steps.setdefault(max(self._accum_steps(var), 1), []).append((grad, var))
            apply_ops = []
            for num_steps, gvs in sorted(by_steps.items()):
                if num_steps > 1:
                    apply_ops.append(self._accumulating_apply(gvs, num_steps, constraint_grads, loss_scale))
                elif loss_scale is not None:  # tf_amp float16: skip the update of a step with non-finite gradients
                    apply_ops.append(loss_scale.apply_if_finite(
                        lambda gvs=gvs: self._apply(gvs, constraint_grads), grads_finite))
                else:
                    apply_ops.append(self._apply(gvs, constraint_grads))
            apply_ops += [_as_op(update.update_var(var)) for var, update in custom_updates]
            apply_op = tf.group(*apply_ops)
            if self.reset_updater_vars_mod_step > 0:
                apply_op = self._with_periodic_reset(apply_op, self.reset_updater_vars_mod_step)
            # the step counts up after the update and after every read of it in this graph (a step-dependent
            # schedule, the RF run context's step, an error output of it): they see the step's own number
            with tf.control_dependencies([apply_op] + _global_step_reads(self.global_train_step)):
                increment = self.global_train_step.assign_add(
                    tf.constant(1, self.global_train_step.dtype.base_dtype), read_value=False)
            # e.g. the moving statistics of batch_norm layers, updated once per training step
            update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
            self.optim_op = tf.group(apply_op, increment, *update_ops, name="optim_and_step_incr")
        for key, optimizer in self.optimizers.items():
            print(f"Initialize optimizer ({self._optimizer_display_keys[key]}) with slots {optimizer.get_slot_names()}.",
                  file=log.v3)
            if optimizer.non_slot_variables:
                print(f"These additional variable were created by the optimizer: {optimizer.non_slot_variables}.",
                      file=log.v3)
        return self.optim_op

    def _gradients_with_meta_losses(self, loss: tf.Tensor, var_list: List[tf.Variable]) -> List[Any]:
        """:return: the gradients of ``loss`` w.r.t. ``var_list`` (with the gradient checkpoints of the graph
        prepared, :mod:`returnn.tf.util.gradient_checkpoint`), plus those of the meta losses that layers
        registered while they were built (:mod:`returnn.tf.util.meta_losses`), each times its scale; sets
        :attr:`optim_meta_losses_dict`"""
        prepare_gradient_checkpointing()  # e.g. param_dropout: recompute the dropped-out params (as the reference)
        with MetaLossCollector() as meta:
            grads = TF.gradients(loss, var_list, colocate_gradients_with_ops=True)
        meta_total = meta.total()
        if meta_total is None:
            return grads
        self.optim_meta_losses_dict = meta.as_fetches_dict()
        meta_grads = TF.gradients(meta_total, var_list, colocate_gradients_with_ops=True)
        return [g if mg is None else grad_ops.densify(mg) if g is None else grad_ops.densify(g) + grad_ops.densify(mg)
                for g, mg in zip(grads, meta_grads)]

    def _constraint_grads(self, constraints: Optional[tf.Tensor], var_list: List[tf.Variable]
                          ) -> Dict[str, tf.Tensor]:
        """:return: var name -> the gradient of the decoupled ``constraints`` (dense), for the vars it depends on"""
        if constraints is None or not var_list:
            return {}
        constraints = tf.convert_to_tensor(constraints, tf.float32)
        with tf.name_scope("decoupled_constraints"):
            grads = TF.gradients(constraints, var_list)
        return {v.op.name: grad_ops.densify(g) for g, v in zip(grads, var_list) if g is not None}

    def _with_periodic_reset(self, apply_op: tf.Operation, num_steps: int) -> tf.Operation:
        """``reset_updater_vars_mod_step``: after the update of every ``num_steps``-th step
        (``(global_train_step + 1) % num_steps == 0``), all optimizer state is set back to its initial value."""
        state = self.get_optimizer_vars()
        if not state:
            return apply_op
        with tf.control_dependencies([apply_op]):
            step = tf.cast(self.global_train_step, tf.int64) + 1
            reset = tf.cond(tf.equal(tf.math.floormod(step, num_steps), 0),
                            lambda: tf.group(*[v.assign(v.initial_value, read_value=False) for v in state]),
                            lambda: tf.no_op())
        return tf.group(apply_op, reset)

    def _accumulating_apply(self, grads_and_vars, num_steps: int, constraint_grads: Dict[str, tf.Tensor],
                            loss_scale: Any = None) -> tf.Operation:
        """``accum_grad_multiple_step = num_steps`` for ``grads_and_vars``: the gradients are summed in accumulator
        variables; on every ``num_steps``-th step (``global_train_step % num_steps == num_steps - 1``) the sum is
        applied (with the decoupled constraint step) and the accumulators are reset."""
        if loss_scale is not None:
            _reject_loss_scale_with_accumulation("float16")
        for _, var in grads_and_vars:
            if isinstance(self._optimizer_for(var)[1], TFV1OptimizerWrapper):
                raise ConfigValueError("accum_grad_multiple_step", expected="an optimizer of "
                                       "returnn.tf.updater.optimizers (adam, sgd, ...) to accumulate gradients",
                                       got=self.optimizer_dict)
        accums = [self._accum_var(v) for _, v in grads_and_vars]
        step = tf.cast(self.global_train_step, tf.int64)
        is_apply_step = tf.equal(tf.math.floormod(step, num_steps), num_steps - 1)

        def apply_branch():
            total = [(a.read_value() + g, v) for a, (g, v) in zip(accums, grads_and_vars)]
            apply_op = self._apply(total, constraint_grads)
            with tf.control_dependencies([apply_op]):
                resets = [a.assign(tf.zeros_like(a), read_value=False) for a in accums]
            return tf.group(apply_op, *resets)

        def accumulate_branch():
            return tf.group(*[a.assign_add(g, read_value=False) for a, (g, _) in zip(accums, grads_and_vars)])

        return tf.cond(is_apply_step, apply_branch, accumulate_branch)


def _reject_loss_scale_with_accumulation(tf_amp: Optional[str]) -> None:
    """:raises ConfigValueError: always: float16 loss scaling (which skips whole steps) cannot accumulate gradients"""
    raise ConfigValueError("tf_amp", expected="'bfloat16' or no tf_amp with accum_grad_multiple_step > 1 "
                                              "(float16 loss scaling skips whole steps)", got=tf_amp)


def _global_step_reads(global_train_step: Any) -> List[Any]:
    """:return: the ops reading the value of the resource variable ``global_train_step`` directly (outside any
        loop or cond, whose reads go through their Enter/Switch ops), as built so far; empty for a ref variable"""
    handle = getattr(global_train_step, "handle", None)
    if handle is None or not isinstance(handle, tf.Tensor):
        return []
    return [op for op in handle.consumers() if op.type == "ReadVariableOp"]


def _as_op(update: Any) -> tf.Operation:
    """:return: the op of a custom update's result (an op, a tensor or the variable ``assign_add`` returns)"""
    if isinstance(update, tf.Operation):
        return update
    op = getattr(update, "op", None)
    if isinstance(op, tf.Operation):
        return op
    return tf.convert_to_tensor(update).op
