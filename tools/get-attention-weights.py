#!/usr/bin/env python3
"""Dumps the attention weights of an encoder-decoder network (layers inside the decoder's rec layer), forwarding a
dataset with its targets, as the reference's tool.

Usage::

    tools/get-attention-weights.py my.config --dump_dir /tmp/att [--data dev] [--epoch N] [--layers att_weights]
        [--rec_layer output] [--enc_layer encoder] [--num_seqs N] [--output_format npy|png|hdf]
        [--output_file att.hdf] [++key value ...]

``npy``: one file per batch, ``<dump_dir>/<config name>_ep<epoch>_data_<first seq>_<last seq>.npy``, a dict
batch entry -> ``{"tag", "data", "classes", "output", "output_len", "encoder_len", "rec_<layer>"}``; load with
``numpy.load(f, allow_pickle=True).item()``. ``hdf``: the weights of each sequence flattened, with an extra stream
``sizes`` (``[output_len, encoder_len]``). ``--layers`` adds to the default ``att_weights``. ``--do_search`` is not
provided (nor in the reference).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description="Dumps attention weights, to numpy npy files (a dict per batch), png images or HDF "
                    "(like rnn.py --task=forward).")
    parser.add_argument("config_file", help="RETURNN config")
    parser.add_argument("--epoch", type=int, default=None)
    parser.add_argument("--data", default="train",
                        help="e.g. 'train', 'config:train', or a dataset dict")
    parser.add_argument("--do_search", action="store_true")
    parser.add_argument("--beam_size", type=int, default=12)
    parser.add_argument("--dump_dir", help="for npy or png")
    parser.add_argument("--output_file", help="hdf")
    parser.add_argument("--device", help="gpu or cpu (default: automatic)")
    parser.add_argument("--layers", default=["att_weights"], action="append", help="Layer of subnet to grab")
    parser.add_argument("--rec_layer", default="output", help="Subnet layer to grab from; decoder")
    parser.add_argument("--enc_layer", default="encoder")
    parser.add_argument("--batch_size", type=int, default=5000)
    parser.add_argument("--seq_list", default=[], action="append", help="predefined list of seqs")
    parser.add_argument("--min_seq_len", default="0", help="can also be dict")
    parser.add_argument("--num_seqs", type=int, default=-1, help="stop after this many seqs")
    parser.add_argument("--output_format", default="npy", help="npy, png or hdf")
    parser.add_argument("--dropout", type=float, default=None, help="if set, overwrites all dropout values")
    parser.add_argument("--train_flag", action="store_true")
    parser.add_argument("--reset_partition_epoch", type=int, default=1)
    parser.add_argument("--reset_seq_ordering", default="sorted_reverse")
    parser.add_argument("--reset_epoch_wise_filter", default=None)
    args, rest = parser.parse_known_args(argv)
    from returnn.tf.tools.attention_weights import get_attention_weights
    from returnn.util.literal_py_to_pickle import literal_eval

    extra = list(rest)
    if args.device:
        extra += ["++device", args.device]
    get_attention_weights(
        args.config_file, epoch=args.epoch, data=args.data, do_search=args.do_search, dump_dir=args.dump_dir,
        output_file=args.output_file, layers=args.layers, rec_layer=args.rec_layer, enc_layer=args.enc_layer,
        batch_size=args.batch_size, seq_list=args.seq_list, min_seq_len=args.min_seq_len, num_seqs=args.num_seqs,
        output_format=args.output_format, dropout=args.dropout, train_flag=args.train_flag,
        reset_partition_epoch=args.reset_partition_epoch, reset_seq_ordering=args.reset_seq_ordering,
        reset_epoch_wise_filter=literal_eval(args.reset_epoch_wise_filter) if args.reset_epoch_wise_filter else None,
        command_line_options=extra)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
