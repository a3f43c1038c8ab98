"""The tasks ``rnn.py`` can run (config key ``task``): one table, and their dispatch.

:data:`TASKS` names, for every task, the function that runs it (``"module:function"``, imported only when the task
runs, so ``nop`` and ``config:<name>`` never import TensorFlow) and what it does. :func:`run_task` is the
dispatch that :func:`returnn.__main__.execute_main_task` calls; the TF tasks are the functions of
:mod:`returnn.tf.engine.tasks`.
"""

from __future__ import annotations

import importlib
from typing import Dict

from returnn.config import Config
from returnn.errors import ConfigValueError, UnknownNameError
from returnn.log import log
from returnn.options.named_keys import named_value
from returnn.util.backend import BackendEngine
from returnn.util.suggest import close_matches

_ENGINE_TASKS = "returnn.tf.engine.tasks:"

#: task name → ``{"run": "module:function" (None: not provided here), "doc": what it does}`` (the reference's
#: names). The function gets the config.
TASKS: Dict[str, Dict] = {
    "train": {"run": _ENGINE_TASKS + "train", "doc": "train the network over the epochs, saving a checkpoint per "
                                                     "epoch"},
    "eval": {"run": _ENGINE_TASKS + "evaluate", "doc": "compute scores of a saved model on dev/eval"},
    "forward": {"run": _ENGINE_TASKS + "forward", "doc": "run the network over a dataset and write the output to "
                                                         "HDF"},
    "hpx": {"run": _ENGINE_TASKS + "forward", "doc": "alias of forward"},
    "search": {"run": _ENGINE_TASKS + "search", "doc": "beam search over a dataset, writing the hypotheses"},
    "compute_priors": {"run": _ENGINE_TASKS + "compute_priors", "doc": "average the output posteriors over the "
                                                                       "train data"},
    "analyze": {"run": None, "doc": "the reference's forward with frame statistics: not provided here (use "
                                    "analyze_data)"},
    "analyze_data": {"run": _ENGINE_TASKS + "analyze_data", "doc": "statistics of a dataset (priors, mean, std)"},
    "initialize_model": {"run": _ENGINE_TASKS + "initialize_model", "doc": "save the freshly initialized "
                                                                           "parameters"},
    "cleanup_old_models": {"run": _ENGINE_TASKS + "cleanup_old_models", "doc": "delete old checkpoints per the "
                                                                               "cleanup_old_models policy"},
    "nop_init_net_train": {"run": _ENGINE_TASKS + "nop_init_net_train", "doc": "only build the training network"},
    "nop": {"run": "returnn.tasks:nop", "doc": "do nothing"},
}
_PREFIX_TASKS = ("config:", "optional-config:")


def check_task(task: str) -> None:
    """:raises UnknownNameError: if ``task`` is not a known task (lists the valid ones, closest first)
    :raises ConfigValueError: a task of the reference that is not provided here (``analyze``)"""
    if task.startswith(_PREFIX_TASKS):
        return
    if task in TASKS:
        if TASKS[task]["run"] is None:
            provided = sorted(name for name, info in TASKS.items() if info["run"])
            raise ConfigValueError("task", expected="a task provided here: " + ", ".join(provided), got=task,
                                   hint="the reference's 'analyze' (framewise statistics) is not provided; "
                                        "'analyze_data' gives dataset statistics" if task == "analyze" else None)
        return
    raise UnknownNameError(kind="task", name=task, context="config key 'task'",
                           suggestions=close_matches(task, TASKS, cutoff=0.6),
                           known=sorted(TASKS) + ["config:<function name>", "optional-config:<function name>"])


def task_needs_tensorflow(task: str) -> bool:
    """Whether the task runs in the TF engine (and so imports TensorFlow)."""
    return str(TASKS.get(task, {}).get("run") or "").startswith(_ENGINE_TASKS)


def nop(config: Config) -> None:
    """Task ``nop``: nothing."""
    print("Task: No-operation", file=log.v1)


def _config_function_task(config: Config, task: str) -> None:
    """``config:<name>`` / ``optional-config:<name>``: calls the config's function ``<name>``."""
    prefix = next(p for p in _PREFIX_TASKS if task.startswith(p))
    name = task[len(prefix):]
    func = named_value(config, name)
    if func is None and prefix == "optional-config:":
        print(f"Task: {task}: config has no {name!r}, nothing to do", file=log.v3)
        return
    if not callable(func):
        raise ConfigValueError("task", expected=f"config:<name> where <name> is a function defined in the "
                                                f"config; {name!r} is not", got=task)
    print(f"Task: calling config function {name!r}", file=log.v3)
    func()


def run_task(config: Config, task: str) -> None:
    """Runs ``task`` for ``config`` (after logging and the backend were initialized): the function :data:`TASKS`
    names for it (TF tasks after the ``TensorFlow: ...`` start-up line).

    :raises UnknownNameError: unknown task
    :raises ConfigValueError: a task not provided here, or ``config:<name>`` where ``<name>`` is not a callable
        in the config
    """
    check_task(task)
    if task.startswith(_PREFIX_TASKS):
        _config_function_task(config, task)
        return
    if task_needs_tensorflow(task) or BackendEngine.selected_explicitly:
        print_tensorflow_version()
    module_name, func_name = TASKS[task]["run"].split(":")
    getattr(importlib.import_module(module_name), func_name)(config)


def print_tensorflow_version() -> None:
    """Prints the reference's start-up line ``TensorFlow: <version> (<git version>) (<site-package> in <dir>)``
    at verbosity 3 (imports TensorFlow)."""
    import os
    import site

    import returnn.tf  # noqa: F401  (imports TensorFlow without its eager Keras import)
    import tensorflow as tf

    tf_dir = os.path.dirname(tf.__file__)
    site_dirs = [*site.getsitepackages(), site.getusersitepackages()]
    where = "<site-package>" if any(tf_dir.startswith(d) for d in site_dirs) else "<dev>"
    print(f"TensorFlow: {tf.__version__} ({tf.version.GIT_VERSION}) ({where} in {tf_dir})", file=log.v3)
