#!/usr/bin/env python3
"""Collects the symbols (characters and ``[SPECIAL]`` tokens, plus ``[END]``) of the transcriptions of a corpus,
with totals (frames, symbols, their ratio), and optionally writes the sorted symbol list, one per line.

Usage::

    tools/collect-orth-symbols.py corpus.xml.gz --output orth_syms.txt
    tools/collect-orth-symbols.py text.txt.gz --add_numbers 0 --remove_symbols '(){}$,'
    tools/collect-orth-symbols.py my.config --dump_orth_syms    # the "orth" data of the train dataset

The input is a Bliss XML corpus (``.xml``/``.xml.gz``), a text file (``.txt``/``.txt.gz``, one transcription
per line, no durations) or a RETURNN config.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import run_main  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="Collect orth symbols.")
    parser.add_argument("input", help="RETURNN config, Corpus Bliss XML or just txt-data")
    parser.add_argument("--frame_time", type=float, default=10, help="time (in ms) per frame. not needed for Corpus "
                                                                     "Bliss XML")
    parser.add_argument("--collect_time", type=int, default=True, help="collect time info. can be slow in some cases")
    parser.add_argument("--dump_orth_syms", action="store_true", help="dump all orthographies")
    parser.add_argument("--filter_orth_sym", help="dump orthographies which match this filter")
    parser.add_argument("--filter_orth_syms_seq", help="dump orthographies which match this filter")
    parser.add_argument("--max_seq_frame_len", type=float, default=float("inf"),
                        help="collect only orthographies <= this max frame len")
    parser.add_argument("--max_seq_orth_len", type=float, default=float("inf"),
                        help="collect only orthographies <= this max orth len")
    parser.add_argument("--add_numbers", type=int, default=True, help="add chars 0-9 to orth symbols")
    parser.add_argument("--add_lower_alphabet", type=int, default=True, help="add chars a-z to orth symbols")
    parser.add_argument("--add_upper_alphabet", type=int, default=True, help="add chars A-Z to orth symbols")
    parser.add_argument("--remove_symbols", default="(){}$", help="remove these chars from orth symbols")
    parser.add_argument("--output", help="where to store the symbols (default: dont store)")
    args = parser.parse_args()

    from returnn.datasets.corpus_text import OrthSymbolStats, corpus_kind, iter_corpus
    from returnn.errors import DataFileError
    print("RETURNN collect-orth-symbols starting up.")
    if args.output and os.path.exists(args.output):
        raise DataFileError(args.output, "--output exists already (it is not overwritten)")
    collect_time = bool(args.collect_time)
    if corpus_kind(args.input) == "txt" and collect_time:
        print("No time-info in txt.")
        collect_time = False
    stats = OrthSymbolStats(frame_time=args.frame_time, collect_time=collect_time,
                            max_seq_frame_len=args.max_seq_frame_len, max_seq_orth_len=args.max_seq_orth_len,
                            dump_orth=args.dump_orth_syms, filter_orth_sym=args.filter_orth_sym,
                            filter_orth_syms_seq=args.filter_orth_syms_seq, stream=sys.stdout)
    for orth, duration, frames in iter_corpus(args.input, with_frames=collect_time):
        stats.add(orth, duration, frames)
    try:
        symbols = stats.finish(add_numbers=bool(args.add_numbers), add_lower_alphabet=bool(args.add_lower_alphabet),
                               add_upper_alphabet=bool(args.add_upper_alphabet), remove_symbols=args.remove_symbols)
    except ValueError as exc:
        raise DataFileError(args.input, str(exc)) from None
    if args.output:
        from returnn.util.files import atomic_write_text
        atomic_write_text(args.output, "".join(f"{s}\n" for s in symbols))
        print(f"Wrote orthography symbols to {args.output}")
    else:
        print("Provide --output to save the symbols.")


if __name__ == "__main__":
    run_main(main)
