"""Mixed precision (config key ``tf_amp``): matmuls and convolutions in bfloat16/float16, float32 master weights.

``tf_amp = "bfloat16"`` (CPU and GPU) or ``"float16"`` (GPU only) makes the layers compute their large products in
that dtype (the *compute dtype*); everything else stays float32:

* variables are created and stored as float32 (the *master weights*); a layer casts a weight to the compute dtype
  where it uses it (``tf.cast``), so its gradient is cast back and the optimizer updates the float32 variable.
  Checkpoints therefore hold exactly the variables (names, shapes, float32) of a float32 run, and load in either;
* each product (:meth:`AmpPolicy.matmul`, :meth:`AmpPolicy.einsum`, :meth:`AmpPolicy.call`) casts its float32
  inputs to the compute dtype and its result back to float32, so layer outputs and templates are float32, and
  softmax/log-softmax, losses, layer and batch normalization stay float32;
* between consecutive products no cast back and forth: a float32 layer output that is the cast of a
  compute-dtype tensor (:meth:`AmpPolicy.source`) is read by the next product as that tensor, and the element-wise
  steps between products run on it in the compute dtype, the float32 cast after them (:meth:`AmpPolicy.pointwise`):
  the bias addition of ``linear``/``conv``, element-wise ``activation`` layers (``swish``, ``relu``, ...), ``gating``
  and dropout with a shared mask (its ``1 / (1 - rate)`` rounded to the compute dtype), and ``self_attention``'s
  queries, keys, values and merged heads. A float32 cast that no layer reads as float32 is then never computed, in
  the forward pass nor in the gradient. Under ``"bfloat16"`` (CPU kernels) two of these stay float32, as measured
  faster there: ``linear``'s bias addition (a float32 ``BiasAdd`` on the product's cast result; see
  ``returnn/tf/layers/linear/linear.py``) and the sigmoid-like activations (``swish``, ``sigmoid``, ``tanh``, ``gelu``,
  ``elu``; :data:`returnn.tf.ops.activations.AMP_FLOAT32_UNDER_BFLOAT16`);
* ``"float16"`` has a narrow exponent range: the training loss is multiplied by a dynamic loss scale
  (:class:`DynamicLossScale`, in the updater) so small gradients do not flush to zero.

Which layers follow the policy: ``linear``/``softmax`` (and their aliases), ``conv``, ``transposed_conv``,
``rnn_cell`` (LSTM and GRU gate matmuls), the LSTM units of ``rec``
(input projection and recurrent matmul of the ``loop`` kernel; TensorFlow's ``BlockLSTM`` kernel, used for layers
of <= 64 cells on CPU, has no bfloat16 kernel and stays float32 under ``"bfloat16"``), ``self_attention`` and
``dot``. Other layers compute in float32.

The policy is read once per network from the config (:meth:`AmpPolicy.from_config`) and reached by the layers
through their network (``self.network.amp``, :func:`policy_of_network`), never as a process-wide global.
Without ``tf_amp`` (the default) every helper is the plain float32 op (no casts in the graph), as the reference.

The reference's net-dict TF engine has no such switch; the key name is that of its newer TF engine.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.options.precision import TF_AMP_CHOICES, PrecisionOptions
from returnn.tf.ops.mixed_precision import cast_matmul as cast_matmul
from returnn.tf.util.control_flow import default_control_flow_ctx, has_current_control_flow_context

tf1 = tf.compat.v1


@dataclasses.dataclass(frozen=True)
class AmpPolicy:
    """The cast policy of one network.

    :param dtype: the compute dtype name, ``"bfloat16"`` or ``"float16"``, or None (off: float32 everywhere)
    """

    dtype: Optional[str] = None

    @classmethod
    def from_config(cls, config: Any) -> AmpPolicy:
        """The policy of ``config``'s ``tf_amp`` (parsed as :class:`PrecisionOptions`; None: :data:`OFF`).

        :raises ConfigValueError: see :meth:`from_options`; ``tf_amp`` is not None/``"bfloat16"``/``"float16"``
            (names the key, the value and the valid choices)
        """
        if config is None:
            return OFF
        return cls.from_options(PrecisionOptions.from_config(config))

    @classmethod
    def from_options(cls, options: PrecisionOptions) -> AmpPolicy:
        """The policy of the parsed ``tf_amp`` (and ``device``).

        :raises ConfigValueError: ``"float16"`` where TensorFlow sees no GPU or ``device`` is ``"cpu"`` (float16
            training needs a GPU's float16 kernels)
        """
        value = options.tf_amp
        if value is None:
            return OFF
        if value == "float16" and not _gpu_in_use(options.device):
            raise ConfigValueError("tf_amp", expected="'bfloat16' on a CPU ('float16' needs a GPU)", got=value,
                                   suggestions=["bfloat16"],
                                   hint="no GPU is used (TensorFlow lists none, or device = 'cpu')")
        assert value in TF_AMP_CHOICES  # validated by the option
        return cls(dtype=value)

    @property
    def enabled(self) -> bool:
        """Whether mixed precision is on."""
        return self.dtype is not None

    @property
    def compute_dtype(self) -> tf.DType:
        """The dtype the products run in (float32 when off)."""
        return tf.as_dtype(self.dtype) if self.dtype else tf.float32

    @property
    def loss_scaling(self) -> bool:
        """Whether the updater scales the loss (float16 only: bfloat16 has float32's exponent range)."""
        return self.dtype == "float16"

    def cast(self, x: tf.Tensor) -> tf.Tensor:
        """:return: ``x`` in the compute dtype if it is float32 and the policy is on, else ``x`` unchanged. Where
        ``x`` is itself the float32 cast of a compute-dtype tensor (:meth:`source`), that tensor (the same values:
        no cast back and forth between consecutive products). A float32 variable read inside a loop (a layer's
        weight in a ``rec`` unit's step) is cast once per run, outside the loop (:func:`hoisted_weight_cast`)."""
        if self.enabled and x.dtype == tf.float32:
            if isinstance(x, tf.Variable) and has_current_control_flow_context():
                return hoisted_weight_cast(x, self.compute_dtype)
            src = self.source(x)
            return src if src is not None else tf.cast(x, self.compute_dtype)
        return x

    def source(self, x: Any) -> Optional[tf.Tensor]:
        """:return: the compute-dtype tensor of which the float32 ``x`` is the cast (through ``Identity`` and
            ``Reshape`` ops without control inputs: the reshape is repeated on that tensor), or None (policy off, or
            ``x`` is no such cast)"""
        if not self.enabled or not isinstance(x, tf.Tensor) or x.dtype != tf.float32:
            return None
        while x.op.type == "Identity" and not x.op.control_inputs:
            x = x.op.inputs[0]
        if x.op.type == "Reshape" and not x.op.control_inputs:
            inner = self.source(x.op.inputs[0])
            if inner is None:
                return None
            result = tf.reshape(inner, x.op.inputs[1])
            result.set_shape(x.shape)
            return result
        if x.op.type == "Cast" and x.op.inputs[0].dtype == self.compute_dtype:
            return x.op.inputs[0]
        return None

    def pointwise(self, fn: Callable[[tf.Tensor], tf.Tensor], x: tf.Tensor) -> tf.Tensor:
        """``fn(x)`` for an element-wise ``fn``: in the compute dtype where ``x`` is the float32 cast of a
        compute-dtype tensor (:meth:`source`, e.g. a product's result), the result cast to float32 (so that the
        next product reads it without a cast); else ``fn(x)`` in float32."""
        src = self.source(x)
        if src is None:
            return fn(x)
        return tf.cast(fn(src), tf.float32)

    def uncast(self, y: tf.Tensor, dtype: tf.DType = tf.float32) -> tf.Tensor:
        """:return: ``y`` as ``dtype`` (float32): the result of a product computed in the compute dtype"""
        if y.dtype != dtype and y.dtype in (tf.bfloat16, tf.float16):
            return tf.cast(y, dtype)
        return y

    def call(self, fn: Callable[..., tf.Tensor], *tensors: tf.Tensor, **kwargs: Any) -> tf.Tensor:
        """``fn(*tensors, **kwargs)`` with the float32 ``tensors`` cast to the compute dtype and a float result
        cast back to float32 (e.g. ``policy.call(tf.nn.convolution, x, filters, padding="SAME")``).

        :return: the result of ``fn`` (float32 if the inputs were), the plain ``fn(...)`` when off
        """
        if not self.enabled:
            return fn(*tensors, **kwargs)
        return self.uncast(fn(*[self.cast(t) for t in tensors], **kwargs))

    def matmul(self, a: tf.Tensor, b: tf.Tensor, **kwargs: Any) -> tf.Tensor:
        """``tf.matmul(a, b, **kwargs)`` in the compute dtype, result float32 (see :meth:`call`)."""
        return cast_matmul(self.cast(a), self.cast(b), self.compute_dtype, **kwargs)

    def einsum(self, equation: str, *tensors: tf.Tensor) -> tf.Tensor:
        """``tf.einsum(equation, *tensors)`` in the compute dtype, result float32 (see :meth:`call`)."""
        return self.call(lambda *ts: tf.einsum(equation, *ts), *tensors)


#: the policy without ``tf_amp``: float32 everywhere
OFF = AmpPolicy()

#: per graph: (variable, dtype) -> the variable cast to dtype outside all loops (:func:`hoisted_weight_cast`)
_HOISTED_CASTS: "weakref.WeakKeyDictionary[tf.Graph, Dict[Tuple[Any, tf.DType], tf.Tensor]]" = \
    weakref.WeakKeyDictionary()


def hoisted_weight_cast(var: tf.Variable, dtype: tf.DType) -> tf.Tensor:
    """``tf.cast(var, dtype)`` for a use inside a loop (or cond), with the cast computed once per ``Session.run``,
    outside all loops, instead of in every step.

    In a ``rec`` unit's step a layer's weight (e.g. the decoder LSTM's ``[n_in + n, 4 n]`` kernel) would otherwise
    be read and cast in every step, a weight-sized cast per step for a product of a few rows. The cast outside the
    loop is shared by every use of ``var`` in this graph. Its gradient is not taken through that cast: the
    gradient of the result is cast to float32 and given to ``var`` as read in the loop, so the loop sums the
    steps' weight gradients in float32 (a sum of the compute-dtype gradients over the steps would lose precision).

    :param var: a float32 variable, created outside all loops
    :param dtype: the compute dtype (bfloat16 or float16)
    :return: ``var`` in ``dtype``, shape of ``var``; its gradient flows to ``var`` in float32
    """
    graph = tf1.get_default_graph()
    casts = _HOISTED_CASTS.setdefault(graph, {})
    key = (var.ref(), tf.as_dtype(dtype))
    outside = casts.get(key)
    if outside is None:
        with default_control_flow_ctx():
            outside = tf.cast(var, dtype)
        casts[key] = outside
    return _with_float32_gradient(tf.convert_to_tensor(var), outside)


@tf.custom_gradient
def _with_float32_gradient(w32: tf.Tensor, w_cast: tf.Tensor) -> Tuple[tf.Tensor, Callable[..., Any]]:
    """:return: ``w_cast`` (the compute-dtype copy of ``w32``), whose gradient goes to ``w32`` as float32"""

    def grad(dy: tf.Tensor) -> Tuple[tf.Tensor, None]:
        return tf.cast(dy, w32.dtype), None

    return tf.identity(w_cast), grad


def _gpu_in_use(device: Optional[str]) -> bool:
    """Whether a GPU computes: TensorFlow lists one and neither ``TF_DEVICE`` nor config ``device`` says cpu."""
    import os

    device = os.environ.get("TF_DEVICE") or device
    if device and str(device).lower().startswith("cpu"):
        return False
    return bool(tf.config.list_physical_devices("GPU"))


def policy_of_network(network: Any) -> AmpPolicy:
    """The policy of ``network``: read from the root network's config on first use, then kept on the root network
    (subnetworks, rec loops and extra networks share it). A network object without a config: :data:`OFF`.

    :raises ConfigValueError: see :meth:`AmpPolicy.from_config`
    """
    root = network.get_root_network() if hasattr(network, "get_root_network") else network
    policy = getattr(root, "_amp_policy", None)
    if policy is None:
        policy = AmpPolicy.from_config(getattr(root, "config", None))
        if policy.enabled:
            from returnn.log import log

            print(f"tf_amp: matmuls and convolutions in {policy.dtype}, variables float32"
                  + (", dynamic loss scaling" if policy.loss_scaling else "") + ".", file=log.v4)
        try:
            root._amp_policy = policy
        except AttributeError:  # an object that takes no attributes: read again next time
            pass
    return policy


class DynamicLossScale:
    """Dynamic loss scaling for float16 training (as in the usual mixed-precision recipes).

    The loss is multiplied by ``scale`` before the gradients are taken and the gradients divided by it afterwards.
    A step whose gradients are not all finite is skipped (no parameter update) and halves the scale; after
    ``growth_interval`` finite steps in a row the scale doubles. The two variables (``loss_scale``,
    ``loss_scale_good_steps``, float32 / int64 scalars, not trainable) are global variables: saved in the checkpoint
    (resuming keeps the scale) and optional when loading (a float32 checkpoint loads; a float32 run ignores them).

    :param initial_scale: the first scale (2**15)
    :param growth_interval: finite steps in a row before the scale doubles
    """

    def __init__(self, initial_scale: float = 2.0 ** 15, growth_interval: int = 2000):
        self.growth_interval = int(growth_interval)
        self.scale = tf1.Variable(float(initial_scale), name="loss_scale", trainable=False, dtype=tf.float32,
                                  use_resource=True)
        self.good_steps = tf1.Variable(0, name="loss_scale_good_steps", trainable=False, dtype=tf.int64,
                                       use_resource=True)

    @property
    def variables(self) -> List[tf.Variable]:
        """The scale and the counter of finite steps."""
        return [self.scale, self.good_steps]

    def scale_loss(self, loss: tf.Tensor) -> tf.Tensor:
        """:return: ``loss * scale`` (float32 scalar)"""
        return loss * tf.cast(self.scale, loss.dtype)

    def unscale(self, grads_and_vars: Sequence[Tuple[tf.Tensor, Any]]) -> Tuple[List[Tuple[tf.Tensor, Any]], tf.Tensor]:
        """:return: (the gradients divided by the scale, bool scalar: all of them finite)"""
        inv = 1.0 / self.scale
        result = [(g * tf.cast(inv, g.dtype), v) for g, v in grads_and_vars]
        finite = tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g, _ in result])
        return result, finite

    def apply_if_finite(self, apply_fn: Callable[[], tf.Operation], finite: tf.Tensor) -> tf.Operation:
        """:return: the op that runs ``apply_fn()``'s update when ``finite`` and then updates the scale"""
        apply_op = tf.cond(finite, lambda: _as_cond_output(apply_fn()), lambda: tf.constant(False))

        def grow_or_count():
            good = self.good_steps + 1
            grow = good >= self.growth_interval
            return tf.group(self.scale.assign(tf.where(grow, self.scale * 2.0, self.scale)),
                            self.good_steps.assign(tf.where(grow, tf.zeros_like(good), good)))

        def shrink():
            return tf.group(self.scale.assign(tf.maximum(self.scale * 0.5, 1.0)),
                            self.good_steps.assign(tf.zeros_like(self.good_steps)))

        with tf.control_dependencies([apply_op]):
            update = tf.cond(finite, lambda: _as_cond_output(grow_or_count()), lambda: _as_cond_output(shrink()))
        return tf.group(apply_op, update)


def _as_cond_output(op: tf.Operation) -> tf.Tensor:
    """:return: a bool tensor that depends on ``op`` (``tf.cond`` branches must return tensors)"""
    with tf.control_dependencies([op]):
        return tf.constant(True)
