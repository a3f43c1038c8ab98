"""``cleanup_old_models``: deleting old checkpoints, keeping the best, the last and a sparse pattern of epochs.

Log lines as the reference: ``We have stored models for epochs [1, 2, 3, ..., 38, 39, 40] and keep epochs
[5, 8, ...].``, ``We will delete the models of epochs [...].``, ``Deleted <size>.``. The policy itself is in
:mod:`returnn.engine.checkpoint_files`.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from returnn.engine.checkpoint_averaging import AveragingOptions, epochs_kept_for_averaging
from returnn.engine.checkpoint_files import (
    CleanupOptions,
    checkpoint_files,
    get_existing_checkpoints,
    select_epochs_to_keep,
)
from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import TrainingOptions
from returnn.util.timefmt import human_bytes_size


def _short_list(epochs: List[int]) -> str:
    if len(epochs) <= 6:
        return str(epochs)
    return "[%s, ..., %s]" % (", ".join(map(str, epochs[:3])), ", ".join(map(str, epochs[-3:])))


def cleanup_old_models(model: Optional[str], options: TrainingOptions, learning_rate_control, *,
                       ask_for_confirmation: bool = False, dry_run: bool = False) -> List[int]:
    """Deletes the checkpoints of ``model`` the policy does not keep. Returns the deleted epochs.

    :param model: config ``model`` (the checkpoint path prefix)
    :param options: the parsed ``cleanup_old_models``, ``num_epochs`` and ``average_checkpoints``
    :param learning_rate_control: provides the scores per epoch
    :param ask_for_confirmation: ask on stdin before deleting (the ``cleanup_old_models`` task)
    :param dry_run: only print which epochs would be kept and deleted (``tools/cleanup-old-models.py --dry_run``)
    :raises ConfigValueError: ``model`` is not set, or a bad ``cleanup_old_models`` value
    """
    if not model:
        raise ConfigValueError("model", expected="the checkpoint prefix whose old epochs to delete", got=None)
    opts = CleanupOptions(options.cleanup_old_models or True, num_epochs=options.num_epochs)
    checkpoints = get_existing_checkpoints(model)  # pretrain ones included, as the reference
    # as the reference: epochs after num_epochs are neither listed nor deleted
    existing = [epoch for epoch in sorted(checkpoints) if epoch <= opts.num_epochs]
    if not existing:
        print("No stored models for %r, nothing to clean up." % model, file=log.v3)
        return []
    scores = {ep: dict(data.error) for ep, data in learning_rate_control.epoch_data.items()}
    keep = select_epochs_to_keep(existing, scores, opts)
    averaging = options.average_checkpoints
    if averaging is not None:  # the epochs the next averages are made of
        keep |= epochs_kept_for_averaging(existing, scores, AveragingOptions(averaging),
                                          learning_rate_control.get_error_key)
    delete = [ep for ep in existing if ep not in keep]
    print("We have stored models for epochs %s and keep epochs %s." % (_short_list(existing), sorted(keep)),
          file=log.v3)
    if not delete:
        print("No models to delete.", file=log.v3)
        return []
    print("We will delete the models of epochs %s." % delete, file=log.v3)
    if dry_run:
        print("Dry run: nothing deleted.", file=log.v3)
        return []
    if ask_for_confirmation:
        sys.stdout.write("Delete those models? Confirm? [yes/no]")
        sys.stdout.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            print("Not deleting anything.", file=log.v3)
            return []
    size = 0
    for ep in delete:
        prefix = checkpoints[ep]
        index = prefix + ".index"
        names = checkpoint_files(prefix)
        if index in names:  # remove the index first: the checkpoint stops counting as complete
            names.remove(index)
            names.insert(0, index)
        for name in names:
            try:
                size += os.path.getsize(name)
                os.remove(name)
            except OSError as exc:
                print("Could not delete %s: %s" % (name, exc), file=log.v2)
    print("Deleted %s." % human_bytes_size(size), file=log.v3)
    return delete
