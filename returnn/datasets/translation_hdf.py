"""What ``tools/hdf_dump_translation_dataset.py`` does: a parallel text corpus (one sentence per line, words
separated by white space, optionally gzipped) with pickled vocabularies (dict word → id) as an HDF file that
:class:`returnn.datasets.hdf.HDFDataset` reads (``data``: source ids, ``classes``: target ids, both sparse).

Layout (as the reference's tool writes it, observed)::

    attrs inputPattSize, numLabels      source / target vocabulary size (int64)
    inputs                              int32 (total source tokens,), all lines concatenated
    seqLengths                          int32 (lines, 2 + factors): source, target, source factors...,
                                        target factors...
    seqTags                             b"line-0", b"line-1", ... (fixed-size bytes)
    targets/data/classes                int32 (total target tokens,)
    targets/data/<factor>               int32, one per source / target factor
    targets/labels/<key>                the vocabulary in id order, bytes of the longest label + 1
    targets/size attrs <key>            int64 [vocabulary size, 1]

Every sentence ends with ``</S>``; a word that is not in the vocabulary becomes ``<UNK>``. With factors, each
word is ``lemma<sep>factor1<sep>...`` and each factor has its own vocabulary. The token arrays are chunked and
resizable (``data_buffer_size`` elements at first; ``compression`` applies to them); the file is written under
a temporary name and renamed when complete.
"""

from __future__ import annotations

import gzip
import os
import pickle
from typing import Any, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

import numpy

from returnn.errors import DataFileError

END_SYMBOL = "</S>"
UNKNOWN_SYMBOL = "<UNK>"


def open_corpus(path: str) -> TextIO:
    """A UTF-8 text file, gunzipped when it starts with the gzip magic bytes.

    :raises DataFileError: it cannot be opened
    """
    try:
        with open(path, "rb") as f:
            magic = f.read(2)
        if magic == b"\x1f\x8b":
            return gzip.open(path, "rt", encoding="utf8")
        return open(path, "r", encoding="utf8")
    except OSError as exc:
        raise DataFileError(path, f"cannot read the corpus: {exc}") from None


def load_vocabulary(path: str) -> Dict[str, int]:
    """A pickled dict word → id, which must hold ``</S>`` and ``<UNK>``.

    :raises DataFileError: unreadable, not a dict, or without those symbols
    """
    try:
        with open(path, "rb") as f:
            vocab = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise DataFileError(path, f"cannot read the pickled vocabulary: {exc}") from None
    if not isinstance(vocab, dict):
        raise DataFileError(path, f"expected a pickled dict word -> id, got {type(vocab).__name__}")
    missing = [s for s in (END_SYMBOL, UNKNOWN_SYMBOL) if s not in vocab]
    if missing:
        raise DataFileError(path, f"the vocabulary lacks {', '.join(repr(s) for s in missing)}")
    return vocab


def _labels_array(vocab: Dict[str, int]) -> numpy.ndarray:
    labels = [w for w, _ in sorted(vocab.items(), key=lambda item: item[1])]
    encoded = [w.encode("utf8") for w in labels]
    width = max((len(b) for b in encoded), default=0) + 1
    return numpy.array(encoded, dtype=f"S{width}")


class _TokenArray:
    """A growing 1-D int32 HDF dataset."""

    def __init__(self, group, name: str, buffer_size: int, compression: Optional[str]):
        self.buffer_size = max(int(buffer_size), 1)
        self.dataset = group.create_dataset(name, shape=(self.buffer_size,), maxshape=(None,), dtype="int32",
                                            compression=compression)
        self.size = 0

    def append(self, values: numpy.ndarray) -> None:
        end = self.size + len(values)
        if end > self.dataset.shape[0]:
            grow = max(self.buffer_size, end - self.dataset.shape[0])
            self.dataset.resize((self.dataset.shape[0] + grow,))
        self.dataset[self.size:end] = values
        self.size = end

    def finish(self) -> None:
        self.dataset.resize((self.size,))


def _split_factors(words: Sequence[str], num: int, separator: Optional[str], path: str, line_idx: int
                   ) -> List[List[str]]:
    """``num`` lists: the lemmas, then each factor, of the words of one line."""
    if num == 1:
        return [list(words)]
    out: List[List[str]] = [[] for _ in range(num)]
    for word in words:
        parts = word.split(separator)
        if len(parts) != num:
            raise DataFileError(path, f"line {line_idx + 1}: word {word!r} has {len(parts)} parts split by "
                                      f"{separator!r}, expected {num} (lemma and factors)")
        for i, part in enumerate(parts):
            out[i].append(part)
    return out


def _ids(words: Sequence[str], vocab: Dict[str, int]) -> numpy.ndarray:
    unk = vocab[UNKNOWN_SYMBOL]
    return numpy.array([vocab.get(w, unk) for w in words] + [vocab[END_SYMBOL]], dtype="int32")


def _read_lines(source: TextIO, target: TextIO, count: int) -> Iterator[tuple]:
    for _ in range(count):
        src, tgt = source.readline(), target.readline()
        if not src and not tgt:
            return
        yield src, tgt


def write_translation_hdf(*, source_corpus: str, target_corpus: str, source_vocabularies: Sequence[str],
                          target_vocabularies: Sequence[str], hdf_file: str, number_of_lines: int,
                          source_factors: Sequence[str] = (), target_factors: Sequence[str] = (),
                          factor_separator: Optional[str] = None, compression: Optional[str] = None,
                          line_buffer_size: int = 100000, data_buffer_size: int = 5000000,
                          stream: Optional[TextIO] = None) -> None:
    """Writes the HDF file of the module doc.

    :param source_vocabularies: the word vocabulary, then one per source factor (pickle files)
    :param number_of_lines: the lines of each corpus file (checked)
    :param line_buffer_size: lines read at once (a ``> Processed N lines.`` line after each block)
    :raises DataFileError: unreadable inputs, vocabularies without ``</S>``/``<UNK>``, a line count other than
        ``number_of_lines``, or words without the expected factors
    :raises ValueError: the numbers of vocabularies and factor keys do not match
    """
    import h5py
    if len(source_vocabularies) != 1 + len(source_factors) or len(target_vocabularies) != 1 + len(target_factors):
        raise ValueError(f"expected one vocabulary for the words and one per factor: got {len(source_vocabularies)} "
                         f"source vocabularies for factors {list(source_factors)}, {len(target_vocabularies)} target "
                         f"vocabularies for factors {list(target_factors)}")
    if (source_factors or target_factors) and not factor_separator:
        raise ValueError("source/target factors need a factor_separator")
    src_vocabs = [load_vocabulary(p) for p in source_vocabularies]
    tgt_vocabs = [load_vocabulary(p) for p in target_vocabularies]
    tmp = f"{hdf_file}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as f, open_corpus(source_corpus) as src_in, open_corpus(target_corpus) as tgt_in:
            _write_attributes_and_labels(f, src_vocabs, tgt_vocabs, source_factors, target_factors, stream)
            print("Writing source, target, sequence lengths and tags for all lines...", file=stream)
            num_src = len(src_vocabs)
            # (index into the line's word streams [source words, source factors..., target words, target
            # factors...], HDF token array): the seqLengths columns in order
            columns = ([(0, "inputs"), (num_src, "targets/data/classes")]
                       + [(i, f"targets/data/{k}") for i, k in enumerate(source_factors, 1)]
                       + [(num_src + i, f"targets/data/{k}") for i, k in enumerate(target_factors, 1)])
            arrays = {name: _TokenArray(f, name, data_buffer_size, compression) for _, name in columns}
            lengths = _write_tokens((src_in, tgt_in), columns, arrays, src_vocabs + tgt_vocabs, num_src,
                                    factor_separator=factor_separator, corpora=(source_corpus, target_corpus),
                                    number_of_lines=number_of_lines, line_buffer_size=line_buffer_size,
                                    stream=stream)
            for arr in arrays.values():
                arr.finish()
            f.create_dataset("seqLengths", data=lengths)
            width = len(f"line-{max(number_of_lines - 1, 0)}")
            f.create_dataset("seqTags", data=numpy.array([f"line-{i}".encode("ascii") for i in range(number_of_lines)],
                                                         dtype=f"S{width}"))
        os.replace(tmp, hdf_file)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print("Done.", file=stream)


def _write_attributes_and_labels(f: Any, src_vocabs: Sequence[Dict[str, int]], tgt_vocabs: Sequence[Dict[str, int]],
                                 source_factors: Sequence[str], target_factors: Sequence[str],
                                 stream: Optional[TextIO]) -> None:
    """The file attributes (input and output vocabulary sizes) and, per target key, its labels and size."""
    print("Setting attributes...", file=stream)
    f.attrs["inputPattSize"] = numpy.int64(len(src_vocabs[0]))
    f.attrs["numLabels"] = numpy.int64(len(tgt_vocabs[0]))
    print("Done.", file=stream)
    print("Writing labels (vocabulary)...", file=stream)
    target_keys = ["classes"] + list(source_factors) + list(target_factors)
    key_vocabs = [tgt_vocabs[0]] + list(src_vocabs[1:]) + list(tgt_vocabs[1:])
    for key, vocab in zip(target_keys, key_vocabs):
        f.create_dataset(f"targets/labels/{key}", data=_labels_array(vocab))
        f.require_group("targets/size").attrs[key] = numpy.array([len(vocab), 1], dtype="int64")
    print("Done.", file=stream)


def _write_tokens(inputs: Tuple[TextIO, TextIO], columns: Sequence[Tuple[int, str]],
                  arrays: Dict[str, _TokenArray], vocabs: Sequence[Dict[str, int]], num_src: int, *,
                  factor_separator: Optional[str], corpora: Tuple[str, str], number_of_lines: int,
                  line_buffer_size: int, stream: Optional[TextIO]) -> numpy.ndarray:
    """Appends the token ids of every (source, target) line to ``arrays``, one HDF write per array and block of
    ``line_buffer_size`` lines.

    :param inputs: the open source and target corpus files
    :param columns: (index into the line's word streams, array name) per seqLengths column
    :param vocabs: the source vocabularies (``num_src`` of them), then the target ones
    :return: int32 ``[number_of_lines, len(columns)]``, the token count of each line and column
    :raises DataFileError: more or fewer lines than ``number_of_lines``
    """
    source_corpus, target_corpus = corpora
    lengths = numpy.zeros((number_of_lines, len(columns)), dtype="int32")
    done = 0
    while True:
        block = list(_read_lines(*inputs, line_buffer_size))
        if not block:
            break
        pending: Dict[str, List[numpy.ndarray]] = {name: [] for _, name in columns}
        for src_line, tgt_line in block:
            if done >= number_of_lines:
                raise DataFileError(source_corpus, f"more lines in the corpus files than specified "
                                                   f"({number_of_lines})")
            streams = (_split_factors(src_line.split(), num_src, factor_separator, source_corpus, done)
                       + _split_factors(tgt_line.split(), len(vocabs) - num_src, factor_separator, target_corpus,
                                        done))
            for col, (idx, name) in enumerate(columns):
                ids = _ids(streams[idx], vocabs[idx])
                pending[name].append(ids)
                lengths[done, col] = len(ids)
            done += 1
        for name, parts in pending.items():
            arrays[name].append(numpy.concatenate(parts))
        print(f"> Processed {done} lines.", file=stream)
    if done != number_of_lines:
        raise DataFileError(source_corpus, f"fewer lines ({done}) in the corpus files than specified "
                                           f"({number_of_lines})")
    return lengths
