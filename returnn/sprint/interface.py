"""The module RASR (Sprint) loads as its Python trainer/feature scorer: ``init``, ``exit`` and the per-segment calls.

This implementation covers forwarding (``targetMode="forward-only"`` with ``action:forward`` in the config
string): :func:`init` builds the network of the config file for forwarding and loads the model of the given epoch;
:func:`_forward` gives the output layer's posteriors of one segment. With ``action:nop`` :func:`init` reads the
config and creates the engine only (no network, no model loaded; ``Task`` is ``"nop"``), as the reference (observed;
its ``demo-sprint-interface.py`` does this). Training through RASR (the other target modes) is not provided and
raises :class:`returnn.errors.ConfigValueError`.

The config string is RASR's ``key:value,key:value`` list: ``configfile`` (the RETURNN config file), ``action``
(``forward`` or ``nop``), ``epoch`` (load the checkpoint ``<model>.<epoch>``; default: as the config selects it), other keys are set as config
options (``key:value``, the value as a string).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.options import RunOptions

engine: Any = None  # the Engine of the last init, None after exit
config: Optional[Config] = None
InputDim: Optional[int] = None
OutputDim: Optional[int] = None
TargetMode: Optional[str] = None
Task: Optional[str] = None  # the config string's action of the last init ("forward" or "nop")


def _parse_config_str(config_str: str) -> Dict[str, str]:
    """:return: the ``key:value`` pairs of RASR's comma-separated config string
    :raises ConfigValueError: an entry without ``:``"""
    result = {}
    for entry in [e for e in config_str.split(",") if e]:
        if ":" not in entry:
            raise ConfigValueError("sprint config string", expected="comma-separated 'key:value' entries", got=entry)
        key, value = entry.split(":", 1)
        result[key.strip()] = value.strip()
    return result


def init(name: Optional[str] = None, sprint_unit: Optional[str] = None, **kwargs: Any) -> None:
    """RASR's entry point: with ``inputDim``, ``outputDim``, ``config``, ``targetMode`` (the Python trainer's
    arguments) it calls :func:`init_python_trainer`.

    :raises ConfigValueError: other uses (a feature scorer or control module)
    """
    if {"inputDim", "outputDim", "config", "targetMode"} <= set(kwargs):
        init_python_trainer(**kwargs)
        return
    raise ConfigValueError("returnn.sprint.interface.init", expected="the Python trainer's arguments inputDim, "
                           "outputDim, config, targetMode (other RASR uses are not provided)",
                           got={"name": name, "sprint_unit": sprint_unit, **kwargs})


def init_python_trainer(inputDim: int, outputDim: int, config: str, targetMode: str, **kwargs: Any) -> None:
    """Builds the network of ``configfile`` for forwarding and loads its model.

    :param inputDim: the feature dim RASR feeds
    :param outputDim: the number of output classes (posteriors per frame)
    :param config: RASR's config string (see the module docstring)
    :param targetMode: ``"forward-only"``
    :raises ConfigValueError: another target mode, an action other than ``forward``/``nop``, or no ``configfile``
    """
    global engine, InputDim, OutputDim, TargetMode, Task
    import returnn.sprint.interface as this  # the module-level ``config`` is shadowed by the argument here

    if targetMode != "forward-only":
        raise ConfigValueError("targetMode", expected="'forward-only' (training through RASR is not provided)",
                               got=targetMode)
    opts = _parse_config_str(config)
    action = opts.pop("action", "forward")
    if action not in ("forward", "nop"):
        raise ConfigValueError("sprint config action", expected="'forward' or 'nop'", got=action)
    if "configfile" not in opts:
        raise ConfigValueError("sprint config string", expected="a 'configfile:<file>' entry", got=config)
    cfg = Config()
    cfg.load_file(opts.pop("configfile"))
    epoch = opts.pop("epoch", None)
    model = RunOptions.read_one(cfg, "model")
    if epoch is not None and model:  # that epoch's checkpoint of "model" (not the config's "load")
        from returnn.engine.checkpoint_files import get_epoch_model_filename

        cfg.set("load", get_epoch_model_filename(model, int(epoch)))
        cfg.set("load_epoch", int(epoch))
    for key, value in opts.items():
        cfg.set(key, value)
    from returnn.tf.engine import Engine

    InputDim, OutputDim, TargetMode, Task = inputDim, outputDim, targetMode, action
    this.config = cfg
    eng = Engine(config=cfg)
    if action == "forward":
        cfg.set("task", "forward")
        eng.init_network_from_config(cfg, task="forward")
    engine = eng


def _forward(segment_name: str, features: numpy.ndarray) -> numpy.ndarray:
    """Posteriors of one segment.

    :param segment_name: RASR's segment name (not used for the computation)
    :param features: ``[InputDim, T]`` (RASR's layout)
    :return: the output layer's values ``[OutputDim, T]``
    :raises ConfigValueError: :func:`init` was not called, or the features' dim is not ``InputDim``
    """
    if engine is None:
        raise ConfigValueError("returnn.sprint.interface", expected="init() before _forward()", got=None)
    features = numpy.asarray(features, dtype="float32")
    if features.ndim != 2 or (InputDim is not None and features.shape[0] != InputDim):
        raise ConfigValueError("features", expected=f"[InputDim={InputDim}, T]", got=features.shape)
    from returnn.datasets.generating_base import StaticDataset

    dataset = StaticDataset([{"data": features.T}], input_dim=features.shape[0], output_dim={})
    dataset.init_seq_order(epoch=1)
    out = engine.forward_single(dataset, 0)  # [T, OutputDim]
    return numpy.asarray(out).T


def exit() -> None:  # noqa: A001 (RASR calls it by this name)
    """Closes the engine's session (RASR's end of the run)."""
    global engine
    if engine is not None:
        engine.finalize()
    engine = None
