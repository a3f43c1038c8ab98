#!/usr/bin/env python3
"""
The best epoch of a training, from its ``learning_rate_file``.

Usage::

    tools/get-best-model-epoch.py LEARNING_RATE_FILE [--key KEY] [--first-epoch N] [--last-epoch N] [--print-score]
                                  [--model MODEL_PREFIX]

Prints the epoch with the lowest score (the earliest among equal scores), alone on a line, so that scripts can
use ``$(tools/get-best-model-epoch.py lr.txt)``. With ``--print-score``: ``<epoch> <key> <score>``.

``--key`` is the score key, e.g. ``dev_score_output`` or ``dev_error``; as with
``learning_rate_control_error_measure``, the first key starting with it is used where it is not present
exactly. Without ``--key``, each epoch's key is chosen as the learning-rate control does (``dev_score``,
``dev_score_output``, other ``dev_*``, ``train_score``, ...; see
:meth:`returnn.learning_rate_control.LearningRateControl.get_error_key`). Epochs without that score are skipped.
With ``--model``, only epochs with an existing checkpoint ``<prefix>.NNN.index`` (or ``.meta``) count.

Exit status 1 with one message if the file is missing or malformed, or no epoch has the score (the message
lists the keys that do exist and the closest one).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from returnn.errors import ReturnnError  # noqa: E402
from returnn.learning_rate_control import NewbobRelative  # noqa: E402
from returnn.lr_control.file_format import read_learning_rate_file  # noqa: E402
from returnn.util.suggest import close_matches  # noqa: E402


def find_best_epoch(epoch_data, key=None, first_epoch=None, last_epoch=None, model_prefix=None):
    """``(epoch, key, score)`` of the lowest score, or None.

    :param epoch_data: epoch → ``EpochData`` as read from the learning_rate_file
    """
    control = NewbobRelative(default_learning_rate=1.0, error_measure_key=key)
    control.epoch_data = epoch_data
    best = None
    for epoch in sorted(epoch_data):
        if first_epoch is not None and epoch < first_epoch or last_epoch is not None and epoch > last_epoch:
            continue
        if model_prefix and not any(os.path.exists("%s.%03d%s" % (model_prefix, epoch, ext))
                                    for ext in (".index", ".meta")):
            continue
        epoch_key = control.get_error_key(epoch)
        if key is not None and (epoch_key is None or not epoch_key.startswith(key)):
            continue
        score = epoch_data[epoch].error.get(epoch_key) if epoch_key is not None else None
        if score is None:
            continue
        if best is None or score < best[2]:
            best = (epoch, epoch_key, score)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Prints the best epoch from a learning_rate_file.")
    parser.add_argument("learning_rate_file")
    parser.add_argument("--key", help="score key, e.g. dev_score_output (default: as the LR control chooses)")
    parser.add_argument("--first-epoch", type=int, default=None)
    parser.add_argument("--last-epoch", type=int, default=None)
    parser.add_argument("--model", help="model prefix; only epochs with a saved checkpoint count")
    parser.add_argument("--print-score", action="store_true", help="print '<epoch> <key> <score>'")
    args = parser.parse_args(argv)
    try:
        epoch_data = read_learning_rate_file(args.learning_rate_file)
    except ReturnnError as exc:
        print(f"get-best-model-epoch: {exc.args[0]}", file=sys.stderr)
        return 1
    best = find_best_epoch(epoch_data, key=args.key, first_epoch=args.first_epoch, last_epoch=args.last_epoch,
                           model_prefix=args.model)
    if best is None:
        keys = sorted({k for data in epoch_data.values() for k in data.error})
        message = f"get-best-model-epoch: no epoch in {args.learning_rate_file!r} has a score"
        if args.key:
            message += f" {args.key!r}"
            suggestions = close_matches(args.key, keys)
            if suggestions:
                message += "\n  did you mean: " + ", ".join(repr(s) for s in suggestions) + "?"
        message += "\n  keys in the file: " + (", ".join(keys) if keys else "none")
        print(message, file=sys.stderr)
        return 1
    epoch, key, score = best
    print(f"{epoch} {key} {score!r}" if args.print_score else epoch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
