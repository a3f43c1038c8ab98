"""Activation names → TF functions (``"relu"``, ``"tanh"``, ``"2*sigmoid"``, ``"relu+tanh"``, None).

A spec is a sum of products, as the reference reads it (observed): ``"2*sigmoid"`` is ``2 * sigmoid(x)``,
``"relu+tanh"`` is ``relu(x) + tanh(x)``, ``"identity + 1"`` is ``x + 1``.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Union

import tensorflow as tf

from returnn.tf.ops.numerics import safe_log
from returnn.util.registry import Registry

def swish(x: tf.Tensor) -> tf.Tensor:
    """``x * sigmoid(x)`` (``"swish"``, ``"silu"``) as the two ops themselves: their gradient is 4 element-wise kernels
    (``tf.nn.swish``'s own gradient recomputes the sigmoid and takes 8, and its forward multiplies by ``beta = 1``),
    and Grappler's remapper may fuse the pair into one kernel where the sigmoid is not kept for a gradient. The
    same values as ``tf.nn.swish`` (its ``1.0 * x`` is ``x``)."""
    return x * tf.sigmoid(x)


ACTIVATIONS: Registry[Callable[[tf.Tensor], tf.Tensor]] = Registry("activation function")
_BASE: Dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "relu": tf.nn.relu, "relu6": tf.nn.relu6, "crelu": tf.nn.crelu, "elu": tf.nn.elu, "selu": tf.nn.selu,
    "tanh": tf.tanh, "sigmoid": tf.sigmoid, "softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax,
    "gelu": lambda x: tf.nn.gelu(x, approximate=False), "gelu_tanh": lambda x: tf.nn.gelu(x, approximate=True),
    # the reference's names: gelu2 the sigmoid approximation, gelu3 exact (as "gelu")
    "gelu2": lambda x: x * tf.sigmoid(1.702 * x), "gelu3": lambda x: tf.nn.gelu(x, approximate=False),
    "swish": swish, "silu": swish, "softplus": tf.nn.softplus, "softsign": tf.nn.softsign,
    "identity": tf.identity, "linear": tf.identity, "abs": tf.abs, "exp": tf.exp, "log": tf.math.log,
    "log_sigmoid": tf.math.log_sigmoid, "sqrt": tf.sqrt, "square": tf.square, "sin": tf.sin, "cos": tf.cos,
    "leaky_relu": tf.nn.leaky_relu, "negative": tf.negative, "sign": tf.sign, "rsqrt": tf.math.rsqrt,
    "logsumexp": lambda x: tf.reduce_logsumexp(x, axis=-1, keepdims=True), "round": tf.round,
    "floor": tf.floor, "ceil": tf.math.ceil, "reciprocal": tf.math.reciprocal, "erf": tf.math.erf,
}
for _name, _fn in _BASE.items():
    ACTIVATIONS.register(_name, _fn)


#: element-wise activations that ``tf_amp`` may compute in the compute dtype on a product's result (no reductions,
#: no logarithms or exponentials of probabilities): :meth:`returnn.tf.util.amp.AmpPolicy.pointwise`
AMP_POINTWISE = frozenset({"relu", "relu6", "elu", "leaky_relu", "swish", "silu", "sigmoid", "tanh", "gelu",
                           "gelu_tanh", "identity", "linear", "abs", "square", "negative"})

#: of :data:`AMP_POINTWISE`, those computed in float32 under ``tf_amp = "bfloat16"`` (on the float32 cast of the
#: product's result, the next product casting their output): TensorFlow's CPU kernels of ``Sigmoid`` and its
#: gradient take 2-3x the CPU time in bfloat16 of the float32 kernel (measured on ``[1336, 2048]``, the conformer's
#: feed-forward at 8 sequences: ``Sigmoid`` 9.7 vs 3.0 ms, swish 11.9 vs 3.8 ms, ``SigmoidGrad`` 5.2 vs 2.4 ms), more
#: than the two casts around a float32 island (1.1-1.5 ms each); the other transcendental activations go the same way
AMP_FLOAT32_UNDER_BFLOAT16 = frozenset({"elu", "swish", "silu", "sigmoid", "tanh", "gelu", "gelu_tanh"})


def amp_pointwise(activation: Optional[str], compute_dtype: Optional[str]) -> bool:
    """Whether ``tf_amp`` computes ``activation`` in the compute dtype on a product's result
    (:meth:`returnn.tf.util.amp.AmpPolicy.pointwise`).

    :param activation: an activation name (None: identity)
    :param compute_dtype: the policy's compute dtype name (``"bfloat16"``, ``"float16"``) or None (off)
    :return: True for the names of :data:`AMP_POINTWISE`, except those of :data:`AMP_FLOAT32_UNDER_BFLOAT16` under
        ``"bfloat16"``
    """
    name = activation or "identity"
    if name not in AMP_POINTWISE:
        return False
    return not (compute_dtype == "bfloat16" and name in AMP_FLOAT32_UNDER_BFLOAT16)


def _safe_log(x: tf.Tensor, eps: float = 1e-20, use_fake_grad: bool = True) -> tf.Tensor:
    """``log(max(x, eps))`` (the reference's ``safe_log`` activation; observed: eps 1e-20 by default, ``opts`` may set
    it, e.g. ``{"eps": 1e-10}`` maps 0 and 1e-12 to -23.02585)"""
    return safe_log(x, eps=eps, use_fake_grad=use_fake_grad)


ACTIVATIONS.register("safe_log", _safe_log)


def _parse(activation: str) -> List[List[Union[float, Callable[[tf.Tensor], tf.Tensor]]]]:
    """:return: the terms of ``activation`` (a sum), each a list of factors: a number or a registered function
    :raises UnknownNameError: a factor that is neither a number nor a known activation name
    """
    terms = []
    for term in activation.split("+"):
        factors: List[Union[float, Callable[[tf.Tensor], tf.Tensor]]] = []
        for factor in term.split("*"):
            factor = factor.strip()
            try:
                factors.append(float(factor))
            except ValueError:
                factors.append(ACTIVATIONS.get(factor))
        terms.append(factors)
    return terms


def check_activation_name(activation: Optional[str]) -> None:
    """:raises UnknownNameError: if any part of ``activation`` is not known (for validation before building)"""
    if activation is not None:
        _parse(activation)


def get_activation_function(activation: Optional[str]) -> Optional[Callable[[tf.Tensor], tf.Tensor]]:
    """The function of an activation spec, as the reference reads it (observed): ``"+"`` sums the terms, ``"*"``
    multiplies the factors of a term, a factor is an activation name (applied to the input) or a number (a
    constant, in the input's dtype): ``"relu+tanh"`` is ``relu(x) + tanh(x)``, ``"2*sigmoid"`` is ``2 * sigmoid(x)``,
    ``"identity + 1"`` is ``x + 1``.

    :return: function x → activation(x) (for a single name the registered TF function itself, e.g.
        ``tf.nn.softmax``, so that losses recognise it), or None for no activation
    :raises UnknownNameError: an unknown name
    """
    if activation is None:
        return None
    terms = _parse(activation)
    if len(terms) == 1 and len(terms[0]) == 1 and callable(terms[0][0]):
        return terms[0][0]

    def apply(x: tf.Tensor) -> tf.Tensor:
        total = None
        for factors in terms:
            value = None
            for factor in factors:
                y = factor(x) if callable(factor) else tf.cast(factor, x.dtype)
                value = y if value is None else value * y
            total = value if total is None else total + value
        return total

    return apply
