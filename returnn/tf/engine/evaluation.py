"""Evaluating datasets: one pass without updates, scores per loss, the ``dev: score X error Y`` line, and the
``eval`` task's ``eval_output_file``.

Score keys (as in the reference's ``learning_rate_file``): with one loss ``<dataset>_score`` and
``<dataset>_error``; with several ``<dataset>_score_<loss>`` and ``<dataset>_error_<loss>``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf import distributed as dist
from returnn.tf.distributed import engine_hooks
from returnn.tf.engine.runner import LossFetches, PassResult, Runner


def batch_options(config, *, train: bool, batch_size: Optional[Any] = None) -> Dict[str, Any]:
    """Keyword args for ``Dataset.generate_batches`` from ``batch_size``, ``max_seqs``, ``max_seq_length``,
    ``max_pad_size``, ``seq_drop`` (train only) and ``shuffle_batches`` (train only)."""
    if batch_size is None:
        batch_size = config.typed_value("batch_size", 1)
        if isinstance(batch_size, str):
            batch_size = config.int("batch_size", 1)
    max_seq_length = config.typed_value("max_seq_length", None)
    if isinstance(max_seq_length, str):
        max_seq_length = config.int("max_seq_length", 0)
    opts = {
        "recurrent_net": True,
        "batch_size": batch_size,
        "max_seqs": config.int("max_seqs", -1),
        "max_seq_length": max_seq_length or None,
        "max_pad_size": config.typed_value("max_pad_size", None),
    }
    if train:
        opts["seq_drop"] = config.float("seq_drop", 0.0)
        opts["shuffle_batches"] = config.bool("shuffle_batches", False)
    return opts


def score_keys(prefix: str, result: PassResult) -> Dict[str, float]:
    """``{prefix}_score[_<loss>]`` / ``{prefix}_error[_<loss>]`` → value."""
    scores, errors = result.scores(), result.errors()
    single = len(result.names) == 1
    out = {}
    for kind, values in (("score", scores), ("error", errors)):
        for name, value in values.items():
            out["%s_%s" % (prefix, kind) + ("" if single else "_" + name)] = value
    return out


def format_values(values: Dict[str, float]) -> str:
    """One value: ``X``; several: ``a X b Y`` (loss names sorted)."""
    if len(values) == 1:
        return str(next(iter(values.values())))
    return " ".join("%s %s" % (k, values[k]) for k in sorted(values))


def format_dataset_results(name: str, result: PassResult) -> str:
    """``dev: score X error Y`` (or with loss names when there are several losses)."""
    line = "%s: score %s" % (name, format_values(result.scores()))
    errors = result.errors()
    if errors:
        line += " error %s" % format_values(errors)
    return line


def epoch_str(engine, epoch: int) -> str:
    """``epoch N``, or ``pretrain epoch N`` for an epoch of the ``pretrain`` schedule (as the reference)."""
    pretrain = getattr(engine, "pretrain", None)
    if pretrain is not None and epoch and epoch <= pretrain.get_train_num_epochs():
        return "pretrain epoch %i" % epoch
    return "epoch %i" % (epoch or 0)


def eval_dataset(engine, name: str, dataset, epoch: int) -> PassResult:
    """One pass over ``dataset`` without updates (train flag off); logs ``[pretrain ]epoch N 'name' eval, ...``."""
    from returnn.tf.engine.training import seq_order_epoch

    dist.init_dataset_epoch(dataset, seq_order_epoch(dataset, epoch))  # distributed "shard": this worker's part
    batches = dataset.generate_batches(epoch=epoch, **batch_options(engine.config, train=False))
    feed = {engine.train_flag_placeholder: False} if engine.train_flag_placeholder is not None else {}
    runner = Runner(engine, network=engine.network, dataset=dataset, batches=batches,
                    name="%s %r eval" % (epoch_str(engine, epoch), name), loss_fetches=_loss_fetches(engine),
                    feed_extra=feed,
                    summary_writer=None)
    result = runner.run()
    engine_hooks.sum_pass_result(result)  # distributed: totals over all workers' shards
    return result


def _loss_fetches(engine) -> LossFetches:
    cached = getattr(engine, "_loss_fetches", None)
    if cached is None or cached[0] is not engine.network:
        with engine.graph.as_default():
            engine._loss_fetches = (engine.network, LossFetches(engine.network))
    return engine._loss_fetches[1]


def eval_model(engine, output_file: Optional[str] = None) -> Dict[str, PassResult]:
    """The ``eval`` task: evaluates every dataset of ``engine.eval_datasets`` with the loaded model.

    Prints ``dev: score X error Y ...`` (one line for all datasets, as in training), writes
    ``output_file`` (``eval_output_file``) as a Python-literal dict
    ``{name: {'error': {'error:<loss>': v}, 'score': {'cost:<loss>': v}}}`` and, when a
    ``learning_rate_file`` and an epoch are known, stores the scores there.

    :raises ConfigValueError: no dataset to evaluate
    """
    if not engine.eval_datasets:
        raise ConfigValueError("dev", expected="a dataset to evaluate (dev, eval or eval_datasets) for task 'eval'",
                               got=None)
    epoch = engine.epoch or 0
    results: Dict[str, PassResult] = {}
    for name, dataset in engine.eval_datasets.items():
        results[name] = eval_dataset(engine, name, dataset, epoch)
    if epoch and dist.is_root():  # as the reference: the scores go to the learning-rate control, saved with a file
        from returnn.tf.engine import network_setup

        lrc = engine.learning_rate_control or network_setup.create_learning_rate_control(engine.config)
        errors = dict(lrc.get_epoch_error_dict(epoch)) if epoch in lrc.epoch_data else {}
        for name, result in results.items():
            errors.update(score_keys(name, result))
        lrc.set_epoch_error(epoch, errors, log_error_key=False)
        if engine.config.value("learning_rate_file", None):
            lrc.save()
    print(" ".join(format_dataset_results(n, r) for n, r in results.items()), file=log.v1)
    if output_file and dist.is_root():
        write_eval_output_file(output_file, results)
    return results


def write_eval_output_file(filename: str, results: Dict[str, PassResult]) -> None:
    """Writes the ``eval_output_file`` in the reference's layout (temp file + rename)."""
    print("Write eval results to %r" % filename, file=log.v3)
    lines = ["{"]
    for name, result in results.items():
        lines.append("%r: {" % name)
        lines.append("'error': {%s}," % ", ".join("%r: %r" % ("error:" + k, v) for k, v in sorted(result.errors().items())))
        lines.append("'score': {%s}," % ", ".join("%r: %r" % ("cost:" + k, v) for k, v in sorted(result.scores().items())))
        lines.append("},")
    lines.append("}")
    directory = os.path.dirname(os.path.abspath(filename))
    os.makedirs(directory, exist_ok=True)
    tmp = filename + ".tmp-%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, filename)


def results_as_tuple(result: PassResult) -> Tuple[Dict[str, float], Dict[str, float]]:
    """(scores, errors) per loss name."""
    return result.scores(), result.errors()
