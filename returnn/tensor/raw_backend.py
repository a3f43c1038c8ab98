"""The few raw-tensor operations :class:`returnn.tensor.Tensor` needs when it holds a placeholder.

``returnn.tensor`` never imports a backend. The TF ops package (``returnn.tf.ops.raw``) installs an
implementation with :func:`set_raw_backend` when it is imported; templates (no placeholder) never need one.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Sequence


class RawBackend(Protocol):
    """Operations on raw (backend) tensors; axes count the batch axis; ``lens`` are int32 ``[B]``."""

    def transpose(self, raw: Any, perm: Sequence[int]) -> Any: ...
    def expand_dims(self, raw: Any, axis: int) -> Any: ...
    def squeeze(self, raw: Any, axis: int) -> Any: ...
    def cast(self, raw: Any, dtype: str) -> Any: ...
    def seq_lens_of_static(self, batch_raw: Any, batch_axis: int, dimension: int) -> Any: ...
    def sequence_mask(self, lens: Any, maxlen: Any) -> Any: ...
    def shape_of(self, raw: Any, axis: int) -> Any: ...
    def reduce_max(self, raw: Any) -> Any: ...
    def reduce_sum(self, raw: Any) -> Any: ...
    def where(self, cond: Any, x: Any, y: Any) -> Any: ...
    def tile(self, raw: Any, multiples: Sequence[Any]) -> Any: ...
    def reshape(self, raw: Any, shape: Sequence[Any]) -> Any: ...
    def current_graph(self) -> Any: ...
    def create_placeholders(self, tensor: Any) -> None: ...
    def flatten_with_seq_len_mask(self, raw: Any, lens: Any, batch_axis: int, time_axis: int) -> Any: ...


_backend: Optional[RawBackend] = None


def set_raw_backend(backend: RawBackend) -> None:
    """Installs the backend used for raw-tensor operations (called by ``returnn.tf.ops.raw``)."""
    global _backend
    _backend = backend


def current_graph() -> Any:
    """:return: the backend's current graph (a key for per-graph caches), or None without a backend"""
    return None if _backend is None else _backend.current_graph()


def get_raw_backend() -> RawBackend:
    """:raises RuntimeError: if no backend is installed (import ``returnn.tf.ops`` first)"""
    if _backend is None:
        raise RuntimeError("no raw tensor backend installed; import returnn.tf.ops first")
    return _backend
