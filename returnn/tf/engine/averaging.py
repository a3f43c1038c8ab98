"""``average_checkpoints``: after each saved epoch, the average of the last N (or N best) epoch checkpoints is
written as ``<model>.avg.NNN`` (which epochs: :mod:`returnn.engine.checkpoint_averaging`; the arithmetic, that of
``tools/tf_avg_checkpoints.py``: :mod:`returnn.tf.util.checkpoint_average`).

The average holds every variable of the epoch checkpoints (params, ``global_step``, optimizer slots), so it
loads like an epoch checkpoint. It is written crash-safely (temporary name, ``.index`` renamed last); the
previous average of the run is deleted once the new one is complete, so one ``<model>.avg.NNN`` exists at a time.
The ``checkpoint`` state file of the directory is not changed (it keeps naming the newest epoch checkpoint).
"""

from __future__ import annotations

import os
from typing import List, Optional

from returnn.engine.checkpoint_averaging import AveragingOptions, averaged_model_prefix, epochs_to_average
from returnn.engine.checkpoint_files import checkpoint_files, get_epoch_model_filename, get_existing_epochs
from returnn.log import log
from returnn.tf.engine.checkpoints import CheckpointSaver
from returnn.tf.util.checkpoint_average import ValuesGraph, average_checkpoints


def remove_checkpoint(prefix: str) -> None:
    """Deletes the files of the checkpoint ``prefix``, the ``.index`` first (it stops counting as complete)."""
    names = checkpoint_files(prefix)
    names.sort(key=lambda name: not name.endswith(".index"))
    for name in names:
        os.remove(name)


def write_averaged_checkpoint(model: str, epoch: int, opts: AveragingOptions, learning_rate_control) -> Optional[str]:
    """Writes ``<model>.avg.<epoch>``, the average of the epochs :func:`epochs_to_average` picks among the epoch
    checkpoints of ``model`` up to ``epoch``, and deletes older ``<model>.avg.*``.

    :param learning_rate_control: its ``epoch_data`` has the scores (for ``best_n``)
    :return: the prefix written, or None when fewer than N checkpoints (with scores, for ``best_n``) exist yet
    :raises DataFileError: an epoch checkpoint cannot be read or they differ in their variables
    :raises OSError: the average cannot be written
    """
    existing = [e for e in get_existing_epochs(model) if e <= epoch]
    scores = {ep: dict(data.error) for ep, data in learning_rate_control.epoch_data.items()}
    epochs = epochs_to_average(existing, scores, opts, learning_rate_control.get_error_key)
    what = opts.describe(opts.key or learning_rate_control.get_error_key(epoch))
    if epochs is None:
        print("average_checkpoints (%s): not yet %i epoch checkpoints, no average written." % (what, opts.n),
              file=log.v4)
        return None
    prefixes: List[str] = [get_epoch_model_filename(model, e) for e in epochs]
    values = average_checkpoints(prefixes)
    avg_model = averaged_model_prefix(model)
    target = get_epoch_model_filename(avg_model, epoch)
    with ValuesGraph(values) as holder:
        CheckpointSaver(holder.variables, write_meta_graph=False).save(holder.session, target)
    for old in get_existing_epochs(avg_model):
        if old != epoch:
            remove_checkpoint(get_epoch_model_filename(avg_model, old))
    print("Saved the average of epochs %s (%s) as %s." % (epochs, what, target), file=log.v3)
    return target
