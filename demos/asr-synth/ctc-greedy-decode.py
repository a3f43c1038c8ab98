#!/usr/bin/env python3
"""
Greedy CTC decoding of forwarded posteriors into hypotheses in the search-output py format.

Usage::

    ./rnn.py demos/asr-synth/blstm-ctc.config ++task forward ++load_epoch N      # -> out/forward.test.hdf
    python3 demos/asr-synth/ctc-greedy-decode.py demos/asr-synth/out/forward.test.hdf \\
        --vocab demos/asr-synth/data/vocab.txt --out demos/asr-synth/out/search.test.py
    tools/calculate-word-error-rate.py --refs demos/asr-synth/data/test.txt --hyps demos/asr-synth/out/search.test.py

BPE models (``blstm-ctc-bpe.config``): ``--vocab demos/asr-synth/data-zip/bpe.vocab --bpe``.

Input: an HDF as written by the ``forward`` task (``inputs`` float32 [total_frames, num_labels + 1] softmax
outputs, ``seqLengths`` column 0 = frames per sequence, ``seqTags``). The CTC blank is the last index
(``len(vocab)``), as the ``ctc`` loss of ``softmax`` arranges it. Decoding: per frame argmax, merge runs of
the same label, drop blanks, map ids to ``vocab.txt`` lines (one label per line, index = line number).

Output: the py format of the search task, ``{'<seq_tag>': '<text>', ...}`` with one entry per line, in the
order of the HDF, written via a temp name + rename.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np


def ctc_greedy_ids(posteriors: np.ndarray, blank: int) -> list[int]:
    """
    :param posteriors: float [T, num_labels + 1] (probabilities or log-probabilities)
    :param blank: blank index
    :return: label ids after merging repeated frames and removing blanks
    """
    best = np.argmax(posteriors, axis=-1) if len(posteriors) else np.zeros((0,), np.int64)
    keep = np.ones(len(best), dtype=bool)
    keep[1:] = best[1:] != best[:-1]
    keep &= best != blank
    return [int(i) for i in best[keep]]


def read_vocab(path: str) -> list[str]:
    """
    :return: labels: one per line (lines kept verbatim: a line holding one space is the space label), or, for a
        file starting with ``{``, the labels of a Python dict literal label -> index (RETURNN's vocab format, e.g.
        ``bpe.vocab``; a label sharing its index with another one is dropped, the first one is kept)
    """
    with open(path, encoding="utf8") as f:
        content = f.read()
    if content.startswith("{"):
        import ast

        by_index: dict[int, str] = {}
        for label, index in ast.literal_eval(content).items():
            by_index.setdefault(index, label)
        return [by_index[i] for i in range(len(by_index))]
    labels = content.split("\n")
    if labels and labels[-1] == "":
        labels.pop()
    return labels


def labels_to_text(labels: list[str], bpe: bool) -> str:
    """Characters are concatenated; BPE units (``bpe``) are joined with spaces, then ``"@@ "`` removed (a unit
    ending in ``@@`` continues the word)."""
    if not bpe:
        return "".join(labels)
    text = " ".join(labels) + " "
    return text.replace("@@ ", "").strip()


def decode_file(hdf_path: str, vocab: list[str], bpe: bool = False) -> list[tuple[str, str]]:
    """
    :param bpe: the labels are BPE units (see :func:`labels_to_text`)
    :return: (seq_tag, text) per sequence of the forward HDF
    :raises ValueError: label dim of the HDF is not ``len(vocab) + 1``
    """
    import h5py

    with h5py.File(hdf_path, "r") as f:
        inputs = f["inputs"]
        if inputs.ndim != 2 or inputs.shape[1] != len(vocab) + 1:
            raise ValueError(
                f"{hdf_path}: 'inputs' has shape {inputs.shape}; expected [frames, {len(vocab) + 1}] "
                f"(vocab of {len(vocab)} labels + CTC blank)"
            )
        lengths = f["seqLengths"][:, 0] if f["seqLengths"].ndim == 2 else f["seqLengths"][:]
        tags = [t.decode("utf8") if isinstance(t, bytes) else str(t) for t in f["seqTags"][:]]
        data = inputs[:]
    result, offset = [], 0
    for tag, length in zip(tags, lengths):
        ids = ctc_greedy_ids(data[offset : offset + int(length)], blank=len(vocab))
        result.append((tag.rstrip("\x00"), labels_to_text([vocab[i] for i in ids], bpe)))
        offset += int(length)
    return result


def format_search_output(hyps: list[tuple[str, str]]) -> str:
    """:return: the search task's py format: ``{`` newline, ``'tag': 'text',`` lines, ``}`` newline"""
    return "{\n" + "".join(f"{tag!r}: {text!r},\n" for tag, text in hyps) + "}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Greedy CTC decoding of a forward HDF into search-output py.")
    parser.add_argument("hdf", help="forward output HDF (posteriors)")
    parser.add_argument("--vocab", required=True,
                        help="vocab.txt of the data (one label per line), or a dict-literal vocab (bpe.vocab)")
    parser.add_argument("--bpe", action="store_true", help="labels are BPE units: join with spaces, remove '@@ '")
    parser.add_argument("--out", required=True, help="py file to write {seq_tag: text}")
    args = parser.parse_args(argv)
    try:
        hyps = decode_file(args.hdf, read_vocab(args.vocab), bpe=args.bpe)
    except (OSError, KeyError, ValueError) as exc:
        print(f"ctc-greedy-decode.py: error: {exc}", file=sys.stderr)
        return 1
    tmp = f"{args.out}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf8") as f:
        f.write(format_search_output(hyps))
    os.replace(tmp, args.out)
    print(f"wrote {len(hyps)} hypotheses to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
