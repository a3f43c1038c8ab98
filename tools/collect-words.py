#!/usr/bin/env python3
"""Collects the words of the transcriptions of a corpus (split at white space), with totals, and with
``--lexicon`` lists the words that a Bliss lexicon lacks.

Usage::

    tools/collect-words.py corpus.xml.gz --lexicon lexicon.xml.gz
    tools/collect-words.py text.txt.gz --dump_orth

The input is a Bliss XML corpus (``.xml``/``.xml.gz``), a text file (``.txt``/``.txt.gz``, one transcription
per line) or a RETURNN config (the ``"orth"`` data of its train dataset).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import run_main  # noqa: E402

_READ_LINES = {"bliss": "Read Bliss corpus: {}", "txt": "Read corpus from txt-file: {}",
               "config": "Read corpus from RETURNN config: {}"}


def main() -> None:
    parser = argparse.ArgumentParser(description="Collect orth symbols.")
    parser.add_argument("input", help="RETURNN config, Corpus Bliss XML or just txt-data")
    parser.add_argument("--dump_orth", action="store_true")
    parser.add_argument("--lexicon")
    args = parser.parse_args()

    from returnn.datasets.corpus_text import WordStats, iter_corpus, lexicon_orths
    from returnn.errors import DataFileError

    def _on_kind(kind: str) -> None:
        print(_READ_LINES[kind].format(args.input))
        print("Returnn collect-words starting up.")

    stats = WordStats(dump_orth=args.dump_orth, stream=sys.stdout)
    for orth, duration, frames in iter_corpus(args.input, with_frames=False, on_kind=_on_kind):
        stats.add(orth, duration, frames)
    try:
        stats.finish()
    except ValueError as exc:
        raise DataFileError(args.input, str(exc)) from None
    if args.lexicon:
        print(f"Lexicon: {args.lexicon}")
        stats.report_lexicon(lexicon_orths(args.lexicon))
    else:
        print("No lexicon provided (--lexicon).")


if __name__ == "__main__":
    run_main(main)
