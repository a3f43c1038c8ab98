#!/usr/bin/env python3
"""
Word and character error rate of recognition hypotheses against reference transcriptions.

Usage::

    tools/calculate-word-error-rate.py --refs REF --hyps HYP [--expect-full] [--per-seq]

Files (plain or ``.gz``):

- ``--hyps``: the search output of ``rnn.py ... ++task search`` in the py format: a Python dict literal
  ``{seq_tag: hyp}``, where ``hyp`` is a string, or an n-best list of ``(score, string)`` pairs / strings
  (the first entry is scored).
- ``--refs``: either the same dict format ``{seq_tag: text}``, or a text file with one ``"<seq_tag> <text>"``
  per line (the tag is everything before the first whitespace; empty lines and ``#`` comments are skipped),
  as written by ``demos/asr-synth/prepare.py``.

Prints (rates in percent; errors summed over all sequences, then divided by the total reference length)::

    WER: 12.50 % (3 errors / 24 words: 1 sub, 1 del, 1 ins), 2 seqs
    CER: 4.00 % (4 errors / 100 chars: 2 sub, 1 del, 1 ins), 2 seqs

Characters include the single spaces between words (see ``returnn.util.edit_distance``). Exit status 1 with
one message on unreadable files, hypotheses for tags missing in the reference, or (``--expect-full``)
reference tags without a hypothesis; without ``--expect-full`` those reference tags are skipped with a note.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from returnn.util.edit_distance import ErrorCounts, char_error_counts, word_error_counts  # noqa: E402


class WerInputError(Exception):
    """Bad input file; the message names the file and what is wrong."""


def _read_text(path: str) -> str:
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf8") as f:
            return f.read()
    except OSError as exc:
        raise WerInputError(f"cannot read {path!r}: {exc}") from None


def _hyp_text(path: str, tag: str, value) -> str:
    if isinstance(value, (list, tuple)) and value and not isinstance(value, str):
        value = value[0]
        if isinstance(value, (list, tuple)) and len(value) == 2:  # (score, text)
            value = value[1]
    if not isinstance(value, str):
        raise WerInputError(
            f"{path!r}: entry {tag!r} is {type(value).__name__} {value!r}; expected a string or a list of "
            "(score, string) pairs"
        )
    return value


def load_transcriptions(path: str) -> dict[str, str]:
    """
    :param path: a py-dict file ``{seq_tag: text}`` (search output) or a ``"<seq_tag> <text>"`` line file
    :return: seq_tag -> text (n-best lists reduced to their first entry)
    :raises WerInputError: unreadable, malformed dict literal, or a non-string entry
    """
    content = _read_text(path)
    if content.lstrip().startswith("{"):
        try:
            data = ast.literal_eval(content)
        except (SyntaxError, ValueError) as exc:
            raise WerInputError(f"{path!r}: not a valid Python dict literal ({exc})") from None
        if not isinstance(data, dict):
            raise WerInputError(f"{path!r}: expected a dict {{seq_tag: text}}, found {type(data).__name__}")
        return {str(tag): _hyp_text(path, tag, value) for tag, value in data.items()}
    result = {}
    for line in content.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        result[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return result


def score(refs: dict[str, str], hyps: dict[str, str], *, expect_full: bool = False):
    """
    :return: (word ErrorCounts, char ErrorCounts, list of (tag, word counts, char counts), skipped tags)
    :raises WerInputError: hypothesis tags missing in refs; with expect_full, ref tags missing in hyps
    """
    unknown = [tag for tag in hyps if tag not in refs]
    if unknown:
        raise WerInputError(
            f"{len(unknown)} hypothesis tag(s) not in the reference, e.g. {unknown[0]!r} "
            f"(reference tags look like {next(iter(refs), '<none>')!r})"
        )
    skipped = [tag for tag in refs if tag not in hyps]
    if skipped and expect_full:
        raise WerInputError(f"{len(skipped)} reference tag(s) have no hypothesis, e.g. {skipped[0]!r}")
    total_w, total_c, per_seq = ErrorCounts(), ErrorCounts(), []
    for tag, ref in refs.items():
        if tag not in hyps:
            continue
        w, c = word_error_counts(ref, hyps[tag]), char_error_counts(ref, hyps[tag])
        total_w, total_c = total_w + w, total_c + c
        per_seq.append((tag, w, c))
    return total_w, total_c, per_seq, skipped


def format_counts(name: str, unit: str, counts: ErrorCounts, num_seqs: int) -> str:
    """:return: e.g. ``"WER: 12.50 % (3 errors / 24 words: 1 sub, 1 del, 1 ins), 2 seqs"``"""
    return (
        f"{name}: {100.0 * counts.rate:.2f} % ({counts.errors} errors / {counts.ref_len} {unit}: "
        f"{counts.substitutions} sub, {counts.deletions} del, {counts.insertions} ins), {num_seqs} seqs"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Word and character error rate of search output.")
    parser.add_argument("--refs", required=True, help="reference: py dict {tag: text} or '<tag> <text>' lines")
    parser.add_argument("--hyps", required=True, help="hypotheses: search output py dict {tag: hyp}")
    parser.add_argument("--expect-full", "--expect_full", action="store_true",
                        help="fail if a reference tag has no hypothesis")
    parser.add_argument("--per-seq", action="store_true", help="also print WER/CER per sequence")
    args = parser.parse_args(argv)
    try:
        refs = load_transcriptions(args.refs)
        hyps = load_transcriptions(args.hyps)
        total_w, total_c, per_seq, skipped = score(refs, hyps, expect_full=args.expect_full)
    except WerInputError as exc:
        print(f"calculate-word-error-rate.py: error: {exc}", file=sys.stderr)
        return 1
    if skipped:
        print(f"Note: {len(skipped)} reference seqs without hypothesis are not scored.", file=sys.stderr)
    if args.per_seq:
        for tag, w, c in per_seq:
            print(f"{tag}: WER {100.0 * w.rate:.2f} % ({w.errors}/{w.ref_len}), "
                  f"CER {100.0 * c.rate:.2f} % ({c.errors}/{c.ref_len})")
    print(format_counts("WER", "words", total_w, len(per_seq)))
    print(format_counts("CER", "chars", total_c, len(per_seq)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
