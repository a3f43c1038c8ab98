"""Backend selection: ``rf.select_backend_tf()`` (the default here), ``rf.select_backend_numpy()``,
``rf.select_backend_returnn_layers_tf()``, ``rf.select_backend_torch()`` (not provided: a clear error),
``rf.is_executing_eagerly()``."""

from __future__ import annotations

from returnn.errors import FrontendError
from returnn.frontend._backend import get_selected_backend, select_backend

__all__ = ["select_backend", "select_backend_tf", "select_backend_numpy", "select_backend_torch",
           "select_backend_returnn_layers_tf", "select_backend_jax", "is_executing_eagerly", "get_selected_backend"]


def select_backend_tf() -> None:
    """RF ops run as TF graph ops (``backend = "tensorflow"``)."""
    select_backend("tensorflow")


def select_backend_numpy() -> None:
    """Ops without Tensor inputs compute with numpy."""
    select_backend("numpy")


def select_backend_torch() -> None:
    """:raises FrontendError: PyTorch is not a backend of this project"""
    raise FrontendError("select_backend_torch", "the PyTorch backend is not provided by this project",
                        hint="run RF configs with backend = 'tensorflow' or 'tensorflow-net-dict'")


def select_backend_jax() -> None:
    """:raises FrontendError: JAX is not a backend of this project"""
    raise FrontendError("select_backend_jax", "the JAX backend is not provided by this project",
                        hint="run RF configs with backend = 'tensorflow' or 'tensorflow-net-dict'")


def select_backend_returnn_layers_tf() -> None:
    """The net-dict backend (``backend = "tensorflow-net-dict"``), once registered by its module; until then this
    raises FrontendError."""
    select_backend("returnn-layers-tf")


def is_executing_eagerly() -> bool:
    """:return: whether the selected backend computes eagerly (False for TF graph mode)"""
    return get_selected_backend().is_executing_eagerly()
