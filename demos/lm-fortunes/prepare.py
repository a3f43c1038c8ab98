#!/usr/bin/env python3
"""
Prepare the character LM demo: the written fortunes sentences as LmDataset text files.

Usage::

    python3 demos/lm-fortunes/prepare.py [--out-dir DIR] [--num-train N]

Needs the Debian package ``fortunes`` (``apt-get install fortunes``). Writes into ``--out-dir`` (default
``demos/lm-fortunes/data``), each file via a temp name + rename:

- ``train.txt``, ``dev.txt``, ``test.txt``: one sentence per line (as written: case, digits, punctuation;
  cleaned, 3-20 words, deduplicated, split 90/5/5 % by a hash of the sentence; see
  ``demos/asr-synth/fortunes_text.py``)
- ``orth_symbols.txt``: the 74 characters the cleaning lets through, one per line (the first line is the
  space), then ``[END]`` (the sequence-end symbol, also used as the start symbol of the ``delayed`` stream):
  75 symbols, the ``dim`` in ``char-lstm.config``
- ``unigram.txt``: the unigram baseline: per-character cross entropy (nats) and perplexity on dev of the
  training-set character frequencies (add-one smoothed), ``[END]`` counted once per sentence like LmDataset

Runs in about a second; re-running rewrites the same files.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "asr-synth"))

import fortunes_text  # noqa: E402

END_SYMBOL = "[END]"


def _write(path: str, text: str):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf8") as f:
        f.write(text)
    os.replace(tmp, path)


def unigram_baseline(train: list[str], dev: list[str], symbols: list[str]) -> tuple[float, float]:
    """
    :param symbols: vocabulary incl. ``[END]``
    :return: (cross entropy in nats per symbol, perplexity) on dev, ``[END]`` once per sentence,
        add-one smoothed training counts
    """
    counts = Counter(c for line in train for c in line)
    counts[END_SYMBOL] = len(train)
    total = sum(counts.values()) + len(symbols)
    log_prob = {s: math.log((counts[s] + 1) / total) for s in symbols}
    n, nll = 0, 0.0
    for line in dev:
        for c in list(line) + [END_SYMBOL]:
            nll -= log_prob[c]
            n += 1
    ce = nll / max(n, 1)
    return ce, math.exp(ce)


def main(argv=None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Prepare the fortunes character-LM text files.")
    parser.add_argument("--out-dir", default=os.path.join(here, "data"), help="default %(default)s")
    parser.add_argument("--fortunes-dir", default=fortunes_text.DEFAULT_FORTUNES_DIR, help="default %(default)s")
    parser.add_argument("--num-train", type=int, default=0, help="use only the first N training sentences (0: all)")
    parser.add_argument("--num-dev", type=int, default=0, help="use only the first N dev/test sentences (0: all)")
    args = parser.parse_args(argv)
    try:
        corpus = fortunes_text.load_corpus(args.fortunes_dir, allow_digits=True, written=True)
    except fortunes_text.FortunesMissingError as exc:
        print(f"prepare.py: error: {exc}", file=sys.stderr)
        return 1
    if args.num_train:
        corpus["train"] = corpus["train"][: args.num_train]
    if args.num_dev:
        corpus["dev"], corpus["test"] = corpus["dev"][: args.num_dev], corpus["test"][: args.num_dev]
    os.makedirs(args.out_dir, exist_ok=True)
    symbols = fortunes_text.WRITTEN_CHARS + [END_SYMBOL]
    for split, lines in corpus.items():
        _write(os.path.join(args.out_dir, f"{split}.txt"), "".join(line + "\n" for line in lines))
    _write(os.path.join(args.out_dir, "orth_symbols.txt"), "".join(s + "\n" for s in symbols))
    ce, ppl = unigram_baseline(corpus["train"], corpus["dev"], symbols)
    _write(
        os.path.join(args.out_dir, "unigram.txt"),
        f"dev unigram cross entropy (nats/char): {ce:.4f}\ndev unigram perplexity (per char): {ppl:.3f}\n",
    )
    print(
        f"{args.out_dir}: {', '.join(f'{s}.txt {len(v)} sentences' for s, v in corpus.items())}; "
        f"{len(symbols)} symbols; dev unigram perplexity {ppl:.3f} per char ({ce:.4f} nats)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
