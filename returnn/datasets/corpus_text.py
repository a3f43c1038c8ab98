"""The transcriptions of a corpus and the statistics that ``tools/collect-orth-symbols.py`` and
``tools/collect-words.py`` print about them.

A corpus is given as (:func:`corpus_kind`):

- a Bliss XML corpus (``*.xml`` or ``*.xml.gz``): each segment's ``<orth>``, with its duration;
- a text file (``*.txt`` or ``*.txt.gz``, UTF-8): one transcription per line, without durations (the reference
  reads these as bytes and fails on them; here they work);
- otherwise a RETURNN config: the ``"orth"`` data of its ``train`` dataset (UTF-8 bytes or a string), the
  duration being the length of ``"data"`` in frames.
"""

from __future__ import annotations

import gzip
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from returnn.util.sequences import parse_orthography, parse_orthography_into_symbols
from returnn.util.timefmt import hms, human_size

#: (orth, duration in seconds or None, duration in frames or None)
Segment = Tuple[str, Optional[float], Optional[int]]


def corpus_kind(path: str) -> str:
    """``"bliss"``, ``"txt"`` or ``"config"`` by the file name (see the module doc)."""
    if path.endswith(".xml") or path.endswith(".xml.gz"):
        return "bliss"
    if path.endswith(".txt") or path.endswith(".txt.gz"):
        return "txt"
    return "config"


def iter_bliss(path: str) -> Iterator[Segment]:
    """The segments of a Bliss corpus (orth, duration in seconds; ``end="inf"`` gives None).

    :raises returnn.errors.DataFileError: unreadable or malformed XML
    """
    from returnn.datasets.bliss import read_bliss
    for seg in read_bliss(path):
        duration = None if seg["end"] is None else seg["end"] - seg["start"]
        yield seg["orth"], duration, None


def iter_txt(path: str) -> Iterator[Segment]:
    """The lines of a (gzipped) UTF-8 text file, without the line end.

    :raises returnn.errors.DataFileError: the file cannot be read
    """
    from returnn.errors import DataFileError
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf8") as f:
            for line in f:
                yield line.rstrip("\n").rstrip("\r"), None, None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(path, f"cannot read the text corpus: {exc}") from None


def orth_text(data: Any) -> str:
    """The ``"orth"`` data of a sequence as text: a string, or UTF-8 bytes as a uint8 array.

    :raises TypeError: for other data
    """
    import numpy
    if isinstance(data, str):
        return data
    arr = numpy.asarray(data)
    if arr.ndim == 0 and arr.dtype.kind in "UO":
        return str(arr.item())
    if arr.ndim == 1 and arr.dtype == numpy.uint8:
        return arr.tobytes().decode("utf8")
    raise TypeError(f"expected text (a string, or UTF-8 bytes as uint8 1-D), got {arr.dtype} {arr.shape}")


def iter_dataset(dataset, *, with_frames: bool = True, key: str = "orth") -> Iterator[Segment]:
    """The ``key`` text of each sequence of epoch 1 of ``dataset``, with the frames of ``"data"``."""
    dataset.init_seq_order(epoch=1)
    seq_idx = 0
    while dataset.is_less_than_num_seqs(seq_idx):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        frames = None
        if with_frames:
            frames = int(dataset.get_data(seq_idx, "data").shape[0])
        yield orth_text(dataset.get_data(seq_idx, key)), None, frames
        seq_idx += 1


def _contains_seq(symbols: Sequence[str], part: Sequence[str]) -> bool:
    n = len(part)
    return any(list(symbols[i:i + n]) == list(part) for i in range(len(symbols) - n + 1))


class OrthSymbolStats:
    """The symbols of the transcriptions (:func:`returnn.util.basic.parse_orthography`: characters, ``[SPECIAL]``
    tokens upper-cased, ``[END]`` appended) and their totals, as ``tools/collect-orth-symbols.py`` prints them.

    :param frame_time: milliseconds per frame (durations in seconds become frames with it)
    :param collect_time: count frames (False: no durations)
    :param max_seq_frame_len: only sequences with fewer frames count
    :param max_seq_orth_len: only sequences with fewer symbols count
    :param dump_orth: print each counted transcription (``Orth: ...``)
    :param filter_orth_sym: print transcriptions (``Found orth: ...``) that have this symbol ...
    :param filter_orth_syms_seq: ... or this symbol sequence (parsed like a transcription, without ``[END]``)
    """

    def __init__(self, *, frame_time: float = 10, collect_time: bool = True, max_seq_frame_len: float = float("inf"),
                 max_seq_orth_len: float = float("inf"), dump_orth: bool = False,
                 filter_orth_sym: Optional[str] = None, filter_orth_syms_seq: Optional[str] = None,
                 stream: Optional[TextIO] = None):
        self.frame_time = frame_time
        self.collect_time = collect_time
        self.max_seq_frame_len = max_seq_frame_len
        self.max_seq_orth_len = max_seq_orth_len
        self.dump_orth = dump_orth
        self.filter_orth_sym = filter_orth_sym
        self.filter_seq = (parse_orthography_into_symbols(filter_orth_syms_seq)
                           if filter_orth_syms_seq else None)
        self.stream = stream
        self.symbols: set = set()
        self.count = 0
        self.total_frame_len: float = 0
        self.total_orth_len = 0

    def add(self, orth: str, duration: Optional[float] = None, frames: Optional[int] = None) -> None:
        """Counts one transcription (skipped when over a limit)."""
        frame_len: float = 0
        if self.collect_time:
            frame_len = frames if frames is not None else (duration or 0.0) * 1000.0 / self.frame_time
            if frame_len >= self.max_seq_frame_len:
                return
        syms = parse_orthography(orth)
        if len(syms) >= self.max_seq_orth_len:
            return
        text = "".join(syms)
        if self.dump_orth:
            print(f"Orth: {text}", file=self.stream)
        if (self.filter_orth_sym is not None and self.filter_orth_sym in syms) or (
                self.filter_seq is not None and _contains_seq(syms, self.filter_seq)):
            print(f"Found orth: {text}", file=self.stream)
        self.symbols.update(syms)
        self.count += 1
        self.total_frame_len += frame_len
        self.total_orth_len += len(syms)

    def finish(self, *, add_numbers: bool = True, add_lower_alphabet: bool = True, add_upper_alphabet: bool = True,
               remove_symbols: str = "(){}$") -> List[str]:
        """Prints the totals and returns the sorted symbols (with the added character ranges, without
        ``remove_symbols``).

        :raises ValueError: no transcription was counted
        """
        out = self.stream
        if not self.count:
            raise ValueError("no transcription was counted (all skipped by --max_seq_frame_len/--max_seq_orth_len, "
                             "or the corpus is empty)")
        fraction = ""
        if self.collect_time:
            seconds = self.total_frame_len * self.frame_time / 1000.0
            print(f"Total frame len: {self.total_frame_len} time: {hms(seconds)}", file=out)
            fraction = f"fraction: {self.total_orth_len / self.total_frame_len}" if self.total_frame_len else ""
        else:
            print("No time stats (--collect_time False).", file=out)
        print(f"Total orth len: {self.total_orth_len} ({human_size(self.total_orth_len)}) {fraction}", file=out)
        print(f"Average orth len: {self.total_orth_len / self.count}", file=out)
        symbols = set(self.symbols)
        if add_numbers:
            symbols.update("0123456789")
        if add_lower_alphabet:
            symbols.update(chr(c) for c in range(ord("a"), ord("z") + 1))
        if add_upper_alphabet:
            symbols.update(chr(c) for c in range(ord("A"), ord("Z") + 1))
        for c in remove_symbols or "":
            symbols.discard(c)
        print(f"Num symbols: {len(symbols)}", file=out)
        return sorted(symbols)


class WordStats:
    """The words of the transcriptions (split at white space, ``[special]`` words upper-cased), as
    ``tools/collect-words.py`` prints them."""

    def __init__(self, *, dump_orth: bool = False, stream: Optional[TextIO] = None):
        self.dump_orth = dump_orth
        self.stream = stream
        self.words: set = set()
        self.count = 0
        self.total_word_len = 0

    def add(self, orth: str, duration: Optional[float] = None, frames: Optional[int] = None) -> None:
        """Counts the words of one transcription."""
        words = parse_orthography(orth, prefix=(), postfix=(), word_based=True)
        if self.dump_orth:
            print(f"Orth: {words!r}", file=self.stream)
        self.words.update(words)
        self.count += 1
        self.total_word_len += len(words)

    def finish(self) -> None:
        """Prints the totals.

        :raises ValueError: the corpus had no transcription
        """
        if not self.count:
            raise ValueError("the corpus has no transcription")
        print(f"Total word len: {self.total_word_len} ({human_size(self.total_word_len)})", file=self.stream)
        print(f"Average orth len: {self.total_word_len / self.count}", file=self.stream)
        print(f"Num word symbols: {len(self.words)}", file=self.stream)

    def report_lexicon(self, lexicon_words) -> List[str]:
        """Prints the corpus words that ``lexicon_words`` lacks (sorted) and their share of all words.

        :return: those words
        """
        missing = sorted(w for w in self.words if w not in lexicon_words)
        print("Words not in lexicon:", file=self.stream)
        for word in missing:
            print(word, file=self.stream)
        share = 100.0 * len(missing) / len(self.words) if self.words else 0.0
        print("Count: %i (%f%%)" % (len(missing), share), file=self.stream)
        return missing


def iter_corpus(path: str, *, with_frames: bool = True,
                on_kind: Optional[Callable[[str], None]] = None) -> Iterator[Segment]:
    """The segments of ``path`` (see the module doc); ``on_kind(kind)`` is called before the first one."""
    kind = corpus_kind(path)
    if on_kind is not None:
        on_kind(kind)
    if kind == "bliss":
        return iter_bliss(path)
    if kind == "txt":
        return iter_txt(path)
    from returnn.datasets.from_config import init_dataset_from_config_key
    from returnn.datasets.tool_util import load_config
    from returnn.errors import ConfigValueError
    config = load_config(path)
    dataset = init_dataset_from_config_key(config, "train", is_train=True)
    if dataset is None:
        raise ConfigValueError("train", expected="a dataset with an 'orth' data key in the config", got=None)
    return iter_dataset(dataset, with_frames=with_frames)


def lexicon_orths(path: str) -> Dict[str, Any]:
    """The orths of a Bliss lexicon file (each orth of each lemma).

    :raises returnn.errors.ReturnnError: the file cannot be read
    """
    from returnn.datasets.lexicon import Lexicon
    return Lexicon(path).lemmas
