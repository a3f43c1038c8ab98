"""The batch normalisation of a layer's tensor: ``LayerBase.batch_norm`` (the ``batch_norm`` layer, and the
common layer arg ``batch_norm``). See :mod:`returnn.tf.layers.norm.batch_norm` for the behaviour."""

from __future__ import annotations

from typing import Any, Dict, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.ops.dims import valid_frames_mask
from returnn.tf.ops.dropout import cond_on_train_flag
from returnn.util.behavior_version import BehaviorVersion


def batch_norm_tensor(self: Any, data: Tensor, use_shift: bool = True, use_std: bool = True, use_sample: float = 0.0,
                      force_sample: bool = False, momentum: Any = NotSpecified, epsilon: float = 1e-3,
                      update_sample_only_in_training: Any = NotSpecified, delay_sample_update: Any = NotSpecified,
                      param_version: Any = NotSpecified, gamma_init: Any = 1.0, beta_init: Any = 0.0,
                      masked_time: Any = NotSpecified) -> tf.Tensor:
    """:return: ``data`` normalised over all its axes except the feature axis (params created in the current
    variable scope under ``batch_norm/``, registered as ``self``'s params; the moving-statistics updates go into
    ``tf.GraphKeys.UPDATE_OPS``). Unset options: momentum 0.99, no sample-update restriction or delay, masked
    statistics, param version 0 (2 from behavior_version 12)."""
    # as the reference (observed): a batch normalisation draws one seed from the network's generator (the layers
    # built after it get the same initial values as there)
    self.network.random.randint(2 ** 31)
    momentum = 0.99 if momentum is NotSpecified else momentum
    update_sample_only_in_training = bool(update_sample_only_in_training is not NotSpecified
                                          and update_sample_only_in_training)
    delay_sample_update = bool(delay_sample_update is not NotSpecified and delay_sample_update)
    masked_time = None if masked_time is NotSpecified else masked_time
    inp = data
    x = inp.placeholder
    ax = inp.feature_dim_axis
    red_axes = [i for i in range(inp.batch_ndim) if i != ax]
    shape = [1] * inp.batch_ndim
    shape[ax] = inp.dim
    if param_version is NotSpecified:
        param_version = 2 if BehaviorVersion.get() >= 12 else 0
    if param_version not in (0, 1, 2):
        raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="param_version",
                            problem="invalid value for", expected="0, 1 or 2", got=param_version)
    mean, var = _batch_moments(inp, x, red_axes, masked=masked_time is not False)
    created = _create_params(self, param_version, [inp.dim] if param_version == 2 else shape, use_std=use_std,
                             use_shift=use_shift, gamma_init=gamma_init, beta_init=beta_init)
    moving_mean, moving_var = created["mean"], created["variance"]
    gamma, beta = created.get("gamma"), created.get("beta")
    fused = param_version == 2 and masked_time is False
    if param_version == 2:  # [F] params: broadcast as [1, ..., F] (the update assigns [F] values back)
        mean, var = tf.reshape(mean, [inp.dim]), tf.reshape(var, [inp.dim])
        if not fused:
            mean, var = tf.reshape(mean, shape), tf.reshape(var, shape)
            gamma = tf.reshape(gamma, shape) if gamma is not None else None
            beta = tf.reshape(beta, shape) if beta is not None else None
    train_flag = self.network.train_flag
    # one read of the moving statistics: the normalisation (when it uses them) and the update see the same
    # values, and a delayed update runs after this read
    old_mean, old_var = tf.identity(moving_mean), tf.identity(moving_var)
    if param_version == 2 and not fused:
        old_mean, old_var = tf.reshape(old_mean, shape), tf.reshape(old_var, shape)
    new_mean = momentum * mean + (1.0 - momentum) * old_mean
    new_var = momentum * var + (1.0 - momentum) * old_var
    # outside training: the moving statistics after this step's update, unless the update is delayed (to
    # after the normalisation) or happens only in training
    # (constants for the gradient: no gradient flows into the batch statistics there, as the reference)
    eval_stats = (old_mean, old_var) if update_sample_only_in_training or delay_sample_update \
        else (tf.stop_gradient(new_mean), tf.stop_gradient(new_var))
    use_mean, use_var = cond_on_train_flag(train_flag, lambda: (mean, var), lambda: eval_stats)
    if fused:
        y = _fused_normalize(inp, x, use_mean, use_var, gamma, beta, epsilon)
    else:
        y = (x - use_mean) * tf.math.rsqrt(use_var + epsilon)
        if gamma is not None:
            y = y * gamma
        if beta is not None:
            y = y + beta
    if not (update_sample_only_in_training and train_flag is False):
        _add_update(train_flag, moving_mean, moving_var, (old_mean, old_var), (new_mean, new_var),
                    only_in_training=update_sample_only_in_training, flat_dim=inp.dim if param_version == 2 else None)
    return y


def _batch_moments(inp: Tensor, x: Any, red_axes: Any, masked: bool) -> Tuple[Any, Any]:
    """:return: (mean, variance) of ``x`` over ``red_axes`` (kept as axes of size 1); with ``masked`` over the valid
    frames of ``inp``'s dynamic axes only"""
    mask = valid_frames_mask(inp, inp.get_dynamic_axes()) if masked else None
    if mask is None:
        return tf.nn.moments(x, axes=red_axes, keepdims=True)
    # the mask's own shape (size 1 on the feature axis), broadcast by the products: no weight tensor of x's size;
    # the count of valid frames is the same for every feature
    w = tf.cast(mask, x.dtype)
    count = tf.reduce_sum(w, axis=red_axes, keepdims=True)
    for axis in red_axes:  # an axis the mask is broadcast over (e.g. one length for the whole batch): each entry
        if w.shape[axis] == 1 and x.shape[axis] != 1:
            count = count * tf.cast(tf.shape(x)[axis], x.dtype)
    mean = tf.reduce_sum(x * w, axis=red_axes, keepdims=True) / count
    var = tf.reduce_sum(tf.square(x - mean) * w, axis=red_axes, keepdims=True) / count
    return mean, var


def _create_params(self: Any, param_version: int, var_shape: Any, *, use_std: bool, use_shift: bool, gamma_init: Any,
                   beta_init: Any) -> Dict[str, Any]:
    """:return: kind (mean, variance, gamma, beta) -> the param as the layer uses it, created in ``batch_norm/`` of
    the current variable scope with the names of ``param_version`` and registered as the layer's params
    (``batch_norm/<layer>_<layer>_output_gamma``; in training with param_dropout / param_variational_noise gamma and
    beta are tensors)"""
    kinds = [("mean", 0.0, False), ("variance", 1.0, False)] + ([("gamma", gamma_init, True)] if use_std else []) \
        + ([("beta", beta_init, True)] if use_shift else [])
    prefix = {0: f"{self.name}_{self.name}_output_", 1: "", 2: "v2_"}[param_version]
    with tf.compat.v1.variable_scope("batch_norm"):
        created = {kind: _var(self, prefix + kind, var_shape, init, trainable) for kind, init, trainable in kinds}
    return {kind: self.add_param(var) for kind, var in created.items()}


def _add_update(train_flag: Any, moving_mean: Any, moving_var: Any, old: Tuple[Any, Any], new: Tuple[Any, Any],
                only_in_training: bool, flat_dim: Any) -> None:
    """Adds the assignment of ``new`` (mean, variance) to the moving statistics to ``tf.GraphKeys.UPDATE_OPS``,
    after ``old`` (their read) was computed; with ``only_in_training`` and a train flag known only at run time,
    outside training it writes back ``old``. ``flat_dim``: the statistics' ``[F]`` shape (param version 2)."""
    new_mean, new_var = new
    if only_in_training and not isinstance(train_flag, bool):
        new_mean, new_var = cond_on_train_flag(train_flag, lambda: new, lambda: old)
    if flat_dim is not None:
        new_mean, new_var = tf.reshape(new_mean, [flat_dim]), tf.reshape(new_var, [flat_dim])
    with tf.control_dependencies(list(old)):
        updates = tf.group(moving_mean.assign(new_mean), moving_var.assign(new_var))
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, updates)


def _var(self: Any, name: str, shape: Any, init: Any, trainable: bool) -> Any:
    from returnn.tf.ops.init import get_initializer
    return tf.compat.v1.get_variable(name, shape=shape, initializer=get_initializer(init),
                                     trainable=trainable and self.trainable)


def _fused_normalize(inp: Tensor, x: Any, mean: Any, var: Any, gamma: Any, beta: Any, epsilon: float) -> Any:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over the feature axis with TF's fused batch norm op
    (given statistics, so the same values as the plain formula); ``mean``/``var``/``gamma``/``beta`` are ``[F]``."""
    ax = inp.feature_dim_axis
    perm = [i for i in range(inp.batch_ndim) if i != ax] + [ax]
    x_last = tf.transpose(x, perm) if perm != list(range(inp.batch_ndim)) else x
    shape = tf.shape(x_last)
    dim = inp.dim
    scale = gamma if gamma is not None else tf.ones([dim], dtype=x.dtype)
    offset = beta if beta is not None else tf.zeros([dim], dtype=x.dtype)
    y4, _, _ = tf.compat.v1.nn.fused_batch_norm(tf.reshape(x_last, [-1, 1, 1, dim]), scale=scale, offset=offset,
                                                mean=mean, variance=var, epsilon=epsilon, is_training=False)
    y = tf.reshape(y4, shape)
    if perm != list(range(inp.batch_ndim)):
        inv = [perm.index(i) for i in range(inp.batch_ndim)]
        y = tf.transpose(y, inv)
    return y
