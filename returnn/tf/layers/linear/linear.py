"""``{"class": "linear", "n_out": N, "activation": ...}`` (aliases ``forward``, ``hidden``).

Shape: ``{..., F_in} -> {..., F_out=n_out}``; a sparse input ``{..., classes}`` is an embedding lookup (rows of W).
With ``in_dim`` another static axis than the feature axis is contracted: it is replaced in place by the output dim,
which becomes the feature axis (as the reference, observed).
Params (as the reference): ``W`` ``[n_in, n_out]``, ``b`` ``[n_out]`` (if ``with_bias``).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, UnknownNameError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.out_template import base_out_template
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.activations import check_activation_name, get_activation_function
from returnn.tf.ops.dense import dense_matmul
from returnn.tf.ops.init import get_initializer
from returnn.tf.ops.output_with_activation import OutputWithActivation


@register_layer(aliases=["forward", "hidden"])
class LinearLayer(ConcatInputLayer):
    """``activation(x W + b)``.

    :param activation: ``relu``, ``tanh``, ``sigmoid``, ``softmax``, ``log_softmax``, ``elu``, ``gelu``,
        ``swish``, ``identity``/None, products ``"2*sigmoid"``, chains ``"relu+tanh"``
    :param with_bias: add ``b``
    :param forward_weights_init: initializer spec for ``W`` (default ``glorot_uniform``)
    :param bias_init: initializer spec for ``b`` (default 0)
    """

    layer_class = "linear"
    default_activation: Optional[str] = None

    def __init__(self, activation: Any = NotSpecified, with_bias: bool = True, grad_filter: Optional[float] = None,
                 forward_weights_init: Any = "glorot_uniform", bias_init: Any = 0.0,
                 use_transposed_weights: bool = False, in_dim: Any = None, **kwargs: Any):
        """
        :param grad_filter: clip the gradient flowing back into the input to ``[-v, v]`` (default none)
        :param use_transposed_weights: store ``W`` as ``[n_out, n_in]`` (transposed) instead of ``[n_in, n_out]``
        """
        super().__init__(in_dim=in_dim, **kwargs)
        if activation is NotSpecified:
            activation = self.default_activation
        inp = _with_in_dim_as_feature(self.input_data, in_dim)
        n_in = inp.dim
        n_out = self.output.dim
        seed = self.network.random.randint(2 ** 31)
        w_init = get_initializer(forward_weights_init, seed=seed, key=f"{self.name}/forward_weights_init")
        shape = (n_out, n_in) if use_transposed_weights else (n_in, n_out)
        weights = self.create_param("W", shape, w_init)
        #: the weights as used (in training with param_dropout / param_variational_noise: the noisy tensor)
        self.weights = weights
        #: the bias as used, None without
        self.bias: Any = None
        if use_transposed_weights:
            weights = tf.transpose(weights)
        # computed with the feature axis last, on [N, n_in] (leading axes folded: MatMul, BiasAdd and the
        # activation are adjacent, which TF's CPU graph rewrite fuses into one kernel); then moved to where the
        # template has the feature axis
        if inp.sparse:
            x = tf.nn.embedding_lookup(weights, tf.cast(inp.placeholder, tf.int32))
            batch_shape = None
        else:
            inp_f = inp.copy_with_feature_dim_axis(-1) if inp.feature_dim_axis != inp.batch_ndim - 1 else inp
            x_in = inp_f.placeholder
            batch_shape = inp_f.batch_shape[:-1] + (n_out,)
            leading = None
            if x_in.shape.rank != 2:
                # (tf_amp: the shape of the compute-dtype tensor, so that its float32 cast need not be computed)
                src = self.network.amp.source(x_in)
                leading = tf.shape(x_in if src is None else src)[:-1]
                x_in = tf.reshape(x_in, [-1, n_in])
            x = self.network.amp.call(dense_matmul, x_in, weights)  # tf_amp: bfloat16/float16 inside, float32 out
        if with_bias:
            b_init = get_initializer(bias_init, seed=seed + 1, key=f"{self.name}/bias_init")
            self.bias = self.create_param("b", (n_out,), b_init)
            x = _add_bias(self.network.amp, x, self.bias)
        if grad_filter:
            x = _grad_filter(x, grad_filter)
        act = OutputWithActivation(x, get_activation_function(activation))
        if batch_shape is not None:
            if leading is not None:
                out_shape = tf.concat([leading, [n_out]], axis=0)
                act.x = tf.reshape(act.x, out_shape)
                act.y = act.x if act.act_func is None else tf.reshape(act.y, out_shape)
            act.x.set_shape(batch_shape)
            act.y.set_shape(batch_shape)
        out_axis = self.output.feature_dim_axis
        if out_axis != self.output.batch_ndim - 1:
            perm = list(range(self.output.batch_ndim - 1))
            perm.insert(out_axis, self.output.batch_ndim - 1)
            act.x, act.y = tf.transpose(act.x, perm), tf.transpose(act.y, perm)
        self.output_before_activation = act
        self.output.placeholder = act.y

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), n_out: Any = NotSpecified,
                               activation: Any = NotSpecified, out_type: Any = None, out_dim: Any = None,
                               target: Any = None, _target_layers: Any = None, loss: Any = None,
                               in_dim: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing ``n_out`` (and no loss target to take it from); unknown activation"""
        try:
            check_activation_name(cls.default_activation if activation is NotSpecified else activation)
        except (UnknownNameError, ValueError) as exc:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="activation", problem="invalid value",
                                got=activation, hint=str(exc).split("\n")[0]) from None
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class,
                                      allow_broadcast_all_sources=kwargs.get("out_shape") is not None)
        if in_dim is not None and not inp.sparse:
            if in_dim not in inp.dims:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="in_dim", problem="not a dim of the "
                                    "input:", got=in_dim, expected=f"one of {list(inp.dims)}")
            inp = _with_in_dim_as_feature(inp, in_dim)
        out = base_out_template(cls, name=name, network=network, sources=sources, n_out=n_out, out_type=out_type,
                                out_dim=out_dim, target=target, target_layers=_target_layers, loss=loss,
                                sources_template=inp, require_n_out=True)
        if inp.dim is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="input feature dim is unknown:", got=repr(inp))
        if not all(src.output.available_for_inference for src in sources):  # as the reference (observed)
            out.available_for_inference = False
        return out


def _add_bias(amp: Any, x: tf.Tensor, bias: Any) -> tf.Tensor:
    """``x + bias``: ``BiasAdd`` in float32 (Grappler fuses it with the product).

    With ``tf_amp = "float16"``, where ``x`` is the float32 cast of the product's result, the addition in the
    compute dtype before that cast (so that a following element-wise layer and product read the compute-dtype
    tensor: :meth:`AmpPolicy.source`), as an ``AddV2``, not ``BiasAdd`` (TensorFlow's CPU ``BiasAddGrad`` sums in
    the gradient's dtype; the gradient of ``AddV2``, a ``Sum``, accumulates in float32).

    With ``tf_amp = "bfloat16"`` the addition is a float32 ``BiasAdd`` on the cast of the product's result: on CPU
    Grappler fuses a bfloat16 product with a following bias addition into one oneDNN kernel that takes about twice
    the CPU time of the plain bfloat16 product (``[4008, 512] x [512, 9001]``: 265 vs 133 ms, the product, its cast
    and a float32 ``BiasAdd`` 151 ms; ``[1336, 512] x [512, 2048]``: 16.5 vs 8.8 ms, 10.7 ms), and the bias
    gradient is then a float32 ``BiasAddGrad`` instead of a ``Sum`` of the bfloat16 gradient over all frames. The
    float32 result is what the layers after a product read in bfloat16 anyway (sigmoid-like activations, layer
    norm, residual additions, losses)."""
    if amp.source(x) is None or amp.dtype == "bfloat16":
        return tf.nn.bias_add(x, bias)
    return amp.pointwise(lambda t: t + tf.cast(bias, t.dtype), x)


def _with_in_dim_as_feature(data: Tensor, in_dim: Any) -> Tensor:
    """:return: ``data`` with the axis of ``in_dim`` as its feature axis (no axis moved); ``data`` itself when
        ``in_dim`` is None or already the feature dim"""
    if in_dim is None or data.sparse:
        return data
    if data.feature_dim_axis is not None and data.dims[data.feature_dim_axis] == in_dim:
        return data
    result = data.copy()
    result.feature_dim_axis = list(data.dims).index(in_dim)
    return result


def _grad_filter(x: tf.Tensor, limit: float) -> tf.Tensor:
    """Identity forward; gradient clipped to ``[-limit, limit]``."""
    @tf.custom_gradient
    def fn(v: tf.Tensor) -> Any:
        return tf.identity(v), lambda dy: tf.clip_by_value(dy, -limit, limit)
    return fn(x)
