"""Runs the TF tasks of ``rnn.py`` (called by :func:`returnn.tasks.execute_main_task` after the config is
loaded, the log initialized and the banner printed).

Tasks: ``train``, ``eval``, ``forward``, ``compute_priors``, ``initialize_model``, ``cleanup_old_models``,
``analyze_data``, ``nop_init_net_train``, ``search`` (:mod:`returnn.tf.engine.search`).
"""

from __future__ import annotations

from returnn.errors import ConfigValueError
from returnn.log import log


def _datasets(config):
    from returnn.datasets.from_config import init_datasets_from_config, print_datasets_summary

    datasets = init_datasets_from_config(config)
    print_datasets_summary(datasets)
    return datasets


def execute_main_task(config, task: str) -> None:
    """Runs ``task`` for ``config``.

    :raises ConfigValueError: a task this engine does not provide, or bad config values
    """
    from returnn.tf.distributed.engine_hooks import setup_task
    from returnn.tf.engine.engine import Engine

    if not setup_task(config, task):  # use_horovod / distributed: start-up; tasks other than train/eval: rank 0
        return
    if task == "cleanup_old_models":
        from returnn.tf.engine.cleanup import cleanup_old_models

        cleanup_old_models(config, ask_for_confirmation=True)
        return
    datasets = _datasets(config)
    if task == "search":
        from returnn.tf.engine.search import run_search_task

        run_search_task(config, datasets)
        return
    if task == "analyze_data":
        from returnn.tf.engine.analysis import analyze_data

        analyze_data(config, {k: datasets.get(k) for k in ("train", "dev", "eval")})
        return
    engine = Engine(config=config)
    try:
        if task == "train":
            engine.init_train_from_config(config, datasets["train"], datasets["dev"], datasets["eval"],
                                         eval_datasets=datasets["eval_datasets"])
            engine.train()
        elif task == "nop_init_net_train":
            engine.init_train_from_config(config, datasets["train"], datasets["dev"], datasets["eval"],
                                         eval_datasets=datasets["eval_datasets"])
            print("Task: nop_init_net_train: training network built, nothing else done", file=log.v3)
        elif task == "initialize_model":
            model = config.value("model", None)
            if not model:  # before building anything
                raise ConfigValueError("model", expected="the checkpoint path to save the initial model to", got=None)
            engine.init_train_from_config(config, datasets["train"], datasets["dev"], datasets["eval"],
                                         eval_datasets=datasets["eval_datasets"], require_train_data=False,
                                         with_updater=False)
            engine.save_model(model)
        elif task == "eval":
            if config.value("eval_output_file_per_seq", None):
                raise ConfigValueError("eval_output_file_per_seq", expected="None: per-sequence scores are not "
                                                                            "provided yet (use eval_output_file)",
                                       got=config.value("eval_output_file_per_seq", None))
            engine._set_datasets(None, datasets["dev"], datasets["eval"], datasets["eval_datasets"])
            engine.init_network_from_config(config, task="eval")
            engine.eval_model(output_file=config.value("eval_output_file", None))
        elif task == "forward":
            data = _forward_data(config, datasets)
            engine._set_datasets(None, None, data)
            engine.init_network_from_config(config, task="forward")
            callback = config.typed_value("forward_callback", None)
            if callback is not None:
                engine.forward_with_callback(dataset=data, callback=callback)
            else:
                output_file = config.value("output_file", None) or "dump-fwd-epoch-%i.hdf" % (engine.epoch or 0)
                engine.forward_to_hdf(data=data, output_file=output_file)
        elif task == "compute_priors":
            data = datasets["train"]
            if data is None:
                raise ConfigValueError("train", expected="a dataset for task 'compute_priors'", got=None)
            engine._set_datasets(None, None, data)
            engine.init_network_from_config(config, task="compute_priors")
            engine.compute_priors(data)
        else:
            raise ConfigValueError("task", expected="a task the TF engine provides: train, eval, forward, search, "
                                                    "compute_priors, analyze_data, initialize_model, "
                                                    "cleanup_old_models, nop_init_net_train", got=task,
                                   hint="the reference's 'analyze' (framewise statistics) is not provided; "
                                        "'analyze_data' gives dataset statistics" if task == "analyze" else None)
    finally:
        engine.finalize()


def _forward_data(config, datasets):
    if config.has("forward_data") and config.typed_value("forward_data", None) is not None:
        spec = config.typed_value("forward_data")
        if isinstance(spec, str) and spec in ("train", "dev", "eval"):
            return datasets[spec]
        from returnn.datasets import init_dataset

        return init_dataset(spec)
    return datasets["eval"]
