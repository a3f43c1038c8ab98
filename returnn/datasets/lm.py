"""Text datasets: ``LmDataset`` (language modelling) and ``TranslationDataset`` (parallel text)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.log import log
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.lexicon import Lexicon as Lexicon  # noqa: F401  (public path returnn.datasets.lm.Lexicon)
from returnn.datasets.registry import register_dataset
from returnn.datasets.text_files import (find_file_or_gz, labels_from_map, load_symbols_file, load_symbols_map_file,
                                         load_vocab_file, read_lines)
from returnn.datasets.text_cleaners import basic_cleaners as basic_cleaners  # noqa: F401  (reference path)
from returnn.datasets.text_cleaners import collapse_whitespace as collapse_whitespace  # noqa: F401
from returnn.datasets.text_cleaners import convert_to_ascii as convert_to_ascii  # noqa: F401
from returnn.datasets.text_cleaners import english_cleaners as english_cleaners  # noqa: F401
from returnn.datasets.text_cleaners import english_cleaners_keep_special as english_cleaners_keep_special  # noqa
from returnn.datasets.text_cleaners import expand_abbreviations as expand_abbreviations  # noqa: F401
from returnn.datasets.text_cleaners import get_post_processor_function as get_post_processor_function  # noqa
from returnn.datasets.text_cleaners import get_remove_chars as get_remove_chars  # noqa: F401
from returnn.datasets.text_cleaners import get_replace as get_replace  # noqa: F401
from returnn.datasets.text_cleaners import lowercase as lowercase  # noqa: F401
from returnn.datasets.text_cleaners import lowercase_keep_special as lowercase_keep_special  # noqa: F401
from returnn.datasets.text_cleaners import normalize_numbers as normalize_numbers  # noqa: F401
from returnn.datasets.text_cleaners import transliteration_cleaners as transliteration_cleaners  # noqa: F401


@register_dataset
class LmDataset(Dataset):
    """A text corpus (plain or gzip, one sentence per line) as label sequences.

    Key ``"data"``: sparse ``int32 [T]``. Sequence = the line's symbols (characters, or whitespace-separated
    words with ``word_based=True``) followed by ``seq_end_symbol`` (if not None). Tags ``"line-<n>"`` (n counts
    the used lines). With ``add_delayed_seq_data``, key ``"delayed"`` = ``[start] + data[:-1]``
    (``delayed_seq_data_start_symbol``).

    Vocabulary: ``orth_symbols_file`` (one symbol per line, index = line), ``orth_symbols_map_file``
    (``"symbol index"`` lines) or ``orth_vocab``: a vocabulary dict as ``Vocabulary.create_vocab`` takes
    (``{"vocab_file": ...}``, ``{"class": "Utf8ByteTargets"}``, ...); then the vocabulary splits each line
    (its ``get_seq``) and no ``seq_end_symbol`` is appended (as the reference).
    Unknown symbols: with ``auto_replace_unknown_symbol`` mapped to ``unknown_symbol``; else an error
    (``error_on_invalid_seq=True``, default) or the line is skipped.

    The corpus is read lazily, at the first :meth:`init_seq_order` or data access (``_orths_offsets_and_lens``
    is None until then), so a dataset dict can be built and pickled cheaply.

    :raises DatasetFileError: corpus/vocabulary missing or malformed; an unknown symbol (naming it and the line)
    :raises DatasetArgError: no vocabulary given, or a special symbol missing from it
    """

    def __init__(self, corpus_file: Union[str, Sequence[str]], *, use_cache_manager: bool = False,
                 skip_empty_lines: bool = True, seq_list_file: Optional[str] = None, orth_vocab: Any = None,
                 orth_symbols_file: Optional[str] = None, orth_symbols_map_file: Optional[str] = None,
                 orth_replace_map_file: Optional[str] = None, word_based: bool = False,
                 word_end_symbol: Optional[str] = None, seq_end_symbol: Optional[str] = "[END]",
                 unknown_symbol: Optional[str] = "[UNKNOWN]", auto_replace_unknown_symbol: bool = False,
                 log_auto_replace_unknown_symbols: int = 10, log_skipped_seqs: int = 10,
                 error_on_invalid_seq: bool = True, add_delayed_seq_data: bool = False,
                 delayed_seq_data_start_symbol: str = "[START]", dtype: Optional[str] = None,
                 tag_prefix: Optional[str] = None, **kwargs):
        super().__init__(**kwargs)
        self.orth_vocab = None
        if orth_symbols_map_file:
            mapping = load_symbols_map_file(orth_symbols_map_file)
        elif orth_symbols_file:
            mapping = {sym: i for i, sym in enumerate(load_symbols_file(orth_symbols_file))}
        elif orth_vocab:
            from returnn.datasets.util.vocabulary import Vocabulary
            opts = dict(orth_vocab) if isinstance(orth_vocab, dict) else {"vocab_file": orth_vocab}
            self.orth_vocab = Vocabulary.create_vocab(**opts)
            mapping = {label: i for i, label in enumerate(self.orth_vocab.labels)}
            seq_end_symbol = None
        else:
            raise DatasetArgError("LmDataset: give a vocabulary: orth_symbols_file, orth_symbols_map_file or "
                                  "orth_vocab")
        self.mapping = mapping
        self.labels = {"data": labels_from_map(mapping) if self.orth_vocab is None else list(self.orth_vocab.labels)}
        dim = len(self.labels["data"])
        self.num_outputs = {"data": (dim, 1)}
        self.num_inputs = dim
        self.word_based = word_based
        self.seq_end_symbol = seq_end_symbol
        self.unknown_symbol = unknown_symbol
        self.auto_replace_unknown_symbol = auto_replace_unknown_symbol
        self.error_on_invalid_seq = error_on_invalid_seq
        self.skip_empty_lines = skip_empty_lines
        self.add_delayed_seq_data = add_delayed_seq_data
        self._dtype = dtype or "int32"
        self._data_dtypes = {"data": self._dtype}
        for name, sym in (("seq_end_symbol", seq_end_symbol),
                          ("unknown_symbol", unknown_symbol if auto_replace_unknown_symbol else None),
                          ("delayed_seq_data_start_symbol",
                           delayed_seq_data_start_symbol if add_delayed_seq_data else None)):
            if sym is not None and sym not in mapping:
                raise DatasetArgError(f"LmDataset: {name}={sym!r} is not in the vocabulary")
        if add_delayed_seq_data:
            self.num_outputs["delayed"] = (dim, 1)
            self.labels["delayed"] = self.labels["data"]
            self._data_dtypes["delayed"] = self._dtype
            self._start_idx = mapping[delayed_seq_data_start_symbol]
        self._files = [corpus_file] if isinstance(corpus_file, str) else list(corpus_file)
        for filename in self._files:
            if not os.path.exists(filename):
                raise DatasetFileError(filename, "text file does not exist")
        self._tag_prefix = "line-" if tag_prefix is None else tag_prefix
        self._seq_list_file = seq_list_file
        self._seqs: List[np.ndarray] = []
        self._tags: List[str] = []
        self._orths_offsets_and_lens: Optional[List[tuple]] = None

    def _line_to_ids(self, line: str, filename: str, line_no: int) -> Optional[List[int]]:
        if self.orth_vocab is not None:
            try:
                return list(self.orth_vocab.get_seq(line.strip()))
            except KeyError as exc:
                if self.error_on_invalid_seq:
                    raise DatasetFileError(filename, f"line {line_no}: {exc} is not in the vocabulary") from None
                return None
        symbols = line.split() if self.word_based else list(line.strip())
        if self.seq_end_symbol is not None:
            symbols.append(self.seq_end_symbol)
        ids = []
        for sym in symbols:
            idx = self.mapping.get(sym)
            if idx is None:
                if not self.auto_replace_unknown_symbol:
                    if self.error_on_invalid_seq:
                        raise DatasetFileError(filename, f"line {line_no}: symbol {sym!r} is not in the vocabulary "
                                                         f"(set auto_replace_unknown_symbol=True to map it to "
                                                         f"{self.unknown_symbol!r})")
                    return None
                idx = self.mapping[self.unknown_symbol]
            ids.append(idx)
        return ids

    def _lazy_init(self) -> None:
        """Reads the corpus (once)."""
        if self._orths_offsets_and_lens is not None:
            return
        skipped = 0
        seqs, tags = [], []
        for filename in self._files:
            print(f"LmDataset, loading file {filename}", file=log.v4)
            for line_no, line in enumerate(read_lines(filename), start=1):
                if self.skip_empty_lines and not line.strip():
                    continue
                ids = self._line_to_ids(line, filename, line_no)
                if ids is None:
                    skipped += 1
                    continue
                tags.append(f"{self._tag_prefix}{len(seqs)}")
                seqs.append(np.array(ids, dtype=self._dtype))
        if skipped:
            print(f"LmDataset: skipped {skipped} sequences with unknown symbols", file=log.v3)
        if self._seq_list_file:
            with open(self._seq_list_file, encoding="utf8") as f:
                wanted = [line.strip() for line in f if line.strip()]
            index = {t: i for i, t in enumerate(tags)}
            seqs = [seqs[index[t]] for t in wanted if t in index]
            tags = [t for t in wanted if t in index]
        self._seqs, self._tags = seqs, tags
        offsets = np.cumsum([0] + [len(x) for x in seqs[:-1]]) if seqs else []
        self._orths_offsets_and_lens = [(int(o), len(x)) for o, x in zip(offsets, seqs)]

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        self._lazy_init()
        return super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)

    def get_total_num_seqs(self) -> int:
        self._lazy_init()
        return len(self._seqs)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        self._lazy_init()
        data = self._seqs[corpus_idx]
        features = {"data": data}
        if self.add_delayed_seq_data:
            features["delayed"] = np.concatenate([[self._start_idx], data[:-1]]).astype(self._dtype)
        return DatasetSeq(corpus_idx, features, seq_tag=self._tags[corpus_idx])

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        self._lazy_init()
        return len(self._seqs[corpus_idx])

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        self._lazy_init()
        return self._tags[corpus_idx]


@register_dataset
class TranslationDataset(Dataset):
    """Parallel text: ``<path>/source.<file_postfix>`` and ``<path>/target.<file_postfix>`` (plain or .gz, one
    sentence per line, words separated by spaces) with vocabularies ``<path>/source.vocab.pkl`` and
    ``<path>/target.vocab.pkl`` (pickled dict word -> index, or a dict literal).

    Keys: ``"data"`` (source) and ``"classes"`` (target), sparse ``int32 [T]``; ``source_postfix`` /
    ``target_postfix`` are appended to each line before splitting (e.g. ``" </S>"``). Unknown words map to
    ``unknown_label`` if given (one label for both sides, or a dict ``{"data": ..., "classes": ...}`` per side,
    as the reference), else raise. ``source_only`` / ``search_without_reference``: no ``"classes"``.

    :raises DatasetFileError: missing files, different line counts, unknown word without ``unknown_label``
    """

    def __init__(self, path: str, file_postfix: str, source_postfix: str = "", target_postfix: str = "",
                 source_only: bool = False, search_without_reference: bool = False,
                 unknown_label: Union[None, str, Dict[str, Optional[str]]] = None,
                 seq_list_file: Optional[str] = None,
                 use_cache_manager: bool = False, **kwargs):
        super().__init__(**kwargs)
        sides = [("data", "source", source_postfix)]
        if not (source_only or search_without_reference):
            sides.append(("classes", "target", target_postfix))
        self._streams: Dict[str, List[np.ndarray]] = {}
        self.labels = {}
        self.num_outputs = {}
        if isinstance(unknown_label, dict):
            unknown_labels = dict(unknown_label)
            bad_keys = sorted(set(unknown_labels) - {"data", "classes"})
            if bad_keys:
                raise DatasetArgError(f"TranslationDataset: unknown_label keys must be 'data' / 'classes', got "
                                      f"{bad_keys}")
        else:
            unknown_labels = {"data": unknown_label, "classes": unknown_label}
        for key, side, postfix in sides:
            vocab_file = find_file_or_gz(path, f"{side}.vocab.pkl")
            vocab = load_vocab_file(vocab_file)
            unknown_label = unknown_labels.get(key)
            if unknown_label is not None and unknown_label not in vocab:
                raise DatasetArgError(f"TranslationDataset: unknown_label {unknown_label!r} is not in {vocab_file!r}")
            filename = find_file_or_gz(path, f"{side}.{file_postfix}")
            seqs = []
            for n, line in enumerate(read_lines(filename), start=1):
                ids = []
                for word in (line + postfix).split():
                    idx = vocab.get(word)
                    if idx is None:
                        if unknown_label is None:
                            raise DatasetFileError(filename, f"line {n}: word {word!r} not in {vocab_file!r} and no "
                                                             f"unknown_label given")
                        idx = vocab[unknown_label]
                    ids.append(idx)
                seqs.append(np.array(ids, dtype="int32"))
            self._streams[key] = seqs
            self.labels[key] = labels_from_map(vocab)
            self.num_outputs[key] = (len(self.labels[key]), 1)
        counts = {k: len(v) for k, v in self._streams.items()}
        if len(set(counts.values())) > 1:
            raise DatasetFileError(path, f"source and target have different numbers of lines: {counts}")
        self.num_inputs = self.num_outputs["data"][0]
        self._num = counts["data"]
        self._tags = [f"line-{i}" for i in range(self._num)]

    def get_total_num_seqs(self) -> int:
        return self._num

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        return DatasetSeq(corpus_idx, {k: v[corpus_idx] for k, v in self._streams.items()},
                          seq_tag=self._tags[corpus_idx])

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return len(self._streams["data"][corpus_idx])

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._tags[corpus_idx]


# the reference has it in this module; implemented in its own (imported last: it uses this module's helpers)
from returnn.datasets.translation_factors import TranslationFactorsDataset as TranslationFactorsDataset  # noqa: E402
