"""The TensorFlow implementation of :class:`returnn.frontend._backend.Backend`: each raw operation is a TF graph op
(``tf.compat.v1`` graph mode, as the rest of the project)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf

from returnn.frontend._backend import Backend
from returnn.tf.ops import raw as _raw  # noqa: F401  (installs the raw TF backend of Tensor's copy_* methods)

_COMBINE = {
    "add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "truediv": tf.truediv,
    "floordiv": tf.math.floordiv, "mod": tf.math.floormod, "pow": tf.pow, "maximum": tf.maximum,
    "minimum": tf.minimum, "squared_difference": tf.math.squared_difference, "logical_and": tf.logical_and,
    "logical_or": tf.logical_or, "logical_xor": tf.math.logical_xor,
}
_COMPARE = {
    "equal": tf.equal, "not_equal": tf.not_equal, "less": tf.less, "less_equal": tf.less_equal,
    "greater": tf.greater, "greater_equal": tf.greater_equal,
}


def _relu_square(x: Any) -> Any:
    return tf.square(tf.nn.relu(x))


def _safe_log(x: Any) -> Any:
    return tf.math.log(tf.maximum(x, tf.constant(np.finfo(x.dtype.as_numpy_dtype).tiny, x.dtype)))


_ACTIVATIONS = {
    "neg": tf.negative, "abs": tf.abs, "exp": tf.exp, "expm1": tf.math.expm1, "log": tf.math.log,
    "log1p": tf.math.log1p, "safe_log": _safe_log, "sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt, "square": tf.square,
    "sin": tf.sin, "cos": tf.cos, "tanh": tf.tanh, "sigmoid": tf.sigmoid, "log_sigmoid": tf.math.log_sigmoid,
    "relu": tf.nn.relu, "relu_square": _relu_square, "elu": tf.nn.elu, "selu": tf.nn.selu,
    "gelu": lambda x: tf.nn.gelu(x, approximate=False), "gelu_tanh": lambda x: tf.nn.gelu(x, approximate=True),
    "silu": tf.nn.silu, "swish": tf.nn.silu, "softplus": tf.nn.softplus, "logical_not": tf.logical_not,
    "floor": tf.floor, "ceil": tf.math.ceil, "round": tf.round, "sign": tf.sign, "reciprocal": tf.math.reciprocal,
    "is_finite": tf.math.is_finite, "is_infinite": tf.math.is_inf, "is_nan": tf.math.is_nan,
    "is_neg_infinite": lambda x: tf.logical_and(tf.math.is_inf(x), x < 0),
}

_REDUCE = {
    "sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max, "min": tf.reduce_min,
    "logsumexp": tf.reduce_logsumexp, "all": tf.reduce_all, "any": tf.reduce_any, "prod": tf.reduce_prod,
}


class TFBackend(Backend):
    """Raw operations as TF graph ops."""

    name = "tensorflow"
    RawTensorType = (tf.Tensor, tf.Variable)

    def cache_key(self) -> Any:
        return tf.compat.v1.get_default_graph()

    def is_raw(self, x: Any) -> bool:
        return isinstance(x, (tf.Tensor, tf.Variable)) or tf.is_tensor(x)

    def convert(self, value: Any, dtype: Optional[str]) -> Any:
        if self.is_raw(value):
            return value if dtype is None or value.dtype.name == dtype else tf.cast(value, dtype)
        if dtype is not None and isinstance(value, (float, np.floating)) and not dtype.startswith(("float", "bfloat")):
            return tf.cast(tf.constant(value), dtype)
        return tf.constant(value, dtype=dtype)

    def dtype_of(self, raw: Any) -> str:
        return raw.dtype.base_dtype.name

    def shape_of(self, raw: Any) -> List[Any]:
        static = raw.shape.as_list() if raw.shape.rank is not None else None
        if static is not None and all(s is not None for s in static):
            return static
        dyn = tf.shape(raw)
        return [s if s is not None else dyn[i] for i, s in enumerate(static)] if static is not None else \
            [dyn[i] for i in range(self.ndim_of(raw))]

    def ndim_of(self, raw: Any) -> int:
        return raw.shape.rank

    def transpose(self, raw: Any, perm: Sequence[int]) -> Any:
        return tf.transpose(raw, list(perm))

    def expand_dims(self, raw: Any, axis: int) -> Any:
        return tf.expand_dims(raw, axis)

    def reshape(self, raw: Any, shape: Sequence[Any]) -> Any:
        return tf.reshape(raw, _shape_arg(shape))

    def broadcast_to(self, raw: Any, shape: Sequence[Any]) -> Any:
        return tf.broadcast_to(raw, _shape_arg(shape))

    def cast(self, raw: Any, dtype: str) -> Any:
        return tf.cast(raw, dtype)

    def fill(self, shape: Sequence[Any], value: Any, dtype: str) -> Any:
        value = self.convert(value, dtype)
        return tf.fill(_shape_arg(shape), value) if len(shape) else value

    def range(self, start: Any, limit: Any, delta: Any, dtype: str) -> Any:
        return tf.range(start, limit, delta, dtype=dtype)

    def combine(self, a: Any, kind: str, b: Any) -> Any:
        return _COMBINE[kind](a, b)

    def compare(self, a: Any, kind: str, b: Any) -> Any:
        return _COMPARE[kind](a, b)

    def activation(self, raw: Any, func: str) -> Any:
        return _ACTIVATIONS[func](raw)

    def where(self, cond: Any, x: Any, y: Any) -> Any:
        return tf.where(cond, x, y)

    def clip_by_value(self, raw: Any, low: Any, high: Any) -> Any:
        return tf.clip_by_value(raw, low, high)

    def softmax(self, raw: Any, axis: int, log: bool) -> Any:
        return (tf.nn.log_softmax if log else tf.nn.softmax)(raw, axis=axis)

    def reduce(self, raw: Any, mode: str, axes: Sequence[int]) -> Any:
        if mode in ("argmax", "argmin"):
            (axis,) = axes
            return (tf.argmax if mode == "argmax" else tf.argmin)(raw, axis=axis, output_type=tf.int32)
        return _REDUCE[mode](raw, axis=list(axes))

    def gather(self, raw: Any, indices: Any, axis: int, batch_dims: int) -> Any:
        return tf.gather(raw, indices, axis=axis, batch_dims=batch_dims)

    def concat(self, raws: Sequence[Any], axis: int) -> Any:
        return tf.concat(list(raws), axis=axis)

    def pad(self, raw: Any, paddings: Sequence[Tuple[Any, Any]], mode: str, value: Any) -> Any:
        paddings = [[p[0], p[1]] for p in paddings]
        if mode == "constant":
            return tf.pad(raw, paddings, constant_values=tf.cast(value if value is not None else 0, raw.dtype))
        return tf.pad(raw, paddings, mode=mode.upper())

    def slice(self, raw: Any, axis: int, start: Any, size: Any, step: int) -> Any:
        ndim = self.ndim_of(raw)
        begin = [0] * ndim
        begin[axis] = start
        if step == 1:
            sizes = [-1] * ndim
            sizes[axis] = size
            return tf.slice(raw, tf.stack(begin) if not all(isinstance(b, int) for b in begin) else begin,
                            tf.stack(sizes) if not all(isinstance(s, int) for s in sizes) else sizes)
        idx = tf.range(start, start + size * step, step) if size is not None else None
        return tf.gather(raw, idx, axis=axis)

    def split(self, raw: Any, axis: int, sizes: Sequence[int]) -> List[Any]:
        """One ``SplitV`` (its gradient one concat; slices would each pad their gradient to the full size, and
        those pads are summed)."""
        return tf.split(raw, list(sizes), axis=axis)

    def einsum(self, equation: str, a: Any, b: Any) -> Any:
        return tf.einsum(equation, a, b)

    def cumsum(self, raw: Any, axis: int, reverse: bool) -> Any:
        return tf.cumsum(raw, axis=axis, reverse=reverse)

    def top_k(self, raw: Any, k: Any) -> Tuple[Any, Any]:
        values, indices = tf.math.top_k(raw, k=k, sorted=True)
        return values, indices

    def reverse_sequence(self, raw: Any, lengths: Any, seq_axis: int, batch_axis: int) -> Any:
        return tf.reverse_sequence(raw, lengths, seq_axis=seq_axis, batch_axis=batch_axis)

    def boolean_mask(self, raw: Any, mask: Any) -> Any:
        return tf.boolean_mask(raw, mask)

    def scatter_nd(self, indices: Any, updates: Any, shape: Sequence[Any], mode: str) -> Any:
        shape = tf.cast(_shape_arg(shape), indices.dtype)
        if mode == "sum":
            return tf.scatter_nd(indices, updates, shape)
        init = tf.fill(shape, tf.constant(updates.dtype.min if mode == "max" else updates.dtype.max, updates.dtype))
        fn = tf.tensor_scatter_nd_max if mode == "max" else tf.tensor_scatter_nd_min
        return fn(init, indices, updates)

    def where_indices(self, mask: Any) -> Any:
        return tf.cast(tf.where(mask), tf.int32)

    def conv(self, raw: Any, filter_raw: Any, *, n_spatial: int, padding: str, strides: Sequence[int],
             dilation_rate: Sequence[int], groups: int) -> Any:
        def _conv(x: Any, f: Any) -> Any:
            return tf.nn.convolution(x, f, padding=padding.upper(), strides=list(strides),
                                     dilations=list(dilation_rate))
        if groups == 1 or n_spatial <= 2 and filter_raw.shape[-2] is not None and raw.shape[-1] is not None and \
                filter_raw.shape[-2] * groups == raw.shape[-1]:
            # TF's convolution groups by itself when the filter has in_channels / groups inputs (one kernel
            # instead of one per group: the conformer's depthwise convolution had 96 per block)
            return _conv(raw, filter_raw)
        xs = tf.split(raw, groups, axis=-1)
        fs = tf.split(filter_raw, groups, axis=-1)
        return tf.concat([_conv(x, f) for x, f in zip(xs, fs)], axis=-1)

    def pool(self, raw: Any, *, mode: str, pool_size: Sequence[int], padding: str, strides: Sequence[int],
             dilation_rate: Sequence[int]) -> Any:
        return tf.nn.pool(raw, window_shape=list(pool_size), pooling_type=mode.upper(), padding=padding.upper(),
                          strides=list(strides), dilations=list(dilation_rate))

    def random(self, shape: Sequence[Any], distribution: str, dtype: str, *, minval: Any = None, maxval: Any = None,
               mean: Any = None, stddev: Any = None, seed: Optional[int] = None) -> Any:
        shape = _shape_arg(shape)
        if distribution == "uniform":
            return tf.random.uniform(shape, minval=0 if minval is None else minval,
                                     maxval=1 if maxval is None and not dtype.startswith("int") else maxval,
                                     dtype=dtype, seed=seed)
        if distribution == "normal":
            return tf.random.normal(shape, mean=0.0 if mean is None else mean, stddev=1.0 if stddev is None else stddev,
                                    dtype=dtype, seed=seed)
        if distribution == "truncated_normal":
            return tf.random.truncated_normal(shape, mean=0.0 if mean is None else mean,
                                              stddev=1.0 if stddev is None else stddev, dtype=dtype, seed=seed)
        raise ValueError(f"unknown distribution {distribution!r}")

    def random_with_state(self, shape: Sequence[Any], distribution: str, dtype: str, *, state_name: str,
                          seed: Optional[int] = None, **kwargs: Any) -> Any:
        """As :meth:`random`, drawn from the generator state variable ``state_name`` (created once per graph, key
        ``seed``; :mod:`.random_state`)"""
        from returnn.tf.frontend_low_level.random_state import draw_with_state, state_variable
        return draw_with_state(state_variable(state_name, seed), _shape_arg(shape), distribution, dtype, **kwargs)

    def stop_gradient(self, raw: Any) -> Any:
        return tf.stop_gradient(raw)

    def identity(self, raw: Any) -> Any:
        return tf.identity(raw)

    def stft(self, raw: Any, *, frame_length: int, frame_step: int, fft_length: int) -> Any:
        return tf.signal.stft(raw, frame_length=frame_length, frame_step=frame_step, fft_length=fft_length)

    def gradient(self, y: Any, x: Any) -> Any:
        (grad,) = tf.gradients(tf.reduce_sum(y), [x])
        return tf.zeros_like(x) if grad is None else tf.convert_to_tensor(grad)

    def label_smoothed_gradient(self, raw: Any, smoothing: Any, axis: int, num_labels: int,
                                keep: Any = None) -> Any:
        s = tf.cast(smoothing, raw.dtype)

        @tf.custom_gradient
        def _op(x):
            def _grad(dy):
                mask = None if keep is None else tf.broadcast_to(keep, tf.shape(dy))
                abs_dy = tf.abs(dy) if mask is None else tf.where(mask, tf.abs(dy), tf.zeros_like(dy))
                spread = (s / float(num_labels - 1)) * (-tf.reduce_sum(abs_dy, axis=axis, keepdims=True) - dy)
                if mask is not None:
                    spread = tf.where(mask, spread, tf.zeros_like(spread))
                return (1.0 - s) * dy + spread
            return tf.identity(x), _grad

        return _op(raw)

    def ctc_loss(self, logits: Any, logits_lens: Any, targets: Any, target_lens: Any, blank_index: int) -> Any:
        """TF's ``CTCLoss`` kernel (sparse labels, the blank last: the classes are rotated when it is not).
        ``tf.nn.ctc_loss`` with dense labels would build the forward-backward sums as while loops of small ops
        (``ctc_loss_dense``), about twice the CPU of the whole conformer step's kernel time here."""
        num_classes = logits.shape[-1]
        last = num_classes - 1 if num_classes is not None else None
        if blank_index != last:  # move the blank to the end, and the labels above it one down
            logits = tf.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                                logits[:, :, blank_index:blank_index + 1]], axis=2)
            targets = tf.where(targets > blank_index, targets - 1, targets)
        mask = tf.sequence_mask(target_lens, maxlen=tf.shape(targets)[1])
        idx = tf.where(mask)
        labels = tf.SparseTensor(idx, tf.gather_nd(targets, idx), tf.cast(tf.shape(targets), tf.int64))
        dtype = logits.dtype
        if dtype not in (tf.float32, tf.float64):  # the kernel has float32 and float64 only
            logits = tf.cast(logits, tf.float32)
        loss = tf.compat.v1.nn.ctc_loss(labels=labels, inputs=logits, sequence_length=logits_lens,
                                        preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                                        ignore_longer_outputs_than_inputs=True, time_major=True)
        return loss if loss.dtype == dtype else tf.cast(loss, dtype)

    def edit_distance(self, a: Any, a_lens: Any, b: Any, b_lens: Any) -> Any:
        def _sparse(x: Any, lens: Any) -> Any:
            mask = tf.sequence_mask(lens, maxlen=tf.shape(x)[1])
            idx = tf.where(mask)
            return tf.SparseTensor(idx, tf.gather_nd(x, idx), tf.cast(tf.shape(x), tf.int64))
        return tf.cast(tf.edit_distance(_sparse(a, a_lens), _sparse(b, b_lens), normalize=False), tf.int32)

    def cond(self, pred: Any, true_fn: Any, false_fn: Any) -> Any:
        return tf.cond(pred, true_fn, false_fn)

    def while_loop(self, cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None) -> Any:
        if shape_invariants is not None:
            shape_invariants = [tf.TensorShape(s) if isinstance(s, list) else s for s in shape_invariants]
        return tf.compat.v1.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                                       back_prop=True, parallel_iterations=1)

    def tensor_array_new(self, dtype: str, element_shape: Any) -> Any:
        return tf.TensorArray(dtype=dtype, size=0, dynamic_size=True, element_shape=tf.TensorShape(element_shape),
                              clear_after_read=False, infer_shape=False)

    def tensor_array_push(self, ta: Any, value: Any) -> Any:
        return ta.write(ta.size(), value)

    def tensor_array_read(self, ta: Any, index: Any) -> Any:
        return ta.read(index)

    def tensor_array_stack(self, ta: Any) -> Any:
        return ta.stack()

    def tensor_array_unstack(self, raw: Any) -> Any:
        ta = tf.TensorArray(dtype=raw.dtype, size=tf.shape(raw)[0], clear_after_read=False, infer_shape=False,
                            element_shape=raw.shape[1:])
        return ta.unstack(raw)

    def tensor_array_size(self, ta: Any) -> Any:
        return ta.size()

    def is_executing_eagerly(self) -> bool:
        return tf.executing_eagerly()

    def with_assignments(self, raw: Any, assignments: Any) -> Any:
        """:return: ``raw`` that, when computed, first assigns each ``(variable, value)``"""
        ops = [tf.compat.v1.assign(var, value) for var, value in assignments]
        with tf.control_dependencies(ops):
            return tf.identity(raw)

    # ---- the reference's class-level API of its TF backend, for RF code that calls it
    @staticmethod
    def deferred_parameter_creation() -> Any:
        """A context in which modules are made; here parameters always get their variables later (no-op)."""
        import contextlib
        return contextlib.nullcontext()

    @staticmethod
    def create_parameters(module: Any) -> Any:
        """Creates the variables of ``module``'s parameters (named ``a/b/param``, as the reference's TF backend)."""
        from returnn.tf.frontend_low_level.variables import create_parameter_variables
        return create_parameter_variables(module)

    @staticmethod
    def get_parameter_variable(param: Any) -> Any:
        """:return: the variable of ``param``"""
        return param.raw_tensor


def _shape_arg(shape: Sequence[Any]) -> Any:
    """A shape list that may mix ints and raw int scalars (of int32 or int64)."""
    if all(isinstance(s, (int, np.integer)) for s in shape):
        return [int(s) for s in shape]
    return tf.stack([tf.cast(s, tf.int32) if tf.is_tensor(s) else tf.constant(int(s), tf.int32) for s in shape])
