"""Optimizers: small update rules on fused TF training ops (``ResourceApplyAdam``, ``ResourceApplyMomentum``, ...).

Each optimizer owns ordinary ``tf.Variable`` s for its state (slots such as Adam's ``m``/``v`` per parameter and
non-slot variables such as ``beta1_power``), so they are saved with a ``tf.compat.v1.train.Saver`` checkpoint and a
resumed run continues identically. Slot variables are created before any ``tf.cond`` (needed for
``accum_grad_multiple_step``) and are named ``optimize/<param>/<slot>``.

Names (``optimizer = {"class": ...}``, case-insensitive, an ``Optimizer`` suffix is ignored) and their options,
with the defaults of the TF v1 optimizers the reference uses; ``epsilon`` defaults to config ``optimizer_epsilon``
(1e-16) where the optimizer has one:

=========== ==================================================================================================
``sgd``      ``GradientDescent`` (alias ``gradientdescent``)
``momentum`` ``momentum`` (required; default config ``momentum``), ``use_nesterov=False``
``adam``     ``beta1=0.9``, ``beta2=0.999``, ``epsilon``
``nadam``    Adam with Nesterov momentum (as ``tf.contrib.opt.NadamOptimizer``), same options
``adamw``    Adam with decoupled weight decay ``weight_decay=0.0`` (``param -= lr * weight_decay * param`` before
             the Adam step, as Keras ``AdamW``), same options
``adadelta`` ``rho=0.95``, ``epsilon``
``adagrad``  ``initial_accumulator_value=0.1``
``rmsprop``  ``decay=0.9``, ``momentum=0.0``, ``epsilon``, ``centered=False``
=========== ==================================================================================================

``NormalizedSGD`` (also given as the class itself, ``{"class": NormalizedSGD}``) is gradient descent on each
parameter's L2-normalized gradient. Other ``tf.compat.v1.train`` optimizers (``ftrl``, ``proximaladagrad``, ...)
are accepted as the reference does and wrapped (see :class:`TFV1OptimizerWrapper`).
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Tuple

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.util.registry import Registry
from returnn.util.suggest import close_matches

TF = tf.compat.v1


def _normalize_name(name: str) -> str:
    name = name.lower()
    if name.endswith("optimizer") and name != "optimizer":
        name = name[: -len("optimizer")]
    return name.replace("_", "")


OPTIMIZERS: Registry[type] = Registry("optimizer class", normalize=_normalize_name)


def is_resource_variable(var) -> bool:
    """Whether ``var`` is a resource variable (TF2 default) rather than a legacy ref variable."""
    handle = getattr(var, "handle", None)
    return handle is not None and handle.dtype == tf.resource


def root_variable_scope():
    """Context: ``tf.init_scope()`` at the graph's top-level name scope, so state variables get stable names
    (``optimize/<param>/<slot>``) and are created outside any ``tf.cond``/``while_loop``."""
    import contextlib

    stack = contextlib.ExitStack()
    stack.enter_context(tf.init_scope())
    stack.enter_context(TF.get_default_graph().name_scope(None))
    return stack


def _apply(op_base: str, var, slots: List[Any], **kwargs) -> tf.Operation:
    """Calls ``tf.raw_ops.ResourceApply<op_base>`` (or ``Apply<op_base>`` for ref variables)."""
    if is_resource_variable(var):
        return getattr(tf.raw_ops, "ResourceApply" + op_base)(
            var=var.handle, **{name: slot.handle for name, slot in slots}, **kwargs)
    return getattr(tf.raw_ops, "Apply" + op_base)(var=var, **dict(slots), **kwargs).op


class Optimizer:
    """Base of our optimizers.

    The optimizers with a ``tf.compat.v1.train`` counterpart (``AdamOptimizer``, ``GradientDescentOptimizer``,
    ``MomentumOptimizer``, ``AdadeltaOptimizer``, ``AdagradOptimizer``, ``RMSPropOptimizer``) are also subclasses of
    it, as the reference's updater creates these TF classes: ``isinstance`` checks, ``get_slot(var, name)``,
    ``get_slot_names()``, ``variables()``, ``minimize()``/``compute_gradients()``/``apply_gradients()`` and
    ``get_name()`` behave as theirs (the update itself is ours, the same fused TF training op).

    :param learning_rate: scalar float32 tensor or Python float (the updater passes its learning-rate variable,
        possibly scaled by ``learning_rate_multiplier``)
    :param name: variable name prefix of the state (``optimize``)
    """

    slot_names: Tuple[str, ...] = ()

    def __init__(self, learning_rate, name: str = "optimize"):
        if isinstance(self, TF.train.Optimizer):  # the TF base's own state (name, its unused slot dicts)
            TF.train.Optimizer.__init__(self, use_locking=False, name=name)
        self.learning_rate = learning_rate
        self.name = name
        self.slots: Dict[Tuple[str, str], tf.Variable] = {}  # (param name, slot name) -> variable
        self.non_slot_variables: List[tf.Variable] = []

    def get_slot_names(self) -> List[str]:
        """Slot names, as the reference logs them (``['m', 'v']`` for Adam)."""
        return sorted(self.slot_names)

    def _slot_var_name(self, var, slot: str) -> str:
        return f"{self.name}/{var.op.name}/{slot}"

    def create_slots(self, var_list) -> None:
        """Creates the state variables of ``var_list`` (zeros unless the optimizer says otherwise); idempotent."""
        for var in var_list:
            for slot in self.slot_names:
                key = (var.op.name, slot)
                if key in self.slots:
                    continue
                with root_variable_scope():
                    initial = tf.fill(var.shape, tf.constant(self._slot_initial_value(slot), var.dtype.base_dtype))
                    self.slots[key] = TF.Variable(
                        initial, trainable=False, name=self._slot_var_name(var, slot),
                        use_resource=is_resource_variable(var), dtype=var.dtype.base_dtype)
        self._create_non_slot_variables(var_list)

    def _slot_initial_value(self, slot: str) -> float:
        return 0.0

    def _create_non_slot_variables(self, var_list) -> None:
        pass

    def get_slot(self, var, name: str) -> Optional[tf.Variable]:
        """The slot ``name`` of parameter ``var`` (e.g. Adam's ``"m"``), None if there is none (as
        ``tf.compat.v1.train.Optimizer.get_slot``)."""
        return self.slots.get((var.op.name, name))

    def variables(self) -> List[tf.Variable]:
        """All state variables (slots and non-slot), in creation order."""
        return list(self.slots.values()) + list(self.non_slot_variables)

    def _lr_for(self, var) -> tf.Tensor:
        return tf.cast(self.learning_rate, var.dtype.base_dtype)

    def apply_gradients(self, grads_and_vars, global_step=None, name: Optional[str] = None) -> tf.Operation:
        """One update of each var with its (dense) gradient (the slots are created when missing).

        :param global_step: a variable incremented by one after the update (``tf.compat.v1.train.Optimizer``'s
            signature); the updater counts its own step and passes None
        :param name: the name of the returned op (default ``<name>_apply``)
        """
        grads_and_vars = [(g, v) for g, v in grads_and_vars if g is not None]
        self.create_slots([v for _, v in grads_and_vars])
        ops = [self._apply_dense(tf.convert_to_tensor(g), v) for g, v in grads_and_vars]
        with tf.control_dependencies(ops):
            finish = self._finish()
        if global_step is not None:
            with tf.control_dependencies([finish]):
                ops.append(global_step.assign_add(tf.constant(1, global_step.dtype.base_dtype), read_value=False))
        return tf.group(*ops, finish, name=name or f"{self.name}_apply")

    def _apply_dense(self, grad: tf.Tensor, var) -> tf.Operation:
        raise NotImplementedError

    def _finish(self) -> tf.Operation:
        return tf.no_op()


class GradientDescentOptimizer(Optimizer, TF.train.GradientDescentOptimizer):
    """``param -= lr * grad``."""

    def _apply_dense(self, grad, var):
        return _apply("GradientDescent", var, [], alpha=self._lr_for(var), delta=grad)


class NormalizedSGD(Optimizer):
    """Gradient descent on the L2-normalized gradient of each parameter: ``param -= lr * g / max(||g||_2, 1e-6)``
    (``tf.nn.l2_normalize`` over all axes of the parameter), as the reference's ``NormalizedSGD``."""

    def _apply_dense(self, grad, var):
        return _apply("GradientDescent", var, [], alpha=self._lr_for(var), delta=tf.nn.l2_normalize(grad, axis=None))


class MomentumOptimizer(Optimizer, TF.train.MomentumOptimizer):
    """``accum = momentum * accum + grad; param -= lr * accum`` (Nesterov variant with ``use_nesterov``)."""

    slot_names = ("momentum",)

    def __init__(self, learning_rate, momentum: float, use_nesterov: bool = False, name: str = "optimize"):
        super().__init__(learning_rate, name=name)
        self.momentum = momentum
        self.use_nesterov = use_nesterov

    def _apply_dense(self, grad, var):
        return _apply("Momentum", var, [("accum", self.get_slot(var, "momentum"))], lr=self._lr_for(var), grad=grad,
                      momentum=tf.cast(self.momentum, var.dtype.base_dtype), use_nesterov=self.use_nesterov)


class AdamOptimizer(Optimizer, TF.train.AdamOptimizer):
    """Adam as ``tf.compat.v1.train.AdamOptimizer``: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2) g^2``, ``param -= lr_t m / (sqrt(v) + epsilon)``.
    State: slots ``m``, ``v`` and the non-slot ``beta1_power``, ``beta2_power``."""

    slot_names = ("m", "v")
    use_nesterov = False

    def __init__(self, learning_rate, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
                 name: str = "optimize"):
        super().__init__(learning_rate, name=name)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.beta1_power: Optional[tf.Variable] = None
        self.beta2_power: Optional[tf.Variable] = None

    def _create_non_slot_variables(self, var_list) -> None:
        if self.beta1_power is None:
            with root_variable_scope():
                self.beta1_power = TF.Variable(self.beta1, trainable=False, name=f"{self.name}/beta1_power",
                                               dtype=tf.float32, use_resource=True)
                self.beta2_power = TF.Variable(self.beta2, trainable=False, name=f"{self.name}/beta2_power",
                                               dtype=tf.float32, use_resource=True)
            self.non_slot_variables += [self.beta1_power, self.beta2_power]

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return _apply("Adam", var, [("m", self.get_slot(var, "m")), ("v", self.get_slot(var, "v"))],
                      beta1_power=tf.cast(self.beta1_power, dtype), beta2_power=tf.cast(self.beta2_power, dtype),
                      lr=self._lr_for(var), beta1=tf.cast(self.beta1, dtype), beta2=tf.cast(self.beta2, dtype),
                      epsilon=tf.cast(self.epsilon, dtype), grad=grad, use_nesterov=self.use_nesterov)

    def _finish(self):
        return tf.group(self.beta1_power.assign(self.beta1_power * self.beta1, read_value=False),
                        self.beta2_power.assign(self.beta2_power * self.beta2, read_value=False))


class NadamOptimizer(AdamOptimizer):
    """Adam with Nesterov momentum (``use_nesterov=True`` of the fused Adam op, as ``tf.contrib.opt`` Nadam):
    ``param -= lr_t (beta1 m + (1 - beta1) g) / (sqrt(v) + epsilon)``."""

    use_nesterov = True


class AdamWOptimizer(AdamOptimizer):
    """Adam with decoupled weight decay: ``param -= lr * weight_decay * param``, then the Adam step (the gradient
    is computed before the decay)."""

    def __init__(self, learning_rate, weight_decay: float = 0.0, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, name: str = "optimize"):
        super().__init__(learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon, name=name)
        self.weight_decay = weight_decay

    def _apply_dense(self, grad, var):
        if not self.weight_decay:
            return super()._apply_dense(grad, var)
        decay = var.assign_sub(self._lr_for(var) * tf.cast(self.weight_decay, var.dtype.base_dtype) * var.read_value(),
                               read_value=False)
        with tf.control_dependencies([decay]):
            return super()._apply_dense(grad, var)


class AdadeltaOptimizer(Optimizer, TF.train.AdadeltaOptimizer):
    """Adadelta as ``tf.compat.v1.train.AdadeltaOptimizer`` (slots ``accum``, ``accum_update``)."""

    slot_names = ("accum", "accum_update")

    def __init__(self, learning_rate, rho: float = 0.95, epsilon: float = 1e-8, name: str = "optimize"):
        super().__init__(learning_rate, name=name)
        self.rho, self.epsilon = rho, epsilon

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return _apply("Adadelta", var, [("accum", self.get_slot(var, "accum")),
                                        ("accum_update", self.get_slot(var, "accum_update"))],
                      lr=self._lr_for(var), rho=tf.cast(self.rho, dtype), epsilon=tf.cast(self.epsilon, dtype), grad=grad)


class AdagradOptimizer(Optimizer, TF.train.AdagradOptimizer):
    """Adagrad as ``tf.compat.v1.train.AdagradOptimizer``: ``accum += g^2; param -= lr g / sqrt(accum)``."""

    slot_names = ("accumulator",)

    def __init__(self, learning_rate, initial_accumulator_value: float = 0.1, name: str = "optimize"):
        super().__init__(learning_rate, name=name)
        self.initial_accumulator_value = initial_accumulator_value

    def _slot_initial_value(self, slot):
        return self.initial_accumulator_value

    def _apply_dense(self, grad, var):
        return _apply("Adagrad", var, [("accum", self.get_slot(var, "accumulator"))], lr=self._lr_for(var), grad=grad)


class RMSPropOptimizer(Optimizer, TF.train.RMSPropOptimizer):
    """RMSProp as ``tf.compat.v1.train.RMSPropOptimizer`` (slots ``rms`` (initialized to 1), ``momentum``, and
    ``mg`` when ``centered``)."""

    def __init__(self, learning_rate, decay: float = 0.9, momentum: float = 0.0, epsilon: float = 1e-10,
                 centered: bool = False, name: str = "optimize"):
        super().__init__(learning_rate, name=name)
        self.decay, self.momentum, self.epsilon, self.centered = decay, momentum, epsilon, centered
        self.slot_names = ("momentum", "rms") + (("mg",) if centered else ())

    def _slot_initial_value(self, slot):
        return 1.0 if slot == "rms" else 0.0

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        kwargs = dict(lr=self._lr_for(var), rho=tf.cast(self.decay, dtype), momentum=tf.cast(self.momentum, dtype),
                      epsilon=tf.cast(self.epsilon, dtype), grad=grad)
        slots = [("ms", self.get_slot(var, "rms")), ("mom", self.get_slot(var, "momentum"))]
        if self.centered:
            return _apply("CenteredRMSProp", var, [("mg", self.get_slot(var, "mg"))] + slots, **kwargs)
        return _apply("RMSProp", var, slots, **kwargs)


class TFV1OptimizerWrapper(Optimizer):
    """Any other ``tf.compat.v1.train.*Optimizer``; its slots are created by TF on the first
    :meth:`apply_gradients` (so it cannot be combined with ``accum_grad_multiple_step``)."""

    def __init__(self, optimizer_class: type, learning_rate, name: str = "optimize", **kwargs):
        super().__init__(learning_rate, name=name)
        self.optimizer = optimizer_class(learning_rate=learning_rate, **kwargs)

    def get_slot_names(self):
        return sorted(self.optimizer.get_slot_names())

    def create_slots(self, var_list):
        pass

    def variables(self):
        return list(self.optimizer.variables())

    def apply_gradients(self, grads_and_vars):
        return self.optimizer.apply_gradients([(g, v) for g, v in grads_and_vars if g is not None])


for _cls, _names in [(GradientDescentOptimizer, ("sgd", "GradientDescent")), (MomentumOptimizer, ("momentum",)),
                     (AdamOptimizer, ("adam",)), (NadamOptimizer, ("nadam",)),
                     (NormalizedSGD, ("NormalizedSGD",)), (AdamWOptimizer, ("adamw",)),
                     (AdadeltaOptimizer, ("adadelta",)), (AdagradOptimizer, ("adagrad",)),
                     (RMSPropOptimizer, ("rmsprop",))]:
    OPTIMIZERS.register(_names[0], _cls, aliases=_names[1:])
for _name in ("Ftrl", "ProximalAdagrad", "ProximalGradientDescent", "AdagradDA"):
    OPTIMIZERS.register(_name, getattr(TF.train, _name + "Optimizer"))


def get_optimizer_class(class_name: str) -> type:
    """The optimizer class for ``class_name`` (``"adam"``, ``"AdamOptimizer"``, ``"nadam"``, ...).

    :raises returnn.errors.UnknownNameError: with did-you-mean suggestions
    """
    return OPTIMIZERS.get(class_name, context="config key 'optimizer'")


def register_optimizer_class(cls: type, name: Optional[str] = None) -> None:
    """Registers a user optimizer class (an :class:`Optimizer` subclass or a ``tf.compat.v1.train.Optimizer``)."""
    OPTIMIZERS.register(name or cls.__name__, cls, overwrite=True)


def _accepted_args(cls: type) -> List[str]:
    params = inspect.signature(cls.__init__).parameters
    return [n for n in params if n not in ("self", "learning_rate", "name", "use_locking", "kwargs")]


def create_optimizer(opts: Dict[str, Any], learning_rate, *, default_epsilon: float = 1e-16,
                     default_momentum: Optional[float] = None, name: str = "optimize",
                     config_key: str = "optimizer") -> Tuple[Optimizer, Dict[str, Any]]:
    """Builds the optimizer for an ``optimizer`` dict (``{"class": "adam", "beta1": 0.8, ...}``).

    ``epsilon`` defaults to ``default_epsilon`` (config ``optimizer_epsilon``) where the class has one, and
    ``momentum`` of ``momentum`` to ``default_momentum`` (config ``momentum``). ``learning_rate_multiplier`` scales
    the learning rate.

    :return: the optimizer and the effective options (for the log line)
    :raises ConfigValueError: naming ``config_key`` for a missing ``class`` or an unknown/invalid option
    """
    if not isinstance(opts, dict) or "class" not in opts:
        raise ConfigValueError(config_key, expected='a dict with "class", e.g. {"class": "adam"}', got=opts)
    opts = dict(opts)
    cls_spec = opts.pop("class")
    cls = cls_spec if isinstance(cls_spec, type) else get_optimizer_class(cls_spec)
    multiplier = opts.pop("learning_rate_multiplier", None)
    if multiplier is not None:
        learning_rate = learning_rate * multiplier
    is_ours = issubclass(cls, Optimizer)
    accepted = _accepted_args(cls)
    for key in opts:
        if key not in accepted:
            raise ConfigValueError(config_key, expected=f"options of {cls.__name__}: {', '.join(accepted) or 'none'}",
                                   got={key: opts[key]}, suggestions=close_matches(key, accepted))
    if "epsilon" in accepted and "epsilon" not in opts:
        opts["epsilon"] = default_epsilon
    if "momentum" in accepted and "momentum" not in opts and cls is MomentumOptimizer:
        if default_momentum is None:
            raise ConfigValueError(config_key, expected='"momentum" for {"class": "momentum"}', got=opts)
        opts["momentum"] = default_momentum
    try:
        if is_ours:
            optimizer = cls(learning_rate, name=name, **opts)
        else:
            optimizer = TFV1OptimizerWrapper(cls, learning_rate, name=name, **opts)
    except (TypeError, ValueError) as exc:
        raise ConfigValueError(config_key, expected=f"valid options of {cls.__name__}", got=opts,
                               hint=str(exc)) from None
    return optimizer, opts
