#!/usr/bin/env python3
"""
Deletes the old checkpoints of a training as the ``cleanup_old_models`` option would (after asking on stdin).

Usage::

    tools/cleanup-old-models.py --config CONFIG [--cwd DIR] [--model PREFIX] [--scores LEARNING_RATE_FILE] [--dry_run]

The checkpoints ``<model>.NNN`` (and ``<model>.pretrain.NNN``) up to ``num_epochs`` are considered; kept are the
last ``keep_last_n``, the ``keep_best_n`` best by each key of the learning-rate file and the ``keep`` epochs of the
config's ``cleanup_old_models`` (defaults as there). It prints which epochs it keeps and which it would delete,
then asks ``Delete those models? Confirm? [yes/no]``. ``--model`` and ``--scores`` replace the config's
``model`` and ``learning_rate_file`` (both suffice without ``--config``). ``--dry_run`` prints the same plan and
deletes nothing (the reference's tool prints nothing with it).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> int:
    """Runs the tool; exit status 1 with one message on a config error."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    parser.add_argument("--cwd", help="will change to this dir")
    parser.add_argument("--model", help="model filenames (default: take from config)")
    parser.add_argument("--scores", help="learning_rate_control file, e.g. newbob.data (default: take from config)")
    parser.add_argument("--dry_run", action="store_true")
    args = parser.parse_args(argv)

    if args.cwd:
        os.chdir(args.cwd)
    from returnn import __main__ as rnn
    from returnn.errors import ReturnnError

    updates = {"need_data": False, "device": "cpu"}
    if args.model:
        updates["model"] = args.model
    if args.scores:
        updates["learning_rate_file"] = args.scores
    try:
        rnn.init(config_filename=args.config, config_updates=updates, extra_greeting="Delete old models.")
        rnn.engine.cleanup_old_models(ask_for_confirmation=True, dry_run=args.dry_run)
    except ReturnnError as exc:
        print("cleanup-old-models: %s" % exc, file=sys.stderr)
        return 1
    finally:
        rnn.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
