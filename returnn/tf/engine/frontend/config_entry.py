"""RF configs: how they are recognised, their entry points, and one clear error per user mistake.

A config is an RF config when it defines a callable ``get_model`` and neither ``network`` nor ``get_network``
(those select the layer engine, as in the reference).
"""

from __future__ import annotations

from typing import Any, Callable

from returnn.errors import ConfigValueError
from returnn.options import FrontendOptions, PretrainOptions, RunOptions

#: the task → the step function it runs
STEP_FUNC_OF_TASK = {"train": "train_step", "eval": "train_step", "forward": "forward_step",
                     "search": "forward_step", "compute_priors": "forward_step"}


def is_rf_model(run: RunOptions, frontend: FrontendOptions) -> bool:
    """Whether the parsed keys describe an RF model (see module doc)."""
    if run.network is not None or callable(run.get_network):
        return False
    return callable(frontend.get_model)


def is_rf_config(config) -> bool:
    """Whether ``config`` (None: no) describes an RF model (see module doc)."""
    return config is not None and is_rf_model(RunOptions.from_config(config), FrontendOptions.from_config(config))


def step_func_name(*, train: bool, eval_flag: bool) -> str:
    """``train_step`` for training and scoring graphs (losses), else ``forward_step`` (outputs)."""
    return "train_step" if (train or eval_flag) else "forward_step"


def get_step_func(frontend: FrontendOptions, name: str) -> Callable[..., Any]:
    """Config ``name`` (``train_step`` or ``forward_step``).

    :param frontend: the parsed step functions
    :raises ConfigValueError: not defined or not callable (names the function and the signature expected)
    """
    func = getattr(frontend, name)
    if not callable(func):
        raise ConfigValueError(name, expected="a function %s(*, model, extern_data, **kwargs) for an RF model "
                                              "(get_model); the task needs it" % name,
                               got=func if func is not None else None)
    return func


def check_config(config) -> None:
    """The checks that apply to an RF config before anything is built (nothing for a layer config), see
    :func:`check_options`."""
    check_options(RunOptions.from_config(config), FrontendOptions.from_config(config),
                  PretrainOptions.from_config(config))


def check_options(run: RunOptions, frontend: FrontendOptions, pretrain_options: PretrainOptions) -> None:
    """The checks that apply to an RF model before anything is built (nothing for a layer config).

    :raises ConfigValueError: ``pretrain`` set with an RF model (the reference has no pretrain for RF models)
    """
    if not is_rf_model(run, frontend):
        return
    pretrain = pretrain_options.pretrain
    if pretrain not in (None, False, "", {}):
        raise ConfigValueError("pretrain", expected="no pretrain with an RF model (get_model): the model of every "
                                                    "epoch is the one get_model returns", got=pretrain)


def check_model(model: Any) -> Any:
    """``model`` as ``get_model`` returned it.

    :raises ConfigValueError: not an ``rf.Module``
    """
    import returnn.frontend as rf

    if not isinstance(model, rf.Module):
        raise ConfigValueError("get_model", expected="get_model(*, epoch, step, **kwargs) to return an rf.Module",
                               got=type(model).__name__ if model is not None else None)
    return model
