"""``CustomGradient`` (legacy ``TFUtil`` class) and its shared instance ``custom_gradient``: ops whose gradient
is given by a Python function, and ``generic_loss_and_error_signal`` (a value with a given gradient).

A registered op is built as ``IdentityN([f(stop_gradient(inputs)), *inputs])`` under a gradient override: the
gradient function receives a view of the op (its ``inputs`` and ``outputs``) and the output's gradient, and returns
one gradient per input. This works in any graph, so registering once per process is enough.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, List, Optional, Sequence

import tensorflow as tf

_counter = itertools.count()


class _OpView:
    """What a gradient function of :meth:`CustomGradient.register` gets as ``op``: the user op's ``inputs``,
    ``outputs`` (one) and ``graph``."""

    def __init__(self, inputs: Sequence[tf.Tensor], output: tf.Tensor):
        self.inputs = list(inputs)
        self.outputs = [output]
        self.graph = output.graph
        self.type = "CustomGradientOp"
        self.name = output.op.name


class CustomGradient:
    """Ops with a Python gradient function.

    - :meth:`register` ``(input_types, op, grad_op)``: returns ``f(*inputs)`` computing ``op(*inputs)`` whose
      gradient is ``grad_op(op_view, grad_output)`` (one gradient per input, None for none).
    - :meth:`generic_loss_and_error_signal` ``(loss, x, grad_x)``: the value ``loss`` with gradient ``grad_x``
      w.r.t. ``x`` (scaled by the incoming gradient).
    """

    def __init__(self):
        self._registered: dict = {}

    def register(self, input_types: Sequence[Any], op: Callable[..., Any],
                 grad_op: Callable[..., Any], name: Optional[str] = None) -> Callable[..., tf.Tensor]:
        """:param input_types: the inputs' dtypes (the inputs are converted to them)
        :param op: ``op(*inputs) -> tensor``
        :param grad_op: ``grad_op(op, grad) -> gradient or list of gradients (one per input)``; ``op`` has
            ``inputs`` and ``outputs``
        :param name: name of the gradient registration and the op's name scope (default: from ``op``)
        :return: ``f(*inputs) -> tensor``"""
        input_types = [tf.as_dtype(t) for t in input_types]
        base = name or getattr(op, "__name__", "custom_op")
        grad_name = f"ReturnnCustomGradient_{base}_{next(_counter)}"
        views: dict = {}

        def _grad(identity_op: tf.Operation, *grads: tf.Tensor) -> List[Optional[tf.Tensor]]:
            view = views[identity_op.name]
            res = grad_op(view, grads[0])
            if not isinstance(res, (list, tuple)):
                res = [res]
            return [None] + list(res)

        tf.RegisterGradient(grad_name)(_grad)

        def call(*inputs: Any) -> tf.Tensor:
            with tf.name_scope(base):
                inputs = [tf.convert_to_tensor(x, dtype=t) for x, t in zip(inputs, input_types)]
                out = tf.convert_to_tensor(op(*[tf.stop_gradient(x) for x in inputs]))
                graph = out.graph
                with graph.gradient_override_map({"IdentityN": grad_name}):
                    res = tf.identity_n([out] + inputs)
                views[res[0].op.name] = _OpView(inputs, res[0])
                return res[0]

        self._registered[grad_name] = call
        return call

    def register_generic_loss_and_error_signal(self) -> None:
        """Nothing to prepare (kept for configs that call it before :meth:`generic_loss_and_error_signal`)."""

    def generic_loss_and_error_signal(self, loss: Any, x: Any, grad_x: Any) -> tf.Tensor:
        """:param loss: scalar value to return
        :param x: tensor the gradient flows to
        :param grad_x: gradient of the result w.r.t. ``x`` (shape of ``x``)
        :return: ``loss`` (float32 scalar) whose gradient w.r.t. ``x`` is ``grad_x`` times the incoming gradient
        """
        with tf.name_scope("generic_loss_and_error_signal"):
            x = tf.convert_to_tensor(x)
            loss = tf.convert_to_tensor(loss, dtype=x.dtype)
            grad_x = tf.convert_to_tensor(grad_x, dtype=x.dtype)
            # value: loss + 0; gradient w.r.t. x: grad_x
            zero_with_grad = tf.reduce_sum((x - tf.stop_gradient(x)) * tf.stop_gradient(grad_x))
            return tf.stop_gradient(loss) + zero_with_grad


custom_gradient = CustomGradient()
