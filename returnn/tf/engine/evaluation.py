"""Evaluating datasets: one pass without updates, scores per loss, the ``dev: score X error Y`` line, and the
``eval`` task's ``eval_output_file``.

Score keys (as in the reference's ``learning_rate_file``): with one loss ``<dataset>_score`` and
``<dataset>_error``; with several ``<dataset>_score_<loss>`` and ``<dataset>_error_<loss>``.
"""

from __future__ import annotations

import os
from typing import Dict, Optional, Tuple

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf.engine.frontend.network import epoch_feed
from returnn.tf.engine.runner import LossFetches, PassResult, Runner
from returnn.tf.engine.state import RunState


def score_keys(prefix: str, result: PassResult) -> Dict[str, float]:
    """``{prefix}_score[_<loss>]`` / ``{prefix}_error[_<loss>]`` → value."""
    scores, errors = result.scores(), result.errors()
    # one loss: no suffix; with error-only losses (RF's as_error, observed from the reference): no suffix for a kind
    # (score / error) that only one loss has
    has_error_only = len(result.cost_names) < len(result.names)
    out = {}
    for kind, values in (("score", scores), ("error", errors)):
        single = len(result.names) == 1 or (has_error_only and len(values) == 1)
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
    # as the reference (observed with an RF model marking no as_error loss): "error None" without errors
    line += " error %s" % (format_values(errors) if errors else None)
    return line


def eval_dataset(state: RunState, name: str, dataset, epoch: int, *, summary_writer=None,
                 global_step_offset: int = 0) -> PassResult:
    """One pass over ``dataset`` without updates (train flag off); logs ``[pretrain ]epoch N 'name' eval, ...``.

    :param summary_writer: optional TensorBoard writer for the per-step values (as the reference: at steps
        ``global_step_offset + i``)
    """
    state.strategy.init_epoch(dataset, epoch)  # distributed "shard": this worker's part
    # as the reference: a network without a layer over time (only frame-wise layers and losses) is trained and
    # evaluated on frames: the sequences are concatenated and cut into batches of batch_size frames
    batches = dataset.generate_batches(epoch=epoch, **state.options.batching.generate_batches_kwargs(
        train=False, recurrent_net=state.network.recurrent))
    feed = {state.train_flag: False} if state.train_flag is not None else {}
    feed.update(epoch_feed(state.network, epoch))  # an RF model's rf.get_run_ctx().epoch
    runner = Runner(state, network=state.network, dataset=dataset, batches=batches,
                    name="%s %r eval" % (state.epoch_str(epoch), name), loss_fetches=loss_fetches(state),
                    feed_extra=feed, summary_writer=summary_writer, global_step_offset=global_step_offset)
    result = runner.run()
    state.strategy.end_of_pass(result)  # distributed: totals over all workers' shards
    return result


def loss_fetches(state: RunState) -> LossFetches:
    """The per-loss tensors of the current network (built once per network)."""
    if state.loss_fetches is None or state.loss_fetches[0] is not state.network:
        with state.graph.as_default():
            state.loss_fetches = (state.network, LossFetches(state.network))
    return state.loss_fetches[1]


def eval_model(state: RunState, output_file: Optional[str] = None) -> Dict[str, PassResult]:
    """The ``eval`` task: evaluates every dataset of ``dev``/``eval``/``eval_datasets`` with the loaded model.

    Prints ``dev: score X error Y ...`` (one line for all datasets, as in training), writes
    ``output_file`` (``eval_output_file``) as a Python-literal dict
    ``{name: {'error': {'error:<loss>': v}, 'score': {'cost:<loss>': v}}}`` and, when a
    ``learning_rate_file`` and an epoch are known, stores the scores there.

    :raises ConfigValueError: no dataset to evaluate
    """
    datasets = state.datasets.evaluated
    if not datasets:
        raise ConfigValueError("dev", expected="a dataset to evaluate (dev, eval or eval_datasets) for task 'eval'",
                               got=None)
    epoch = state.epoch or 0
    results: Dict[str, PassResult] = {}
    for name, dataset in datasets.items():
        results[name] = eval_dataset(state, name, dataset, epoch)
    if epoch and state.strategy.is_root:  # as the reference: the scores go to the LR control, saved with a file
        from returnn.tf.engine import network_setup

        lrc = state.learning_rate_control or network_setup.create_learning_rate_control(state.options.learning_rate_control)
        errors = dict(lrc.get_epoch_error_dict(epoch)) if epoch in lrc.epoch_data else {}
        for name, result in results.items():
            errors.update(score_keys(name, result))
        lrc.set_epoch_error(epoch, errors, log_error_key=False)
        if state.options.learning_rate_control.learning_rate_file:
            lrc.save()
    print(" ".join(format_dataset_results(n, r) for n, r in results.items()), file=log.v1)
    if output_file and state.strategy.is_root:
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
