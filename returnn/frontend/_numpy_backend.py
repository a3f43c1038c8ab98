"""The numpy implementation of :class:`returnn.frontend._backend.Backend` (eager; for Tensors holding numpy arrays,
as the reference's NumPy backend covers the elementwise ops, reductions and shape ops)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from returnn.frontend._backend import Backend

_COMBINE = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide, "floordiv": np.floor_divide,
    "mod": np.mod, "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "squared_difference": lambda a, b: np.square(a - b), "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}
_COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


def _sigmoid(x: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-x))


_ACTIVATIONS = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "square": np.square, "sin": np.sin, "cos": np.cos,
    "tanh": np.tanh, "sigmoid": _sigmoid, "log_sigmoid": lambda x: -np.logaddexp(0, -x),
    "relu": lambda x: np.maximum(x, 0), "relu_square": lambda x: np.square(np.maximum(x, 0)),
    "silu": lambda x: x * _sigmoid(x), "swish": lambda x: x * _sigmoid(x), "softplus": lambda x: np.logaddexp(0, x),
    "logical_not": np.logical_not, "floor": np.floor, "ceil": np.ceil, "round": np.round, "sign": np.sign,
    "reciprocal": np.reciprocal, "is_finite": np.isfinite, "is_infinite": np.isinf, "is_nan": np.isnan,
    "is_neg_infinite": lambda x: np.isneginf(x),
    "safe_log": lambda x: np.log(np.maximum(x, np.finfo(x.dtype).tiny)),
}


class NumpyBackend(Backend):
    """Raw operations on numpy arrays (eager)."""

    name = "numpy"
    RawTensorType = (np.ndarray, np.number, np.bool_)

    def convert(self, value: Any, dtype: Optional[str]) -> Any:
        return np.asarray(value, dtype=dtype)

    def dtype_of(self, raw: Any) -> str:
        return str(np.asarray(raw).dtype)

    def shape_of(self, raw: Any) -> List[Any]:
        return list(np.shape(raw))

    def ndim_of(self, raw: Any) -> int:
        return np.ndim(raw)

    def transpose(self, raw: Any, perm: Sequence[int]) -> Any:
        return np.transpose(raw, perm)

    def expand_dims(self, raw: Any, axis: int) -> Any:
        return np.expand_dims(raw, axis)

    def reshape(self, raw: Any, shape: Sequence[Any]) -> Any:
        return np.reshape(raw, [int(s) for s in shape])

    def broadcast_to(self, raw: Any, shape: Sequence[Any]) -> Any:
        return np.broadcast_to(raw, [int(s) for s in shape])

    def cast(self, raw: Any, dtype: str) -> Any:
        return np.asarray(raw).astype(dtype)

    def fill(self, shape: Sequence[Any], value: Any, dtype: str) -> Any:
        return np.full([int(s) for s in shape], value, dtype=dtype)

    def range(self, start: Any, limit: Any, delta: Any, dtype: str) -> Any:
        return np.arange(start, limit, delta, dtype=dtype)

    def combine(self, a: Any, kind: str, b: Any) -> Any:
        out = _COMBINE[kind](a, b)
        return np.asarray(out).astype(np.result_type(a, b)) if kind != "truediv" else np.asarray(out)

    def compare(self, a: Any, kind: str, b: Any) -> Any:
        return np.asarray(_COMPARE[kind](a, b))

    def activation(self, raw: Any, func: str) -> Any:
        out = np.asarray(_ACTIVATIONS[func](raw))
        if func == "abs" and np.iscomplexobj(raw):
            return out  # the magnitude: float32 for complex64
        return out.astype(raw.dtype if func not in (
            "logical_not", "is_finite", "is_infinite", "is_nan", "is_neg_infinite") else bool)

    def where(self, cond: Any, x: Any, y: Any) -> Any:
        return np.where(cond, x, y)

    def clip_by_value(self, raw: Any, low: Any, high: Any) -> Any:
        return np.clip(raw, low, high)

    def softmax(self, raw: Any, axis: int, log: bool) -> Any:
        m = np.max(raw, axis=axis, keepdims=True)
        z = raw - np.where(np.isfinite(m), m, 0)
        lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
        return (z - lse) if log else np.exp(z - lse)

    def reduce(self, raw: Any, mode: str, axes: Sequence[int]) -> Any:
        axes = tuple(axes)
        if mode in ("argmax", "argmin"):
            return (np.argmax if mode == "argmax" else np.argmin)(raw, axis=axes[0]).astype("int32")
        if mode == "logsumexp":
            m = np.max(raw, axis=axes, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
            return np.log(np.sum(np.exp(raw - m), axis=axes)) + np.squeeze(m, axis=axes)
        fn = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "all": np.all, "any": np.any,
              "prod": np.prod}[mode]
        return np.asarray(fn(raw, axis=axes)).astype(raw.dtype if mode not in ("all", "any") else bool)

    def gather(self, raw: Any, indices: Any, axis: int, batch_dims: int) -> Any:
        if batch_dims == 0:
            return np.take(raw, indices, axis=axis)
        return np.stack([self.gather(r, i, axis - 1, batch_dims - 1) for r, i in zip(raw, indices)])

    def concat(self, raws: Sequence[Any], axis: int) -> Any:
        return np.concatenate(list(raws), axis=axis)

    def stop_gradient(self, raw: Any) -> Any:
        return raw

    def identity(self, raw: Any) -> Any:
        return raw

    def cumsum(self, raw: Any, axis: int, reverse: bool) -> Any:
        if reverse:
            return np.flip(np.cumsum(np.flip(raw, axis), axis=axis), axis)
        return np.cumsum(raw, axis=axis)

    def stft(self, raw: Any, *, frame_length: int, frame_step: int, fft_length: int) -> Any:
        num = max(0, 1 + (raw.shape[-1] - frame_length) // frame_step)
        # periodic Hann as TF's: the period is the length rounded up to even (odd lengths: symmetric)
        period = frame_length - 1 if frame_length % 2 else frame_length
        window = (0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(frame_length) / max(period, 1))).astype(raw.dtype) \
            if frame_length > 1 else np.ones([1], raw.dtype)
        frames = np.stack([raw[..., i * frame_step:i * frame_step + frame_length] for i in range(num)], axis=-2) \
            if num else np.zeros(raw.shape[:-1] + (0, frame_length), raw.dtype)
        out = np.fft.rfft(frames * window, n=fft_length, axis=-1)
        return out.astype("complex64" if raw.dtype == np.float32 else "complex128")

    def is_executing_eagerly(self) -> bool:
        return True
