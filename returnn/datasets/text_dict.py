"""``TextDictDataset``: a Python dict literal file ``{seq_tag: text}`` or ``{seq_tag: [(score, text), ...]}``
(e.g. the search task's output), at the reference's path ``returnn.datasets.text_dict``.

Keys (observed from the reference): ``item_format="single"``: ``"data"`` (the vocabulary's labels of the text,
sparse ``int32``). ``"list_with_scores"`` (default): ``"data"`` (the first hypothesis), ``"data_flat"`` (all
hypotheses concatenated), ``"data_seq_lens"`` (``int32 [n]``, the length of each) and ``"scores"``
(``float32 [n]``). Tags are the dict's keys, in file order; the sorting orders use the length of
``data_flat`` (``data`` for ``single``).
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Union

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.datasets.audio import make_vocab
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset
from returnn.datasets.util.vocabulary import Vocabulary

ITEM_FORMATS = ("single", "list_with_scores")


@register_dataset
class TextDictDataset(Dataset):
    """Texts from a dict literal file (see the module doc).

    :param filename: the file (optionally ``.gz``)
    :param item_format: ``"list_with_scores"`` or ``"single"``
    :param vocab: a :class:`Vocabulary` or its options dict
    :raises DatasetFileError: unreadable file, or an entry that does not fit ``item_format`` (naming the tag)
    """

    def __init__(self, *, filename: str, item_format: str = "list_with_scores",
                 vocab: Union[Vocabulary, Dict[str, Any]], **kwargs):
        super().__init__(**kwargs)
        if item_format not in ITEM_FORMATS:
            raise DatasetArgError(f"TextDictDataset: item_format must be one of {ITEM_FORMATS}, got {item_format!r}")
        self.filename = filename
        self.item_format = item_format
        self.vocab = make_vocab(vocab, "TextDictDataset")
        if self.vocab is None:
            raise DatasetArgError("TextDictDataset: vocab is required")
        dim = self.vocab.num_labels
        if item_format == "single":
            self.num_outputs = {"data": (dim, 1)}
        else:
            self.num_outputs = {"data": (dim, 1), "data_flat": (dim, 1), "data_seq_lens": (1, 1),
                                "scores": (1, 1)}
            self._data_dtypes = {"data_seq_lens": "int32", "scores": "float32"}
        self.num_inputs = dim
        self.labels = {"data": self.vocab.labels}
        self._items = self._load()
        self._tags = list(self._items)

    def _load(self) -> Dict[str, Any]:
        try:
            if self.filename.endswith(".gz"):
                import gzip

                with gzip.open(self.filename, "rt", encoding="utf8") as f:
                    content = f.read()
            else:
                with open(self.filename, encoding="utf8") as f:
                    content = f.read()
        except OSError as exc:
            raise DatasetFileError(self.filename, f"TextDictDataset: cannot read: {exc}") from None
        try:
            items = ast.literal_eval(content)
        except (ValueError, SyntaxError) as exc:
            raise DatasetFileError(self.filename, f"TextDictDataset: expected a Python dict literal: {exc}") from None
        if not isinstance(items, dict):
            raise DatasetFileError(self.filename, f"TextDictDataset: expected a dict, got {type(items).__name__}")
        for tag, item in items.items():
            if self.item_format == "single" and not isinstance(item, str):
                raise DatasetFileError(self.filename, f"TextDictDataset: {tag!r}: expected a str (item_format "
                                                      f"'single'), got {item!r}")
            if self.item_format == "list_with_scores" and not (
                    isinstance(item, list) and item and all(isinstance(x, tuple) and len(x) == 2 and
                                                            isinstance(x[1], str) for x in item)):
                raise DatasetFileError(self.filename, f"TextDictDataset: {tag!r}: expected a non-empty list of "
                                                      f"(score, text) tuples (list_with_scores), got {item!r}")
        return items

    def get_total_num_seqs(self) -> int:
        return len(self._tags)

    def get_data_keys(self) -> List[str]:
        return list(self.num_outputs)

    def is_data_sparse(self, key: str) -> bool:
        """``data``, ``data_flat``: sparse; ``data_seq_lens``, ``scores``: dense (as the reference)."""
        self._check_key(key)
        return key in ("data", "data_flat")

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._tags[corpus_idx]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        item = self._items[self._tags[corpus_idx]]
        if self.item_format == "single":
            return len(self.vocab.get_seq(item))
        return sum(len(self.vocab.get_seq(text)) for _, text in item)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        tag = self._tags[corpus_idx]
        item = self._items[tag]
        if self.item_format == "single":
            return DatasetSeq(corpus_idx, {"data": np.array(self.vocab.get_seq(item), dtype=np.int32)}, seq_tag=tag)
        seqs = [np.array(self.vocab.get_seq(text), dtype=np.int32) for _, text in item]
        features = {"data": seqs[0], "data_flat": np.concatenate(seqs),
                    "data_seq_lens": np.array([len(s) for s in seqs], dtype=np.int32),
                    "scores": np.array([score for score, _ in item], dtype=np.float32)}
        return DatasetSeq(corpus_idx, features, seq_tag=tag)
