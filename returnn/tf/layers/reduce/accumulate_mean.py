"""``{"class": "accumulate_mean", "exp_average": 0.001, "axes": "bt"}``: running mean of the input over training.

Shape: the input without ``axes`` (default ``"bt"``: ``{B, T, F} -> {F}``; must leave only static axes), as
``reduce`` with ``mode="mean"``. The output is the value of the param ``mean_1`` (the name the reference gives
it, trainable as there), initialized with ``initial_value`` if given, else ``1/dim`` with
``is_prob_distribution``, else 0.

The running update ``mean_1 <- (1 - exp_average) * mean_1 + exp_average * mean_axes(input)`` (padded frames
excluded) is not run by fetching the output (as in the reference, it belongs to the training step): it is
:attr:`AccumulateMeanLayer.custom_update_op`, also set as ``returnn_custom_update_op`` on the variable.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.reduce.reduce import ReduceLayer
from returnn.tf.layers.shape._axis_letters import expand_axis_letters
from returnn.tf.ops.dims import axis_mask, mask_all_dynamic


@register_layer
class AccumulateMeanLayer(ConcatInputLayer):
    """Exponential running mean of the input (over ``axes``), as a param."""

    layer_class = "accumulate_mean"

    def __init__(self, exp_average: float, axes: Any = "bt", initial_value: Optional[float] = None,
                 is_prob_distribution: Optional[bool] = None, **kwargs: Any):
        """
        :param exp_average: weight of the current batch's mean in the running update (e.g. 0.001)
        :param axes: the axes averaged over (axis description, default ``"bt"``); only static axes may remain
        :param initial_value: initial value of the running mean (default: see ``is_prob_distribution``, else 0)
        :param is_prob_distribution: start the running mean at ``1/dim`` (a uniform distribution over the feature dim)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        if initial_value is None:
            initial_value = 1.0 / self.output.batch_shape[-1] if is_prob_distribution else 0.0
        shape = self.output.batch_shape
        param = tf.compat.v1.get_variable("mean_1", shape=list(shape), dtype=self.output.dtype,
                                          initializer=tf.compat.v1.constant_initializer(initial_value))
        self.add_param(param)
        ax = inp.get_axes_from_description(expand_axis_letters(axes))
        total = tf.reduce_sum(mask_all_dynamic(inp, 0), axis=ax)
        count = tf.ones_like(inp.placeholder)
        for a in inp.get_dynamic_axes():
            mask = axis_mask(inp, a)
            if mask is not None:
                count = count * tf.cast(mask, count.dtype)
        count = tf.reduce_sum(count, axis=ax)
        new_value = (1.0 - exp_average) * param + exp_average * (total / tf.maximum(count, 1.0))
        self.custom_update_op = tf.compat.v1.assign(param, new_value, name="accumulate_mean_update")
        param.returnn_custom_update_op = self.custom_update_op
        self.output.placeholder = tf.identity(param)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = "bt", **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: a dynamic axis remains"""
        out = ReduceLayer.get_out_data_from_opts(name=name, sources=sources, mode="mean",
                                                 axes=expand_axis_letters(axes))
        if any(d is None for d in out.batch_shape):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the mean must have a static shape (reduce all dynamic axes)", got=repr(out),
                                  hint='use axes="bt" (the default)')
        return out
