#!/usr/bin/env python3
"""Converts a parallel text corpus (source and target file, one sentence per line, optionally gzipped) with
pickled vocabularies into an HDF file for ``HDFDataset`` (``data``: source word ids, ``classes``: target word
ids; ``</S>`` ends each sentence, unknown words become ``<UNK>``).

Usage::

    tools/hdf_dump_translation_dataset.py -s train.de.gz -t train.en.gz -v de.vocab.pkl -w en.vocab.pkl \\
        -o train.hdf -n 4500000 -c gzip
    # factored words "lemma|pos": one more vocabulary and data key per factor
    tools/hdf_dump_translation_dataset.py ... -v de.vocab.pkl,de.pos.pkl --source_factors source_pos \\
        --factor_separator '|'
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import run_main  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-s", "--source_corpus", required=True, help="Source corpus file, possibly zipped.")
    parser.add_argument("-t", "--target_corpus", required=True, help="Target corpus file, possibly zipped.")
    parser.add_argument("-v", "--source_vocabulary", required=True,
                        help="Source vocabulary in pickle format.In case of source factors provide a comma separated "
                             "list containing vocabularies for each factor.")
    parser.add_argument("-w", "--target_vocabulary", required=True,
                        help="Target vocabulary in pickle format.In case of target factors provide a comma separated "
                             "list containing vocabularies for each factor.")
    parser.add_argument("-o", "--hdf_file", required=True, help="Output HDF file name.")
    parser.add_argument("--source_factors", help="Comma separated list of data keys for the source factors.")
    parser.add_argument("--target_factors", help="Comma separated list of data keys for the target factors.")
    parser.add_argument("--factor_separator", help="String used to separate factors of the words, E.g. if '|', "
                                                   "words are expected to be of format '<lemma>|<factor>|...'")
    parser.add_argument("-n", "--number_of_lines", type=int, required=True,
                        help="The number of total lines in the corpus files.")
    parser.add_argument("-c", "--compression", help="Type of compression (e.g. 'gzip', 'lzf'). Turned off if not "
                                                    "given.")
    parser.add_argument("-l", "--line_buffer_size", type=int, default=100000, help="How many lines to read at once.")
    parser.add_argument("-d", "--data_buffer_size", type=int, default=5000000,
                        help="How much space to reserve in the HDF dataset at once (in number of integers).")
    args = parser.parse_args()

    from returnn.datasets.translation_hdf import write_translation_hdf
    from returnn.errors import ConfigValueError
    source_factors = args.source_factors.split(",") if args.source_factors else []
    target_factors = args.target_factors.split(",") if args.target_factors else []
    try:
        write_translation_hdf(source_corpus=args.source_corpus, target_corpus=args.target_corpus,
                              source_vocabularies=args.source_vocabulary.split(","),
                              target_vocabularies=args.target_vocabulary.split(","), hdf_file=args.hdf_file,
                              number_of_lines=args.number_of_lines, source_factors=source_factors,
                              target_factors=target_factors, factor_separator=args.factor_separator,
                              compression=args.compression, line_buffer_size=args.line_buffer_size,
                              data_buffer_size=args.data_buffer_size, stream=sys.stdout)
    except ValueError as exc:
        raise ConfigValueError("--source_vocabulary/--target_vocabulary/--*_factors", expected=str(exc),
                               got=None) from None


if __name__ == "__main__":
    run_main(main)
