"""Type aliases of ``returnn.frontend``: ``RawTensorTypes``, ``GetModelFunc``, ``StepFunc``, ``ItemKeyType``."""

from __future__ import annotations

from typing import Any, Callable, Union

from returnn.frontend.module import Module
from returnn.tensor import TensorDict

__all__ = ["RawTensorTypes", "GetModelFunc", "StepFunc", "ItemKeyType"]

RawTensorTypes = Union[int, float, complex, bool, Any]
GetModelFunc = Callable[..., Module]  # get_model(*, epoch: int, step: int, **kwargs) -> Module
StepFunc = Callable[..., None]  # train_step / forward_step(*, model: Module, extern_data: TensorDict, **kwargs)
ItemKeyType = Union[str, int]
del TensorDict
