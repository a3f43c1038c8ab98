"""The TF tasks of ``rnn.py``, one function each, as the task table :data:`returnn.tasks.TASKS` names them (called
by :func:`returnn.tasks.run_task` after the config is loaded, the log initialized and the banner printed).

Each function gets the config, starts distribution where the config asks for it
(:func:`returnn.tf.distributed.startup.setup_task`: ``train`` and ``eval`` run on every worker, the other tasks on
worker 0 only), builds the datasets and, where it needs one, an :class:`~returnn.tf.engine.engine.Engine`, and
uses only the engine's public methods.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, Optional

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import (
    AnalysisOptions,
    EvalOptions,
    ForwardOptions,
    LearningRateControlOptions,
    RunOptions,
    SearchOptions,
    TrainingOptions,
)


def _start(config, task: str, *, with_data: bool = True) -> Optional[Dict[str, Any]]:
    """The task's start: distribution (None: this worker has nothing to do) and the datasets (with their summary)."""
    from returnn.tf.distributed.startup import setup_task

    if not setup_task(config, task):
        return None
    if not with_data:
        return {}
    from returnn.datasets.from_config import init_datasets_from_config, print_datasets_summary

    datasets = init_datasets_from_config(config)
    print_datasets_summary(datasets)
    return datasets


@contextlib.contextmanager
def _engine(config) -> Iterator[Any]:
    """An engine for ``config``, finalized (its session released) at the end."""
    from returnn.tf.engine.engine import Engine

    engine = Engine(config=config)
    try:
        yield engine
    finally:
        engine.finalize()


def _init_train(engine, config, datasets, **kwargs) -> None:
    engine.init_train_from_config(config, datasets["train"], datasets["dev"], datasets["eval"],
                                  eval_datasets=datasets["eval_datasets"], **kwargs)


def train(config) -> None:
    """Task ``train``: trains the epochs ``start_epoch .. num_epochs``."""
    datasets = _start(config, "train")
    if datasets is None:
        return
    with _engine(config) as engine:
        _init_train(engine, config, datasets, require_train_data=True)
        engine.train()


def nop_init_net_train(config) -> None:
    """Task ``nop_init_net_train``: builds the training network, nothing else."""
    datasets = _start(config, "nop_init_net_train")
    if datasets is None:
        return
    with _engine(config) as engine:
        _init_train(engine, config, datasets, require_train_data=True)
        print("Task: nop_init_net_train: training network built, nothing else done", file=log.v3)


def initialize_model(config) -> None:
    """Task ``initialize_model``: saves the initial params (and global step) to ``model``, as the reference.

    :raises ConfigValueError: no ``model``
    """
    model = RunOptions.read_one(config, "model")
    if not model:  # before building anything
        raise ConfigValueError("model", expected="the checkpoint path to save the initial model to", got=None)
    datasets = _start(config, "initialize_model")
    if datasets is None:
        return
    with _engine(config) as engine:
        _init_train(engine, config, datasets, require_train_data=False, with_updater=False)
        engine.save_model(model)


def evaluate(config) -> None:
    """Task ``eval``: scores the loaded model on dev/eval/eval_datasets (``eval_output_file``).

    :raises ConfigValueError: ``eval_output_file_per_seq`` (not provided)
    """
    opts = EvalOptions.from_config(config)
    if opts.eval_output_file_per_seq:
        raise ConfigValueError("eval_output_file_per_seq", expected="None: per-sequence scores are not provided yet "
                                                                    "(use eval_output_file)",
                               got=opts.eval_output_file_per_seq)
    datasets = _start(config, "eval")
    if datasets is None:
        return
    with _engine(config) as engine:
        engine.set_datasets(None, datasets["dev"], datasets["eval"], datasets["eval_datasets"])
        engine.init_network_from_config(config, task="eval")
        engine.eval_model(output_file=opts.eval_output_file)


def forward(config) -> None:
    """Task ``forward`` (and ``hpx``): the output layer over ``forward_data`` (default ``eval``) to the HDF
    ``output_file`` (default ``dump-fwd-epoch-N.hdf``) or to a ``forward_callback``."""
    datasets = _start(config, "forward")
    if datasets is None:
        return
    opts = ForwardOptions.from_config(config)
    data = _forward_data(opts, datasets)
    with _engine(config) as engine:
        engine.set_datasets(None, None, data)
        engine.init_network_from_config(config, task="forward")
        if opts.forward_callback is not None:
            engine.forward_with_callback(dataset=data, callback=opts.forward_callback)
        else:
            output_file = opts.output_file or "dump-fwd-epoch-%i.hdf" % (engine.epoch or 0)
            engine.forward_to_hdf(data=data, output_file=output_file)


def _forward_data(opts: ForwardOptions, datasets):
    spec = opts.forward_data
    if spec is None:
        return datasets["eval"]
    if isinstance(spec, str) and spec in ("train", "dev", "eval"):
        return datasets[spec]
    from returnn.datasets import init_dataset

    return init_dataset(spec)


def compute_priors(config) -> None:
    """Task ``compute_priors``: the output layer's log priors over ``train`` to ``output_file``.

    :raises ConfigValueError: no ``train`` dataset
    """
    datasets = _start(config, "compute_priors")
    if datasets is None:
        return
    data = datasets["train"]
    if data is None:
        raise ConfigValueError("train", expected="a dataset for task 'compute_priors'", got=None)
    with _engine(config) as engine:
        engine.set_datasets(None, None, data)
        engine.init_network_from_config(config, task="compute_priors")
        engine.compute_priors(data)


def search(config) -> None:
    """Task ``search``: beam search over ``search_data`` (see :mod:`returnn.tf.engine.search`)."""
    from returnn.tf.engine.search import get_search_dataset

    datasets = _start(config, "search")
    if datasets is None:
        return
    options = SearchOptions.from_config(config)
    dataset = get_search_dataset(options, datasets)
    with _engine(config) as engine:
        engine.set_datasets(None, None, dataset)
        engine.init_network_from_config(config, task="search")
        engine.search(dataset, do_eval=options.search_do_eval, output_layer_names=options.search_output_layer,
                      output_file=options.search_output_file,
                      output_file_format=options.search_output_file_format)


def analyze_data(config) -> None:
    """Task ``analyze_data``: dataset statistics (see :mod:`returnn.tf.engine.analysis`)."""
    from returnn.tf.engine.analysis import analyze_data as analyze

    datasets = _start(config, "analyze_data")
    if datasets is None:
        return
    analyze(AnalysisOptions.from_config(config), {k: datasets.get(k) for k in ("train", "dev", "eval")},
            target=RunOptions.read_one(config, "target"))


def cleanup_old_models(config) -> None:
    """Task ``cleanup_old_models``: deletes old checkpoints (asking on stdin first)."""
    from returnn.tf.engine.cleanup import cleanup_old_models as cleanup

    if _start(config, "cleanup_old_models", with_data=False) is None:
        return
    from returnn.tf.engine.network_setup import create_learning_rate_control

    cleanup(RunOptions.read_one(config, "model"), TrainingOptions.from_config(config),
            create_learning_rate_control(LearningRateControlOptions.from_config(config)), ask_for_confirmation=True)
