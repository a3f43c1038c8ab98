"""The backend interface that every ``returnn.frontend`` operation dispatches through, and the backend registry.

An operation in ``returnn.frontend`` does the dims logic itself (which dims the result has, in which order the axes
of each raw input must be) and hands raw tensors with integer axes to a :class:`Backend`. A backend implements these
raw operations for one framework: :class:`returnn.tf.frontend_low_level.TFBackend` builds TF graph ops,
:class:`returnn.frontend._numpy_backend.NumpyBackend` computes with numpy.

Which backend: for an operation on Tensors, the one of their raw tensors' type (:func:`get_backend_by_raw`); for one
without Tensor inputs (``rf.zeros``, ``rf.random_uniform``, parameter initialisation), the selected one
(:func:`select_backend`, default ``"tensorflow"``: this project runs RF code as TF graph ops).
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

from returnn.errors import FrontendError


class Backend:
    """Raw tensor operations of one framework. Axes are ints into the raw tensor's shape; dtypes are strings
    (``"float32"``, ``"int32"``, ``"bool"``, ...). Every method raises NotImplementedError here."""

    name = "abstract"
    RawTensorType: Any = object

    def _missing(self, op: str) -> Any:
        raise NotImplementedError(f"returnn.frontend backend {self.name!r} does not implement {op!r}")

    def cache_key(self) -> Any:
        """:return: a weak-referenceable key of the current computation (a TF graph), or None (numpy: no cache)"""
        return None

    # ---- conversion and shapes
    def is_raw(self, x: Any) -> bool:
        """:return: whether ``x`` is a raw tensor of this backend"""
        return isinstance(x, self.RawTensorType)

    def convert(self, value: Any, dtype: Optional[str]) -> Any:
        """:return: raw tensor of ``value`` (scalar, numpy array, raw tensor), cast to ``dtype`` if given"""
        return self._missing("convert")

    def dtype_of(self, raw: Any) -> str:
        return self._missing("dtype_of")

    def shape_of(self, raw: Any) -> List[Any]:
        """:return: per axis the static int if known, else a raw int32 scalar"""
        return self._missing("shape_of")

    def ndim_of(self, raw: Any) -> int:
        return self._missing("ndim_of")

    def transpose(self, raw: Any, perm: Sequence[int]) -> Any:
        return self._missing("transpose")

    def expand_dims(self, raw: Any, axis: int) -> Any:
        return self._missing("expand_dims")

    def reshape(self, raw: Any, shape: Sequence[Any]) -> Any:
        return self._missing("reshape")

    def broadcast_to(self, raw: Any, shape: Sequence[Any]) -> Any:
        return self._missing("broadcast_to")

    def cast(self, raw: Any, dtype: str) -> Any:
        return self._missing("cast")

    def fill(self, shape: Sequence[Any], value: Any, dtype: str) -> Any:
        return self._missing("fill")

    def range(self, start: Any, limit: Any, delta: Any, dtype: str) -> Any:
        return self._missing("range")

    # ---- elementwise
    def combine(self, a: Any, kind: str, b: Any) -> Any:
        """Binary elementwise op on raw tensors of broadcastable shapes (``kind``: see ``rf.combine``)."""
        return self._missing("combine")

    def compare(self, a: Any, kind: str, b: Any) -> Any:
        return self._missing("compare")

    def activation(self, raw: Any, func: str) -> Any:
        """Unary elementwise function by name (``"exp"``, ``"relu"``, ``"neg"``, ``"logical_not"``, ...)."""
        return self._missing("activation")

    def where(self, cond: Any, x: Any, y: Any) -> Any:
        return self._missing("where")

    def clip_by_value(self, raw: Any, low: Any, high: Any) -> Any:
        return self._missing("clip_by_value")

    def softmax(self, raw: Any, axis: int, log: bool) -> Any:
        return self._missing("softmax")

    # ---- reductions, indexing, shape ops
    def reduce(self, raw: Any, mode: str, axes: Sequence[int]) -> Any:
        """``mode``: sum, mean, max, min, logsumexp, all, any, prod; argmax/argmin take exactly one axis."""
        return self._missing("reduce")

    def gather(self, raw: Any, indices: Any, axis: int, batch_dims: int) -> Any:
        return self._missing("gather")

    def concat(self, raws: Sequence[Any], axis: int) -> Any:
        return self._missing("concat")

    def pad(self, raw: Any, paddings: Sequence[Tuple[Any, Any]], mode: str, value: Any) -> Any:
        return self._missing("pad")

    def slice(self, raw: Any, axis: int, start: Any, size: Any, step: int) -> Any:
        return self._missing("slice")

    def split(self, raw: Any, axis: int, sizes: Sequence[int]) -> List[Any]:
        """:return: consecutive parts of ``axis`` of the static ``sizes`` (summing to its size); here by
        :meth:`slice`, a backend may do it in one op"""
        parts, start = [], 0
        for size in sizes:
            parts.append(self.slice(raw, axis, start, size, 1))
            start += size
        return parts

    def einsum(self, equation: str, a: Any, b: Any) -> Any:
        return self._missing("einsum")

    def cumsum(self, raw: Any, axis: int, reverse: bool) -> Any:
        return self._missing("cumsum")

    def top_k(self, raw: Any, k: Any) -> Tuple[Any, Any]:
        """Over the last axis. :return: values, int32 indices"""
        return self._missing("top_k")

    def reverse_sequence(self, raw: Any, lengths: Any, seq_axis: int, batch_axis: int) -> Any:
        return self._missing("reverse_sequence")

    def boolean_mask(self, raw: Any, mask: Any) -> Any:
        """``mask`` covers the first ``mask.ndim`` axes of ``raw``, which are flattened into one (the kept ones)."""
        return self._missing("boolean_mask")

    def scatter_nd(self, indices: Any, updates: Any, shape: Sequence[Any], mode: str) -> Any:
        return self._missing("scatter_nd")

    def where_indices(self, mask: Any) -> Any:
        """:return: int ``[N, mask.ndim]``, the positions where ``mask`` is true (row-major order)"""
        return self._missing("where_indices")

    # ---- neural network ops
    def conv(self, raw: Any, filter_raw: Any, *, n_spatial: int, padding: str, strides: Sequence[int],
             dilation_rate: Sequence[int], groups: int) -> Any:
        """``raw``: ``[batch..., spatial..., in]`` with one batch axis; filter ``[spatial..., in/groups, out]``."""
        return self._missing("conv")

    def pool(self, raw: Any, *, mode: str, pool_size: Sequence[int], padding: str, strides: Sequence[int],
             dilation_rate: Sequence[int]) -> Any:
        return self._missing("pool")

    def random(self, shape: Sequence[Any], distribution: str, dtype: str, *, minval: Any = None, maxval: Any = None,
               mean: Any = None, stddev: Any = None, seed: Optional[int] = None) -> Any:
        return self._missing("random")

    def stop_gradient(self, raw: Any) -> Any:
        return self._missing("stop_gradient")

    def identity(self, raw: Any) -> Any:
        return self._missing("identity")

    def stft(self, raw: Any, *, frame_length: int, frame_step: int, fft_length: int) -> Any:
        """Over the last axis (periodic Hann window): ``[..., frames, fft_length // 2 + 1]`` complex64"""
        return self._missing("stft")

    def gradient(self, y: Any, x: Any) -> Any:
        """:return: d sum(y) / d x (zeros where y does not depend on x)"""
        return self._missing("gradient")

    def label_smoothed_gradient(self, raw: Any, smoothing: Any, axis: int, num_labels: int,
                                keep: Any = None) -> Any:
        """:return: ``raw`` in the forward pass; the incoming gradient ``g`` becomes, over ``axis`` (``K`` =
        ``num_labels``), ``(1 - s) * g_j + s / (K - 1) * (-sum_i |g_i| - g_j)``; where the bool ``keep`` (broadcast
        to ``raw``) is False, only ``(1 - s) * g_j``, and those labels are not in the sum"""
        return self._missing("label_smoothed_gradient")

    def ctc_loss(self, logits: Any, logits_lens: Any, targets: Any, target_lens: Any, blank_index: int) -> Any:
        """``logits``: ``[T, B, C]`` (time major), ``targets``: ``[B, S]``. :return: ``[B]`` negative log prob"""
        return self._missing("ctc_loss")

    def edit_distance(self, a: Any, a_lens: Any, b: Any, b_lens: Any) -> Any:
        return self._missing("edit_distance")

    # ---- control flow
    def cond(self, pred: Any, true_fn: Any, false_fn: Any) -> Any:
        return self._missing("cond")

    def while_loop(self, cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None) -> Any:
        """``loop_vars``: a list of raw tensors/tensor arrays; ``shape_invariants``: per var a list of static sizes
        (None: varies) or None"""
        return self._missing("while_loop")

    # ---- tensor arrays (a growing list of raw tensors of one shape, also as loop state)
    def tensor_array_new(self, dtype: str, element_shape: Any) -> Any:
        return self._missing("tensor_array_new")

    def tensor_array_push(self, ta: Any, value: Any) -> Any:
        return self._missing("tensor_array_push")

    def tensor_array_read(self, ta: Any, index: Any) -> Any:
        return self._missing("tensor_array_read")

    def tensor_array_stack(self, ta: Any) -> Any:
        """:return: ``[n, element...]``"""
        return self._missing("tensor_array_stack")

    def tensor_array_unstack(self, raw: Any) -> Any:
        return self._missing("tensor_array_unstack")

    def tensor_array_size(self, ta: Any) -> Any:
        return self._missing("tensor_array_size")

    def is_executing_eagerly(self) -> bool:
        return False

    def with_assignments(self, raw: Any, assignments: Any) -> Any:
        """:return: ``raw``, computed after assigning each ``(variable, value)`` (e.g. running statistics)"""
        return self._missing("with_assignments")


_BACKENDS_BY_NAME: Dict[str, Tuple[str, str]] = {
    "tensorflow": ("returnn.tf.frontend_low_level", "TFBackend"),
    "numpy": ("returnn.frontend._numpy_backend", "NumpyBackend"),
}


def register_backend(name: str, module_name: str, class_name: str) -> None:
    """Makes the backend class ``module_name.class_name`` selectable as ``name`` (imported on first use), e.g. the
    net-dict backend as ``"returnn-layers-tf"``."""
    _BACKENDS_BY_NAME[name] = (module_name, class_name)
_ALIASES = {"tf": "tensorflow", "tensorflow-low-level": "tensorflow"}
_instances: Dict[str, Backend] = {}
_by_raw_type: Dict[type, Backend] = {}
_selected: List[str] = ["tensorflow"]


def get_backend_by_name(name: str) -> Backend:
    """:return: the backend instance (imported on first use)

    :raises FrontendError: an unknown name (``"torch"`` and ``"jax"`` are not provided by this project)
    """
    name = _ALIASES.get(name, name)
    if name not in _instances:
        if name not in _BACKENDS_BY_NAME:
            raise FrontendError("select_backend", f"backend {name!r} is not provided by this project",
                                expected=", ".join(sorted(_BACKENDS_BY_NAME)),
                                hint="this project runs RF code on TensorFlow (backend='tensorflow' or "
                                     "'tensorflow-net-dict'); there is no PyTorch or JAX backend")
        module_name, cls_name = _BACKENDS_BY_NAME[name]
        cls: Type[Backend] = getattr(importlib.import_module(module_name), cls_name)
        _instances[name] = cls()
    return _instances[name]


def select_backend(name: str) -> None:
    """Selects the backend of operations without Tensor inputs (``rf.zeros``, random ops, initialisation)."""
    get_backend_by_name(name)
    _selected[0] = _ALIASES.get(name, name)


def get_selected_backend() -> Backend:
    """:return: the selected backend (default: TensorFlow)"""
    return get_backend_by_name(_selected[0])


def get_backend_by_raw(raw: Any) -> Backend:
    """:return: the backend whose raw tensor type ``raw`` is (numpy arrays and scalars: numpy; TF tensors,
    variables: TensorFlow)"""
    tp = type(raw)
    backend = _by_raw_type.get(tp)
    if backend is None:
        module = tp.__module__ or ""
        if module.startswith(("tensorflow", "keras")):
            backend = get_backend_by_name("tensorflow")
        elif module.startswith("numpy") or isinstance(raw, (int, float, bool)):
            backend = get_backend_by_name("numpy")
        else:
            raise FrontendError("get_backend_by_raw", "no backend for this raw tensor type",
                                got=f"{tp.__module__}.{tp.__qualname__}",
                                expected="a TensorFlow tensor or a numpy array")
        _by_raw_type[tp] = backend
    return backend


def get_backend_for(*tensors: Any) -> Backend:
    """:return: the backend of the first Tensor among ``tensors`` that has a raw tensor of a framework (not numpy),
    else of the first numpy one, else the selected backend"""
    fallback = None
    for x in tensors:
        raw = getattr(x, "raw_tensor", None)
        if raw is None:
            continue
        backend = get_backend_by_raw(raw)
        if backend.name != "numpy":
            return backend
        fallback = fallback or backend
    return fallback or get_selected_backend()
