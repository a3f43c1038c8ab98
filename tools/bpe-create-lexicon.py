#!/usr/bin/env python3
"""Writes a Bliss lexicon whose phonemes are the symbols of a BPE vocabulary: each word of a word vocabulary
with every spelling in BPE pieces (``he@@ llo``, ``hello``, ...), e.g. for RASR decoding with a BPE model.

Usage::

    tools/bpe-create-lexicon.py --bpe_vocab bpe.vocab --word_vocab words.vocab --output lexicon.xml
    tools/bpe-create-lexicon.py --bpe_vocab bpe.vocab --word_vocab words.txt --lower_case --skip_special

Both vocabularies are a dict literal (label → id) or one label per line. ``--skip_special`` leaves out words like
``<s>`` / ``[NOISE]`` (those that are BPE symbols come last, spelled as themselves); ``--lower_case`` lower-cases
the words. ``--unk`` is accepted and, as in the reference, changes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import run_main  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bpe_vocab", required=True)
    parser.add_argument("--word_vocab", required=True)
    parser.add_argument("--unk", default="<unk>")
    parser.add_argument("--skip_special", action="store_true")
    parser.add_argument("--lower_case", action="store_true")
    parser.add_argument("--output")
    args = parser.parse_args()

    from returnn.datasets.util.bpe_lexicon import build_bpe_lexicon, lexicon_xml, vocab_labels
    bpe_symbols = vocab_labels(args.bpe_vocab)
    print(f"BPE symbols: num {len(bpe_symbols)}, first {bpe_symbols[0] if bpe_symbols else None!r}")
    words = vocab_labels(args.word_vocab)
    print(f"Words: num {len(words)}, first {words[0] if words else None!r}")
    print("Build BPE prefix tree...")
    print("Build lexicon...")
    lemmas = build_bpe_lexicon(bpe_symbols, words, skip_special=args.skip_special, lower_case=args.lower_case,
                               on_missing=lambda word: print(f"no BPE seq found for word {word!r}"))
    if args.output:
        from returnn.util.files import atomic_write_text
        atomic_write_text(args.output, lexicon_xml(bpe_symbols, lemmas))
        print(f"Wrote XML: {args.output}")
    else:
        print("Specify --output to save the XML.")


if __name__ == "__main__":
    run_main(main)
