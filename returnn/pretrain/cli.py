"""``python3 -m returnn.pretrain CONFIG [--diff] [++key value ...]``: prints the network of each pretrain epoch.

Published configs point to this for debugging their construction functions (``python3 ./crnn/Pretrain.py
config...`` in the old layout). Output as the reference's ``demo()``: ``pretrain: <schedule>``, then per epoch
``epoch N (of M) network json:`` and the network dict (``pprint``), or with ``--diff`` the difference to the previous
epoch's network (``(initial)`` for the first, ``No diff.`` when equal; lines as in the training log), then
``done.``. Without ``pretrain`` in the config it uses ``"default"``, saying so.
"""

from __future__ import annotations

import argparse
import pprint
import sys
from typing import List, Optional


def demo(argv: Optional[List[str]] = None) -> None:
    """The command line tool (see module doc)."""
    from returnn.config import Config, set_global_config
    from returnn.options.pretrain import PretrainOptions
    from returnn.pretrain.schedule import pretrain_from_config
    from returnn.tf.engine.net_dict_diff import net_dict_diff

    parser = argparse.ArgumentParser(prog="python3 -m returnn.pretrain",
                                     description="Prints the network of each pretrain epoch of a config.")
    parser.add_argument("--diff", action="store_true", help="print the difference to the previous epoch's network")
    parser.add_argument("config", help="RETURNN config file")
    parser.add_argument("other_returnn_args", nargs=argparse.REMAINDER, help="++key value overrides")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    config = Config()
    config.load_file(args.config)
    config.parse_cmd_args(args.other_returnn_args)
    set_global_config(config)
    if not PretrainOptions.read_one(config, "pretrain"):
        print("config option 'pretrain' not set, will set it for this demo to 'default'")
        config.set("pretrain", "default")
    pretrain = pretrain_from_config(config)
    print("pretrain: %s" % (pretrain,))
    num_epochs = pretrain.get_train_num_epochs()
    last = None
    for epoch in range(1, num_epochs + 1):
        print("epoch %i (of %i) network json:" % (epoch, num_epochs))
        net_dict = pretrain.get_network_json_for_epoch(epoch)
        if args.diff:
            if last is None:
                print("(initial)")
            else:
                print("\n".join(net_dict_diff(last, net_dict)) or "No diff.")
        else:
            pprint.pprint(net_dict)
        last = net_dict
    print("done.")
