"""The training loop: epochs ``start_epoch .. num_epochs`` with evaluation, LR control, logging and saving.

Per epoch (reference order and log lines): the epoch's network (``pretrain``, ``get_network``, ``#config``;
rebuilt when it changes, see :mod:`~returnn.tf.engine.network_change`), ``start epoch N with learning rate X
...`` (v4; ``start pretrain epoch N`` and ``pretrain epoch N`` in the lines below during pretraining), one
:class:`~returnn.tf.engine.runner.Runner` pass over ``train`` with the optimizer op, ``Save model under
<model>.NNN`` (every ``save_interval`` epochs and always the last one), ``epoch N score: ... error: ...
elapsed: H:MM:SS`` (v3), a pass over each of ``dev``/``eval``/``eval_datasets``, ``dev: score X error Y``
(v3), the scores into the learning-rate control (``learning_rate_file``), and ``cleanup_old_models``.

Faults: a NaN/inf training loss stops with :class:`~returnn.tf.engine.runner.NonFiniteLossError` naming the
epoch and step, before anything of that epoch is saved (``stop_on_nonfinite_train_score = False``: the step
is left out of the epoch's score and training goes on). SIGINT/SIGTERM abandon the current epoch after the
running step; nothing of it is saved, the last complete checkpoint stays, and the process exits with
KeyboardInterrupt (SIGINT) or ``SystemExit(143)`` (SIGTERM).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Dict, Optional

import numpy as np

from returnn.log import log
from returnn.tf import distributed as dist
from returnn.tf.distributed import engine_hooks
from returnn.tf.engine.evaluation import (
    _loss_fetches,
    batch_options,
    epoch_str,
    eval_dataset,
    format_dataset_results,
    format_values,
    score_keys,
)
from returnn.tf.engine.runner import CancelTrainingException, NonFiniteLossError, Runner
from returnn.util.timefmt import hms


def seq_order_epoch(dataset, epoch: int) -> int:
    """The epoch the dataset is initialized with (datasets handle ``partition_epoch`` themselves)."""
    return epoch


def _summary_writer(engine, name: str):
    if getattr(engine, "_summary_writers", None) is None:
        engine._summary_writers = {}
    if name in engine._summary_writers:
        return engine._summary_writers[name]
    if not dist.is_root():  # distributed: rank 0 writes the summaries
        engine._summary_writers[name] = None
        return None
    log_dir = engine.config.value("tf_log_dir", None)
    if log_dir is None and engine.model_filename:
        log_dir = os.path.dirname(os.path.abspath(engine.model_filename))
    writer = None
    if log_dir and not engine.config.bool("dry_run", False):
        from returnn.tf.engine.summaries import SummaryWriter

        stamp = time.strftime("%Y-%m-%d-%H-%M-%S")
        path = os.path.join(log_dir, "%s-%s" % (name, stamp))
        try:
            writer = SummaryWriter(path)
            print("TF: log_dir: %s" % path, file=log.v5)
        except OSError as exc:
            print("TF: cannot write TensorBoard summaries to %s: %s" % (path, exc), file=log.v3)
    engine._summary_writers[name] = writer
    return writer


def _close_summary_writers(engine) -> None:
    for writer in (getattr(engine, "_summary_writers", None) or {}).values():
        if writer is not None:
            writer.close()
    engine._summary_writers = {}


def train(engine) -> None:
    """Runs training (see module doc). Requires :meth:`Engine.init_train_from_config` first."""
    config = engine.config
    final_epoch = config.int("num_epochs", 5)
    save_interval = max(config.int("save_interval", 1), 1)
    start_epoch = engine.start_epoch
    print("start training at epoch %i" % start_epoch, file=log.v3)
    print("using batch size: %s, max seqs: %s" % (config.typed_value("batch_size", 1), config.int("max_seqs", -1)),
          file=log.v4)
    print("learning rate control: %s" % (engine.learning_rate_control,), file=log.v4)
    print("pretrain: %s" % (engine.pretrain,), file=log.v4)
    if start_epoch > final_epoch:
        print("No epochs to train, start_epoch: %i, final_epoch: %i" % (start_epoch, final_epoch), file=log.v3)
        engine.epoch = final_epoch
        print("Finished training in epoch %i." % final_epoch, file=log.v3)
        return
    if engine.model_filename is None:
        print("Warning: config key 'model' is not set, no checkpoints will be saved.", file=log.v2)
    if start_epoch == 1 and config.bool("save_epoch1_initial_model", False) and engine.model_filename:
        engine.save_model(engine.get_epoch_model_filename(0))
    previous = engine._install_signal_handlers()
    try:
        for epoch in range(start_epoch, final_epoch + 1):
            engine.epoch = epoch
            engine.init_train_epoch()  # the epoch's network and '#config' (see returnn.tf.engine.network_change)
            train_epoch(engine, epoch, save=(engine.model_filename is not None and
                                             (epoch % save_interval == 0 or epoch == final_epoch)))
    except CancelTrainingException as exc:
        _report_cancel(engine, exc)
    finally:
        engine._restore_signal_handlers(previous)
        _close_summary_writers(engine)
    print("Finished training in epoch %i." % engine.epoch, file=log.v3)


def _report_cancel(engine, exc: CancelTrainingException) -> None:
    existing = engine.get_existing_epochs()
    last = ("the last complete checkpoint is %s" % engine.get_epoch_model_filename(existing[-1])) if existing \
        else "no checkpoint was saved yet"
    print("Training stopped in epoch %i (%s); this epoch is not saved, %s." % (engine.epoch, exc, last),
          file=log.v1)
    signum = engine._stop_signal
    engine._stop_signal = None
    if signum == signal.SIGTERM:
        raise SystemExit(128 + int(signal.SIGTERM))
    raise KeyboardInterrupt(str(exc))


def maybe_use_last_best_model(engine, epoch: int) -> Optional[int]:
    """``use_last_best_model`` (True or a dict with ``modulo``, ``only_last_n``, ``filter_score``,
    ``min_score_dist``): before ``epoch``, if an earlier epoch scored better than ``epoch - 1``, load its
    params. Returns the loaded epoch or None."""
    opts = engine.config.typed_value("use_last_best_model", None)
    if not opts or epoch <= 1:
        return None
    opts = {} if opts is True else dict(opts)
    if (epoch - 1) % int(opts.get("modulo", 1)) != 0:
        return None
    best = engine.learning_rate_control.get_last_best_epoch(
        last_epoch=epoch - 1, only_last_n=int(opts.get("only_last_n", -1)),
        filter_score=float(opts.get("filter_score", float("inf"))),
        min_score_dist=float(opts.get("min_score_dist", 0.0)))
    if best is None or best == epoch - 1 or not engine.model_filename:
        return None
    if best not in engine.get_existing_epochs():
        return None
    print("Last epoch model not better than previous epoch %i, using that model instead." % best, file=log.v3)
    engine.load_model(epoch=best)
    return best


def learning_rate_for_epoch(engine, epoch: int) -> float:
    """The learning-rate control's rate of ``epoch``; during ``pretrain`` and in the first epoch after it the
    initial ``learning_rate`` unless ``use_learning_rate_control_always`` (the control's rate is still decided
    and stored, for its file), as the reference."""
    lrc = engine.learning_rate_control
    learning_rate = lrc.get_learning_rate_for_epoch(epoch)
    pretrain = getattr(engine, "pretrain", None)
    if (pretrain is not None and epoch <= pretrain.get_train_num_epochs() + 1
            and not engine.config.bool("use_learning_rate_control_always", False)):
        return lrc.default_learning_rate
    return learning_rate


def train_epoch(engine, epoch: int, *, save: bool = True) -> Dict[str, float]:
    """One epoch: train pass, save, evaluations, LR control. Returns the epoch's score dict."""
    config = engine.config
    lrc = engine.learning_rate_control
    learning_rate = engine_hooks.sync_float(learning_rate_for_epoch(engine, epoch), "learning_rate")
    epoch_name = epoch_str(engine, epoch)
    print("start %s with learning rate %s ..." % (epoch_name, learning_rate), file=log.v4)
    engine.updater.set_learning_rate(learning_rate, session=engine.session)
    if engine_hooks.loads_checkpoints():
        maybe_use_last_best_model(engine, epoch)
    if config.typed_value("use_last_best_model", None):
        engine_hooks.sync_model(engine, engine._all_variables())  # distributed: rank 0's choice
    global_step_start = int(engine.session.run(engine.network.global_train_step))
    dataset = engine.train_data
    dist.init_dataset_epoch(dataset, seq_order_epoch(dataset, epoch))  # distributed "shard": this worker's part
    batches = dataset.generate_batches(epoch=epoch, **batch_options(config, train=True))
    stop_on_nonfinite = config.bool("stop_on_nonfinite_train_score", True)
    name = epoch_name if epoch_name.startswith("pretrain") else "train " + epoch_name

    def on_nonfinite(step: int, values) -> bool:
        losses = ", ".join("%s %s" % (k, values[k]) for k in sorted(values) if k.startswith("cost:"))
        if stop_on_nonfinite:
            existing = engine.get_existing_epochs()
            raise NonFiniteLossError(
                "%s, step %i: the training loss is not finite (loss %s; %s). Stopping; nothing of epoch %i is "
                "saved%s. Lower the learning rate, add gradient_clip, or set stop_on_nonfinite_train_score = False "
                "to skip such steps." % (name, step, values["loss"], losses, epoch,
                                         ("; the last checkpoint is %s" % engine.get_epoch_model_filename(existing[-1]))
                                         if existing else ""))
        print("%s, step %i: loss is not finite (%s), step left out of the score" % (name, step, losses), file=log.v2)
        return False

    writer = _summary_writer(engine, "train")
    runner = Runner(engine, network=engine.network, dataset=dataset, batches=batches, name=name,
                    loss_fetches=_loss_fetches(engine), train_op=engine.optim_op,
                    feed_extra={engine.train_flag_placeholder: True}, nonfinite_callback=on_nonfinite,
                    summary_writer=writer, global_step_offset=global_step_start,
                    sync=engine_hooks.make_train_sync(engine, global_step_start))
    result = runner.run()
    engine_hooks.sum_pass_result(result)  # distributed: scores over all workers' shards
    if writer is not None:
        epoch_summary = {"epoch/learning_rate": learning_rate}
        epoch_summary.update({"epoch/" + k: v for k, v in score_keys("train", result).items()})
        writer.write_scalars(global_step_start + result.num_steps, epoch_summary)
        writer.flush()
    if save:
        engine.save_model()
    # the scores reach the learning-rate control in the reference's order: train, then each eval dataset, then
    # the epoch's meta data (it logs its error key from the first call that changes it)
    epoch_errors: Dict[str, float] = score_keys("train", result)
    lrc.set_epoch_error(epoch, epoch_errors)
    line = "%s score: %s" % (epoch_name, format_values(result.scores()))
    if result.errors():
        line += " error: %s" % format_values(result.errors())
    print("%s elapsed: %s" % (line, hms(result.elapsed)), file=log.v3)
    dev_results = {}
    for ds_name, ds in engine.eval_datasets.items():
        ds_writer = _summary_writer(engine, "%s-%i" % (ds_name, epoch))  # one directory per epoch, as the reference
        dev_results[ds_name] = eval_dataset(engine, ds_name, ds, epoch)
        ds_errors = score_keys(ds_name, dev_results[ds_name])
        lrc.set_epoch_error(epoch, ds_errors)
        epoch_errors.update(ds_errors)
        if ds_writer is not None:
            ds_writer.write_scalars(epoch, ds_errors)
            ds_writer.flush()
    meta = {
        ":meta:effective_learning_rate": np.float32(learning_rate),  # the float32 variable's value, as the reference
        ":meta:epoch_num_train_steps": result.num_steps,
        ":meta:epoch_train_time_secs": int(round(result.elapsed)),
        ":meta:global_train_step": global_step_start,
    }
    lrc.set_epoch_error(epoch, meta)
    epoch_errors.update(meta)
    if engine.model_filename and not config.bool("dry_run", False) and dist.is_root():
        lrc.save()
    # the reference prints this line also without eval datasets (then empty)
    print(" ".join(format_dataset_results(n, r) for n, r in dev_results.items()), file=log.v3)
    if config.typed_value("cleanup_old_models", None) and dist.is_root():
        engine.cleanup_old_models()
    engine_hooks.epoch_end(epoch)  # distributed: all workers wait until rank 0 saved
    return epoch_errors
