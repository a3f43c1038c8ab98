"""The tasks ``rnn.py`` can run (config key ``task``), and their dispatch.

Tasks that need TensorFlow (``train``, ``eval``, ``forward``, ``search``, ...) are handed to
:func:`returnn.tf.engine.tasks.execute_main_task`; ``nop`` and ``config:<name>`` run here, without
importing TensorFlow.
"""

from __future__ import annotations

import importlib
from typing import Dict

from returnn.config import Config
from returnn.errors import ConfigValueError, UnknownNameError
from returnn.log import log
from returnn.util.suggest import close_matches

#: task name → what it does (the reference's names). Tasks marked engine=True run in the TF engine.
TASKS: Dict[str, Dict] = {
    "train": {"engine": True, "doc": "train the network over the epochs, saving a checkpoint per epoch"},
    "eval": {"engine": True, "doc": "compute scores of a saved model on dev/eval"},
    "forward": {"engine": True, "doc": "run the network over a dataset and write the output to HDF"},
    "hpx": {"engine": True, "doc": "alias of forward"},
    "search": {"engine": True, "doc": "beam search over a dataset, writing the hypotheses"},
    "compute_priors": {"engine": True, "doc": "average the output posteriors over the train data"},
    "analyze": {"engine": True, "doc": "forward with frame statistics"},
    "analyze_data": {"engine": True, "doc": "statistics of a dataset (priors, mean, std)"},
    "initialize_model": {"engine": True, "doc": "save the freshly initialized parameters"},
    "cleanup_old_models": {"engine": True, "doc": "delete old checkpoints per the cleanup_old_models policy"},
    "nop_init_net_train": {"engine": True, "doc": "only build the training network"},
    "nop": {"engine": False, "doc": "do nothing"},
}
_PREFIX_TASKS = ("config:", "optional-config:")


def check_task(task: str) -> None:
    """:raises UnknownNameError: if ``task`` is not a known task (lists the valid ones, closest first)"""
    if task in TASKS or task.startswith(_PREFIX_TASKS):
        return
    raise UnknownNameError(kind="task", name=task, context="config key 'task'",
                           suggestions=close_matches(task, TASKS, cutoff=0.6),
                           known=sorted(TASKS) + ["config:<function name>", "optional-config:<function name>"])


def task_needs_tensorflow(task: str) -> bool:
    """Whether the task runs in the TF engine (and so imports TensorFlow)."""
    return bool(TASKS.get(task, {}).get("engine"))


def execute_main_task(config: Config, task: str) -> None:
    """Runs ``task`` for ``config`` (after logging and the backend were initialized).

    :raises UnknownNameError: unknown task
    :raises ConfigValueError: ``config:<name>`` where ``<name>`` is not a callable in the config
    """
    check_task(task)
    if task == "nop":
        print("Task: No-operation", file=log.v1)
        return
    for prefix in _PREFIX_TASKS:
        if task.startswith(prefix):
            name = task[len(prefix):]
            func = config.typed_value(name)
            if func is None and prefix == "optional-config:":
                print(f"Task: {task}: config has no {name!r}, nothing to do", file=log.v3)
                return
            if not callable(func):
                raise ConfigValueError("task", expected=f"config:<name> where <name> is a function defined in the "
                                                        f"config; {name!r} is not", got=task)
            print(f"Task: calling config function {name!r}", file=log.v3)
            func()
            return
    print_tensorflow_version()
    engine_tasks = importlib.import_module("returnn.tf.engine.tasks")
    engine_tasks.execute_main_task(config, "forward" if task == "hpx" else task)


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
