"""``TranslationFactorsDataset``: parallel text with factored words (``word|factor1|factor2``), public at the
reference's path ``returnn.datasets.lm``.

Files as :class:`~returnn.datasets.lm.TranslationDataset` (``<path>/source.<file_postfix>``,
``<path>/target.<file_postfix>``, ``source.vocab.pkl``, ``target.vocab.pkl``); each factor is an extra data key
named as in ``source_factors`` / ``target_factors`` with its vocabulary ``<path>/<factor name>.vocab.pkl``. Every
token of a side with factors is split at ``factor_separator``: the first part is the word (``"data"`` /
``"classes"``), the others the factors in order. ``source_postfix`` / ``target_postfix`` (e.g. ``" </S>"``) are
appended to every stream of the side. Keys are reported sorted (observed from the reference:
``["classes", "data", "source_f1", "target_f1"]``), tags ``line-<n>``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetFileError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset
from returnn.datasets.text_files import find_file_or_gz, labels_from_map, load_vocab_file, read_lines


@register_dataset
class TranslationFactorsDataset(Dataset):
    """Factored parallel text (see the module doc).

    :param path: folder of the corpus and vocabulary files
    :param file_postfix: e.g. ``"train"``
    :param source_factors: factor key names of the source side
    :param target_factors: factor key names of the target side
    :param factor_separator: default ``"|"``
    :param unknown_label: label used for tokens not in a vocabulary (else an error naming file and line)
    :raises DatasetFileError: a missing file, a token with the wrong number of factors, an unknown token
    """

    def __init__(self, path: str, file_postfix: str, source_factors: Optional[Sequence[str]] = None,
                 target_factors: Optional[Sequence[str]] = None, factor_separator: str = "|",
                 source_postfix: str = "", target_postfix: str = "", source_only: bool = False,
                 search_without_reference: bool = False, unknown_label: Optional[str] = None,
                 seq_list_file: Optional[str] = None, use_cache_manager: bool = False, **kwargs):
        super().__init__(**kwargs)
        sides = [("source", "data", list(source_factors or []), source_postfix)]
        if not (source_only or search_without_reference):
            sides.append(("target", "classes", list(target_factors or []), target_postfix))
        self._streams: Dict[str, List[np.ndarray]] = {}
        self.labels, self.num_outputs = {}, {}
        counts = {}
        for side, key, factors, postfix in sides:
            keys = [key] + factors
            vocabs = {}
            for k in keys:
                vocab_file = find_file_or_gz(path, f"{side if k == key else k}.vocab.pkl")
                vocabs[k] = (vocab_file, load_vocab_file(vocab_file))
                self.labels[k] = labels_from_map(vocabs[k][1])
                self.num_outputs[k] = [len(self.labels[k]), 1]
                self._streams[k] = []
            filename = find_file_or_gz(path, f"{side}.{file_postfix}")
            lines = read_lines(filename)
            counts[side] = len(lines)
            for n, line in enumerate(lines, start=1):
                tokens = line.split()
                columns: List[List[str]] = [[] for _ in keys]
                for token in tokens:
                    parts = token.split(factor_separator) if factors else [token]
                    if len(parts) != len(keys):
                        raise DatasetFileError(filename, f"line {n}: token {token!r} has {len(parts)} parts, expected "
                                                         f"{len(keys)} ({keys}, separator {factor_separator!r})")
                    for col, part in zip(columns, parts):
                        col.append(part)
                for col in columns:
                    col.extend(postfix.split())
                for k, col in zip(keys, columns):
                    vocab_file, vocab = vocabs[k]
                    ids = []
                    for word in col:
                        idx = vocab.get(word)
                        if idx is None:
                            if unknown_label is None or unknown_label not in vocab:
                                raise DatasetFileError(filename, f"line {n}: {k} token {word!r} is not in "
                                                                 f"{vocab_file!r} (no unknown_label)")
                            idx = vocab[unknown_label]
                        ids.append(idx)
                    self._streams[k].append(np.array(ids, dtype=np.int32))
        if len(set(counts.values())) > 1:
            raise DatasetFileError(path, f"source and target have different numbers of lines: {counts}")
        self._num = counts["source"]
        self.num_inputs = self.num_outputs["data"][0]

    def get_data_keys(self) -> List[str]:
        return sorted(self.num_outputs)

    def get_total_num_seqs(self) -> int:
        return self._num

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return f"line-{corpus_idx}"

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return len(self._streams["data"][corpus_idx])

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        return DatasetSeq(corpus_idx, {k: v[corpus_idx] for k, v in self._streams.items()},
                          seq_tag=f"line-{corpus_idx}")
