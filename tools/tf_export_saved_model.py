#!/usr/bin/env python3
"""Writes the network of a config, with the params of a checkpoint, as a TensorFlow SavedModel that loads with
plain ``tf.saved_model.load`` in a process without RETURNN (e.g. TF Serving). Beyond the reference, which exports
a TF model only as a graph for RASR (``compile_tf_graph.py``).

Usage::

    tools/tf_export_saved_model.py CONFIG --output_dir DIR [--epoch N | --load CHECKPOINT] [--search]
        [--no_forward] [--output_layer NAME] [--search_output_layer NAME] [--overwrite] [++key value ...]

The network is built as ``task = "forward"`` builds it (train flag off) and the checkpoint is chosen as that task
chooses it: ``--load`` (config ``load``), else ``--epoch`` (config ``load_epoch``) of ``model``, else the newest
epoch of ``model``. The variables are saved in the SavedModel (``variables/``), not frozen into constants.

Signatures (inputs batch-major; ``<key>`` the extern data the outputs need, e.g. ``data``):

- ``serving_default`` (the forward network; not with ``--no_forward``): inputs ``<key>`` (the padded values, e.g.
  int32 ``[B, T]`` for sparse data, float32 ``[B, T, F]``) and ``<key>_seq_lens`` (int32 ``[B]``; a further dynamic
  axis ``a``: ``<key>_size<a>``); outputs ``output`` (the output layer, ``--output_layer`` or config
  ``forward_output_layer``, as ``task = "forward"`` writes it) and ``output_seq_lens`` (int32 ``[B]``).
- ``search`` (with ``--search``: the network with the search flag, same params): the same inputs; outputs
  ``hypotheses`` (``[B, K, T]``, K the beam size, best first), ``hypotheses_seq_lens`` (int32 ``[B, K]``) and
  ``scores`` (float32 ``[B, K]``) of the beam of ``--search_output_layer`` (config ``search_output_layer``, default
  ``output``; a ``decide`` layer stands for the beam it decides on).

Loading::

    model = tf.saved_model.load(DIR)
    out = model.signatures["serving_default"](data=x, data_seq_lens=lens)  # {"output": ..., "output_seq_lens": ...}

A network whose exported part calls Python (``tf.py_func``, e.g. an ``eval`` layer using it) or a custom compiled
op is refused with an error naming the layer.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Further config values: ++key value (as for rnn.py).")
    parser.add_argument("config", help="the RETURNN config file")
    parser.add_argument("--output_dir", required=True, help="the SavedModel directory to write (must not exist)")
    parser.add_argument("--epoch", type=int, help="load the checkpoint of this epoch of 'model' (config load_epoch)")
    parser.add_argument("--load", help="load this checkpoint (config load)")
    parser.add_argument("--search", action="store_true", help="also write the 'search' signature (beam search)")
    parser.add_argument("--no_forward", action="store_true", help="no 'serving_default' (forward) signature")
    parser.add_argument("--output_layer", help="layer of the forward signature (default: forward_output_layer, "
                                               "else the output layer)")
    parser.add_argument("--search_output_layer", help="layer of the search signature (default: search_output_layer, "
                                                      "else 'output')")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --output_dir")
    parser.add_argument("--verbosity", type=int, default=3, help="log verbosity (default 3)")
    return parser


def main(argv: Optional[List[str]] = None) -> None:
    """Parses the arguments and writes the SavedModel.

    :raises ReturnnError: a config the network cannot be built from, no checkpoint, a network that cannot be
        exported (:class:`returnn.tf.export.NotExportableError`)
    """
    args, rest = _arg_parser().parse_known_args(argv)
    from returnn.config import Config, set_global_config
    from returnn.errors import ConfigValueError
    from returnn.log import log
    from returnn.util.behavior_version import BehaviorVersion

    unknown = [a for a in rest if a.startswith("-") and not a.startswith("++")]
    if unknown:
        raise ConfigValueError("arguments", expected="the options of --help, or ++key value", got=" ".join(unknown))
    config = Config()
    config.parse_cmd_args(rest)
    config.load_file(args.config)
    config.apply_cmd_overrides()
    if args.epoch is not None:
        config.set("load_epoch", args.epoch)
    if args.load:
        config.set("load", args.load)
    config.set("task", "forward")
    config.set("log_verbosity", args.verbosity)
    set_global_config(config)
    log.initialize(verbosity=[args.verbosity])
    BehaviorVersion.set(config.int("behavior_version", None))

    from returnn.tf.export import export_saved_model

    export_saved_model(config, args.output_dir, forward=not args.no_forward, search=args.search,
                       output_layer=args.output_layer, search_output_layer=args.search_output_layer,
                       overwrite=args.overwrite)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
