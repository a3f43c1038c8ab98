"""The training loop: epochs ``start_epoch .. num_epochs`` with evaluation, LR control, logging and saving.

Per epoch (reference order and log lines): the epoch's network (``pretrain``, ``get_network``, ``#config``;
rebuilt when it changes, see :mod:`~returnn.tf.engine.network_change`), ``start epoch N with learning rate X
...`` (v4; ``start pretrain epoch N`` and ``pretrain epoch N`` in the lines below during pretraining), one
:class:`~returnn.tf.engine.runner.Runner` pass over ``train`` with the optimizer op, ``Save model under
<model>.NNN`` (every ``save_interval`` epochs and always the last one), ``epoch N score: ... error: ...
elapsed: H:MM:SS`` (v3), a pass over each of ``dev``/``eval``/``eval_datasets``, ``dev: score X error Y``
(v3), the scores into the learning-rate control (``learning_rate_file``), and ``cleanup_old_models``.

Every function receives the run's :class:`~returnn.tf.engine.state.RunState`; what differs in multi-process
training goes through ``state.strategy`` (:mod:`returnn.tf.distributed.strategy`).

Faults: a NaN/inf training loss stops with :class:`~returnn.tf.engine.runner.NonFiniteLossError` naming the
epoch and step, before anything of that epoch is saved (``stop_on_nonfinite_train_score = False``: the step
is left out of the epoch's score and training goes on). SIGINT/SIGTERM abandon the current epoch after the
running step; nothing of it is saved, the last complete checkpoint stays, and the process exits with
KeyboardInterrupt (SIGINT) or ``SystemExit(143)`` (SIGTERM).
"""

from __future__ import annotations

import os
import signal
from typing import Any, Dict, Optional, Tuple

import numpy as np

from returnn.log import log
from returnn.lr_control.from_config import get_use_last_best_model_epoch
from returnn.errors import ConfigValueError
from returnn.tf.engine import model_io, step_checkpoints
from returnn.tf.engine.build import saveable_variables, sync_model
from returnn.tf.engine.evaluation import eval_dataset, format_dataset_results, format_values, loss_fetches, score_keys
from returnn.tf.engine.frontend.network import epoch_feed
from returnn.tf.engine.network_change import init_network_for_epoch
from returnn.tf.engine.runner import CancelTrainingException, NonFiniteLossError, Runner
from returnn.tf.engine.state import RunState
from returnn.tf.engine.summaries import SummaryWriters
from returnn.tf.ops import step_random
from returnn.util.timefmt import hms


def summary_log_dir(state: RunState) -> Optional[str]:
    """Where the TensorBoard summaries go: ``tf_log_dir``, else the directory of ``model``; None (no summaries)
    with ``dry_run`` and on workers other than the root."""
    if state.options.run.dry_run or not state.strategy.is_root:
        return None
    log_dir = state.options.training.tf_log_dir
    if log_dir is None and state.model_filename:
        log_dir = os.path.dirname(os.path.abspath(state.model_filename))
    return log_dir


def train(state: RunState) -> None:
    """Runs training (see module doc). Requires :meth:`Engine.init_train_from_config` first."""
    opts = state.options.training
    final_epoch = opts.num_epochs
    save_interval = max(opts.save_interval, 1)
    start_epoch = state.start_epoch
    batching = state.options.batching
    print("start training at epoch %i" % start_epoch, file=log.v3)
    print("using batch size: %s, max seqs: %s" % (batching.batch_size, batching.max_seqs), file=log.v4)
    print("learning rate control: %s" % (state.learning_rate_control,), file=log.v4)
    print("pretrain: %s" % (state.pretrain,), file=log.v4)
    if start_epoch > final_epoch:
        print("No epochs to train, start_epoch: %i, final_epoch: %i" % (start_epoch, final_epoch), file=log.v3)
        state.epoch = final_epoch
        print("Finished training in epoch %i." % final_epoch, file=log.v3)
        return
    if state.model_filename is None:
        print("Warning: config key 'model' is not set, no checkpoints will be saved.", file=log.v2)
    if start_epoch == 1 and opts.save_epoch1_initial_model and state.model_filename:
        model_io.save_model(state, state.epoch_model_filename(0))
    if (opts.step_checkpoints_enabled and state.model_filename and state.strategy.is_root
            and not state.options.run.dry_run):
        # step checkpoints of earlier epochs (their epoch checkpoint was written before they were removed)
        step_checkpoints.remove_all_step_checkpoints(state.model_filename,
                                                     except_epoch_prefix=state.epoch_model_filename(start_epoch))
    previous = state.stop.install()
    state.summary_writers = SummaryWriters(summary_log_dir(state))
    try:
        for epoch in range(start_epoch, final_epoch + 1):
            state.epoch = epoch
            init_network_for_epoch(state, epoch)  # the epoch's network and '#config'
            train_epoch(state, epoch, save=(state.model_filename is not None and
                                            (epoch % save_interval == 0 or epoch == final_epoch)))
    except CancelTrainingException as exc:
        _report_cancel(state, exc)
    finally:
        state.stop.restore(previous)
        state.summary_writers.close()
    print("Finished training in epoch %i." % state.epoch, file=log.v3)


def _report_cancel(state: RunState, exc: CancelTrainingException) -> None:
    existing = state.existing_epochs()
    last = ("the last complete checkpoint is %s" % state.epoch_model_filename(existing[-1])) if existing \
        else "no checkpoint was saved yet"
    steps = step_checkpoints.find_step_checkpoints(state.epoch_model_filename()) if state.model_filename else []
    if steps and state.options.training.step_checkpoints_enabled:
        print("Training stopped in epoch %i (%s); %s; a restart continues this epoch from the step checkpoint %s."
              % (state.epoch, exc, last, steps[-1][1]), file=log.v1)
    else:
        print("Training stopped in epoch %i (%s); this epoch is not saved, %s." % (state.epoch, exc, last),
              file=log.v1)
    signum = state.stop.take()
    if signum == signal.SIGTERM:
        raise SystemExit(128 + int(signal.SIGTERM))
    raise KeyboardInterrupt(str(exc))


def maybe_use_last_best_model(state: RunState, epoch: int) -> Optional[int]:
    """``use_last_best_model``: before ``epoch``, when the learning-rate control names an earlier epoch as better
    than ``epoch - 1`` (:func:`returnn.lr_control.from_config.get_use_last_best_model_epoch`, which prints the
    reference's message), loads that epoch's checkpoint. Returns the loaded epoch or None.

    :raises ConfigValueError: an unknown option in the ``use_last_best_model`` dict
    """
    opts = state.options.training.use_last_best_model
    if not opts or epoch <= 1 or not state.model_filename:
        return None
    best = get_use_last_best_model_epoch(state.learning_rate_control, opts, last_epoch=epoch - 1)
    if best is None or best not in state.existing_epochs():
        return None
    model_io.load_model(state, state.epoch_model_filename(best))
    return best


def learning_rate_for_epoch(state: RunState, epoch: int) -> float:
    """The learning-rate control's rate of ``epoch``; during ``pretrain`` and in the first epoch after it the
    initial ``learning_rate`` unless ``use_learning_rate_control_always`` (the control's rate is still decided
    and stored, for its file), as the reference."""
    lrc = state.learning_rate_control
    learning_rate = lrc.get_learning_rate_for_epoch(epoch)
    if (state.pretrain is not None and epoch <= state.pretrain.get_train_num_epochs() + 1
            and not state.options.training.use_learning_rate_control_always):
        return lrc.default_learning_rate
    return learning_rate


def _nonfinite_handler(state: RunState, epoch: int, name: str):
    """The runner's callback for a step with a NaN/inf loss (see module doc)."""
    stop_on_nonfinite = state.options.training.stop_on_nonfinite_train_score

    def on_nonfinite(step: int, values) -> bool:
        losses = ", ".join("%s %s" % (k, values[k]) for k in sorted(values) if k.startswith("cost:"))
        if stop_on_nonfinite:
            existing = state.existing_epochs()
            raise NonFiniteLossError(
                "%s, step %i: the training loss is not finite (loss %s; %s). Stopping; nothing of epoch %i is "
                "saved%s. Lower the learning rate, add gradient_clip, or set stop_on_nonfinite_train_score = False "
                "to skip such steps." % (name, step, values["loss"], losses, epoch,
                                         ("; the last checkpoint is %s" % state.epoch_model_filename(existing[-1]))
                                         if existing else ""))
        print("%s, step %i: loss is not finite (%s), step left out of the score" % (name, step, losses), file=log.v2)
        return False

    return on_nonfinite


def _batch_check(progress: "step_checkpoints.PassProgress"):
    """The runner's check of the last skipped batch of a resumed epoch against the step checkpoint."""

    def check(batch) -> None:
        if progress.last_batch is not None and step_checkpoints.batch_fingerprint(batch) != progress.last_batch:
            raise step_checkpoints.StepCheckpointError(
                "step checkpoint of epoch %i: batch %i of the epoch is not the one trained before the restart "
                "(sequences %s): the dataset's sequence order or the batching differ; remove the step checkpoints "
                "(<model>.NNN.step*) to restart the epoch" % (progress.epoch, progress.steps_done,
                                                                list(batch.seq_tags)[:5]))

    return check


def _load_step_checkpoint(state: RunState, epoch: int) -> Optional["step_checkpoints.PassProgress"]:
    """Step checkpoints on: loads the newest one of ``epoch`` (variables) and returns its progress; else None."""
    if not (state.options.training.step_checkpoints_enabled and state.model_filename):
        return None
    return step_checkpoints.load_newest(state, epoch, saveable_variables(state))


def _resumed_learning_rate(state: RunState, progress: "step_checkpoints.PassProgress", learning_rate: float) -> float:
    """The learning rate a resumed epoch continues with: the one it started with (a warning when the learning-rate
    control now gives another)."""
    if progress.learning_rate == learning_rate:
        return learning_rate
    log.print_warning("step checkpoint: epoch %i was trained with learning rate %s before the restart, now the "
                      "learning-rate control gives %s; continuing with %s" % (
                          progress.epoch, progress.learning_rate, learning_rate, progress.learning_rate))
    state.updater.set_learning_rate(progress.learning_rate, session=state.session)
    return progress.learning_rate


def _step_checkpointer(state: RunState, epoch: int, *, sync, global_step_start: int,
                       learning_rate: float) -> Optional["step_checkpoints.StepCheckpointer"]:
    """The epoch's step checkpoint writer (None: step checkpoints off, no ``model``, or ``dry_run``).

    :raises ConfigValueError: step checkpoints in training with several workers (``sync`` set)
    """
    opts = state.options.training
    if not (opts.step_checkpoints_enabled and state.model_filename and not state.options.run.dry_run):
        return None
    if sync is not None:
        raise ConfigValueError(
            "step_checkpoint_interval", expected="unset (0) in training with several workers: step checkpoints "
                                                 "hold one process's dataset position",
            got="%s steps / %s min" % (opts.step_checkpoint_interval, opts.step_checkpoint_interval_minutes))
    return step_checkpoints.StepCheckpointer(
        state, epoch, every_steps=opts.step_checkpoint_interval, every_minutes=opts.step_checkpoint_interval_minutes,
        global_step_start=global_step_start, learning_rate=learning_rate)


def train_epoch(state: RunState, epoch: int, *, save: bool = True) -> Dict[str, float]:
    """One epoch: train pass, save, evaluations, LR control. Returns the epoch's score dict."""
    epoch_name = state.epoch_str(epoch)
    learning_rate, progress, global_step_start = _start_epoch(state, epoch, epoch_name)
    result, stepper = _train_pass(state, epoch, epoch_name, learning_rate=learning_rate, progress=progress,
                                  global_step_start=global_step_start)
    if save and stepper is None:
        model_io.save_model(state)
    epoch_errors, dev_results = _score_epoch(state, epoch, epoch_name, result, learning_rate=learning_rate,
                                             global_step_start=global_step_start)
    _finish_epoch(state, epoch, save=save, stepper=stepper, dev_results=dev_results)
    return epoch_errors


def _start_epoch(state: RunState, epoch: int, epoch_name: str) -> Tuple[float, Any, int]:
    """The epoch's learning rate set in the updater, the last best model loaded (``use_last_best_model``), and a step
    checkpoint of the epoch loaded when there is one.

    :return: (learning rate, the loaded step checkpoint's progress or None, the global step the pass starts at)
    """
    strategy = state.strategy
    learning_rate = strategy.agree_float(learning_rate_for_epoch(state, epoch), "learning_rate")
    print("start %s with learning rate %s ..." % (epoch_name, learning_rate), file=log.v4)
    state.updater.set_learning_rate(learning_rate, session=state.session)
    if state.options.training.use_last_best_model:
        if strategy.loads_checkpoints:
            maybe_use_last_best_model(state, epoch)
        sync_model(state)  # distributed: rank 0's choice
    progress = _load_step_checkpoint(state, epoch)
    if progress is not None:
        return _resumed_learning_rate(state, progress, learning_rate), progress, progress.global_step_start
    return learning_rate, None, int(state.session.run(state.network.global_train_step))


def _train_pass(state: RunState, epoch: int, epoch_name: str, *, learning_rate: float, progress: Any,
                global_step_start: int) -> Tuple[Any, Any]:
    """The training pass over the epoch's batches (from the step checkpoint's position when ``progress``), its
    scores over all workers and the epoch's TensorBoard summary.

    :return: (the pass's :class:`~returnn.tf.engine.runner.PassResult`, the step checkpointer or None)
    :raises NoTrainableLossError: the network has no loss to train (see :mod:`~returnn.tf.engine.build`)
    """
    if state.optim_op is None and state.optim_op_error is not None:
        raise state.optim_op_error
    strategy = state.strategy
    dataset = state.datasets.train
    strategy.init_epoch(dataset, epoch)  # distributed "shard": this worker's part
    # as the reference: a network without a layer over time (only frame-wise layers and losses) is trained and
    # evaluated on frames: the sequences are concatenated and cut into batches of batch_size frames
    batches = dataset.generate_batches(epoch=epoch, **state.options.batching.generate_batches_kwargs(
        train=True, recurrent_net=state.network.recurrent))
    name = epoch_name if epoch_name.startswith("pretrain") else "train " + epoch_name
    writer = state.summary_writers.get("train")
    sync = strategy.step_sync(state.session, state.updater, global_step_start)
    stepper = _step_checkpointer(state, epoch, sync=sync, global_step_start=global_step_start,
                                 learning_rate=learning_rate)
    runner = Runner(state, network=state.network, dataset=dataset, batches=batches, name=name,
                    loss_fetches=loss_fetches(state), train_op=state.optim_op,
                    feed_extra={state.train_flag: True, **epoch_feed(state.network, epoch)},
                    nonfinite_callback=_nonfinite_handler(state, epoch, name),
                    summary_writer=writer, global_step_offset=global_step_start, sync=sync,
                    start_step=progress.steps_done if progress is not None else 0,
                    skipped_batch_check=_batch_check(progress) if progress is not None else None,
                    step_hook=stepper.after_step if stepper is not None else None,
                    stop_hook=stepper.on_stop if stepper is not None else None,
                    step_seed=step_random.get_step_seed(state.graph))
    if progress is not None:
        progress.restore_sums(runner.result)
        progress.restore_generators()
    result = runner.run()
    if stepper is not None and runner.last_step_done[0] is not None:
        stepper.on_stop(runner.last_step_done[0], runner.last_step_done[1], result)  # the pass's end
    strategy.end_of_pass(result)  # distributed: scores over all workers' shards
    if writer is not None:
        epoch_summary = {"epoch/learning_rate": learning_rate}
        epoch_summary.update({"epoch/" + k: v for k, v in score_keys("train", result).items()})
        writer.write_scalars(global_step_start + result.num_steps, epoch_summary)
        writer.flush()
    return result, stepper


def _score_epoch(state: RunState, epoch: int, epoch_name: str, result, *, learning_rate: float,
                 global_step_start: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The train scores, the evaluation of each eval dataset and the epoch's meta data, given to the learning-rate
    control in the reference's order: train, then each eval dataset, then the meta data (it logs its error key
    from the first call that changes it).

    :return: (every score and meta value of the epoch, eval dataset name -> its pass result)
    """
    lrc = state.learning_rate_control
    epoch_errors: Dict[str, Any] = score_keys("train", result)
    lrc.set_epoch_error(epoch, epoch_errors)
    line = "%s score: %s" % (epoch_name, format_values(result.scores()))
    # as the reference (observed with an RF model marking no as_error loss): "error: None" without errors
    line += " error: %s" % (format_values(result.errors()) if result.errors() else None)
    print("%s elapsed: %s" % (line, hms(result.elapsed)), file=log.v3)
    dev_results = {}
    for ds_name, ds in state.datasets.evaluated.items():
        ds_writer = state.summary_writers.get("%s-%i" % (ds_name, epoch))  # one directory per epoch, as the reference
        # as the reference: the per-step values of the pass, at the steps after the epoch's training steps
        dev_results[ds_name] = eval_dataset(state, ds_name, ds, epoch, summary_writer=ds_writer,
                                            global_step_offset=global_step_start + result.num_steps)
        ds_errors = score_keys(ds_name, dev_results[ds_name])
        lrc.set_epoch_error(epoch, ds_errors)
        epoch_errors.update(ds_errors)
        if ds_writer is not None:
            ds_writer.flush()
    meta = {
        ":meta:effective_learning_rate": np.float32(learning_rate),  # the float32 variable's value, as the reference
        ":meta:epoch_num_train_steps": result.num_steps,
        ":meta:epoch_train_time_secs": int(round(result.elapsed)),
        ":meta:global_train_step": global_step_start,
    }
    lrc.set_epoch_error(epoch, meta)
    epoch_errors.update(meta)
    return epoch_errors, dev_results


def _finish_epoch(state: RunState, epoch: int, *, save: bool, stepper: Any, dev_results: Dict[str, Any]) -> None:
    """After the scores: the learning-rate file, the epoch checkpoint of a run with step checkpoints, the eval line,
    the averaged checkpoint (``average_checkpoints``) and the deletion of old ones (``cleanup_old_models``)."""
    strategy = state.strategy
    lrc = state.learning_rate_control
    training = state.options.training
    if state.model_filename and not state.options.run.dry_run and strategy.is_root:
        lrc.save()
    if stepper is not None:  # step checkpoints: the checkpoint after the epoch's scores are in the file (module doc)
        if save:
            model_io.save_model(state)
        stepper.remove_all()
    # the reference prints this line also without eval datasets (then empty)
    print(" ".join(format_dataset_results(n, r) for n, r in dev_results.items()), file=log.v3)
    if save and training.average_checkpoints is not None and state.model_filename \
            and not state.options.run.dry_run and strategy.is_root:
        from returnn.engine.checkpoint_averaging import AveragingOptions
        from returnn.tf.engine.averaging import write_averaged_checkpoint

        write_averaged_checkpoint(state.model_filename, epoch, AveragingOptions(training.average_checkpoints), lrc)
    if training.cleanup_old_models and strategy.is_root:
        from returnn.tf.engine.cleanup import cleanup_old_models

        cleanup_old_models(state.model_filename, training, lrc)
    strategy.after_save(epoch)  # distributed: all workers wait until rank 0 saved
