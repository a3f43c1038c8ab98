"""Weight dropout and weight noise as parametrizations (applied in training, when the run context's train flag is
set): ``rf.weight_dropout(module, "weight", drop_prob=...)``, ``rf.weight_noise(module, "weight", std=...)``."""

from __future__ import annotations

from typing import Any

from returnn.frontend.module import Module
from returnn.frontend.parametrize import register_parametrization

__all__ = ["weight_dropout", "weight_noise"]


def weight_dropout(module: Module, param_name: str, *, drop_prob: float) -> Module:
    """:return: ``module``, whose ``param_name`` gets dropout with ``drop_prob`` in training"""
    from returnn.frontend.dropout import dropout

    def _fn(param: Any) -> Any:
        return dropout(param, drop_prob)
    return register_parametrization(module, param_name, _fn)


def weight_noise(module: Module, param_name: str, *, std: float) -> Module:
    """:return: ``module``, whose ``param_name`` gets Gaussian noise with ``std`` added in training"""
    from returnn.frontend.cond import cond
    from returnn.frontend.rand import random_normal
    from returnn.frontend.run_ctx import get_run_ctx

    def _fn(param: Any) -> Any:
        train = get_run_ctx().train_flag
        if train is False:
            return param
        noisy = param + random_normal(list(param.dims), stddev=std, dtype=param.dtype)
        return noisy if train is True else cond(train, lambda: noisy, lambda: param)
    return register_parametrization(module, param_name, _fn)
