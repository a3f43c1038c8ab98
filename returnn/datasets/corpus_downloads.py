"""Datasets of public corpora that the reference downloads or expects at a path, public at
``returnn.datasets.generating``: ``Enwik8Corpus``, ``TimitDataset``, ``NltkTimitDataset``.

Nothing is downloaded here. When the data is not there, the constructor raises one
:class:`returnn.errors.DataFileError` naming the option and the path, and where to get the data.
``Enwik8Corpus`` reads ``<path>/enwik8.zip`` when present (see the class); TIMIT (a licensed corpus) is not read.
"""

from __future__ import annotations

import os
import zipfile
from typing import Dict, Optional

import numpy as np

from returnn.errors import DataFileError, DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset

#: byte ranges of the standard split of the 100M bytes of enwik8
ENWIK8_SUBSETS = {"training": (0, 90_000_000), "validation": (90_000_000, 95_000_000), "test": (95_000_000, None)}


@register_dataset
class Enwik8Corpus(Dataset):
    """Character-level enwik8 (the first 10^8 bytes of an English Wikipedia dump) from ``<path>/enwik8.zip``
    (http://mattmahoney.net/dc/enwik8.zip; not downloaded here): the ``subset`` (``training`` = the first 90M
    bytes, ``validation`` the next 5M, ``test`` the last 5M) cut into sequences of ``seq_len + 1`` bytes;
    ``"data"`` is bytes ``[0, seq_len)`` and ``"classes"`` bytes ``[1, seq_len]`` of each, both sparse ``uint8``
    over 256 symbols; tags ``<subset>-<i>``.

    :param path: folder holding ``enwik8.zip``
    :param subset: ``training``, ``validation`` or ``test``
    :param seq_len: bytes per sequence
    :param batch_num_seqs: not supported here (raises)
    :param subsubset: an int ``n``: only the first ``n`` bytes of the subset
    :raises DataFileError: ``enwik8.zip`` is not in ``path``
    """

    def __init__(self, path: str, subset: str, seq_len: int, batch_num_seqs: Optional[int] = None,
                 subsubset: Optional[int] = None, **kwargs):
        super().__init__(**kwargs)
        if subset not in ENWIK8_SUBSETS:
            raise DatasetArgError(f"Enwik8Corpus: subset must be one of {sorted(ENWIK8_SUBSETS)}, got {subset!r}")
        if batch_num_seqs is not None:
            raise DatasetArgError("Enwik8Corpus: batch_num_seqs is not supported here; use seq_ordering / max_seqs")
        zip_path = os.path.join(path, "enwik8.zip")
        if not os.path.exists(zip_path):
            raise DataFileError(zip_path, "Enwik8Corpus option 'path': enwik8.zip is not there (nothing is downloaded "
                                          "here); get it from http://mattmahoney.net/dc/enwik8.zip")
        with zipfile.ZipFile(zip_path) as zf:
            raw = zf.read("enwik8")
        start, end = ENWIK8_SUBSETS[subset]
        data = np.frombuffer(raw, dtype=np.uint8)[start:end]
        if subsubset:
            data = data[:int(subsubset)]
        self._data = data
        self.subset = subset
        self.seq_len = int(seq_len)
        self.num_outputs = {"data": [256, 1], "classes": [256, 1]}
        self.num_inputs = 256
        self._data_dtypes = {"data": "uint8", "classes": "uint8"}

    def get_total_num_seqs(self) -> int:
        return max((len(self._data) - 1) // self.seq_len, 0)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return f"{self.subset}-{corpus_idx}"

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return self.seq_len

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        chunk = self._data[corpus_idx * self.seq_len:(corpus_idx + 1) * self.seq_len + 1]
        return DatasetSeq(corpus_idx, {"data": chunk[:-1].copy(), "classes": chunk[1:].copy()},
                          seq_tag=self._get_corpus_seq_tag(corpus_idx))


@register_dataset
class TimitDataset(Dataset):
    """TIMIT (a licensed corpus, LDC93S1): not read by this project.

    :raises DataFileError: ``timit_dir`` does not exist
    :raises DatasetArgError: otherwise (reading TIMIT is not implemented here)
    """

    def __init__(self, timit_dir, train=True, preload=False, features="mfcc", num_feature_filters=40,
                 feature_window_len=0.025, feature_step_len=0.01, with_delta=False, norm_mean=None, norm_std_dev=None,
                 random_permute_audio=None, num_phones=61, demo_play_audio=False, **kwargs):
        if not timit_dir or not os.path.isdir(timit_dir):
            raise DataFileError(str(timit_dir), "TimitDataset option 'timit_dir': the TIMIT corpus is not there (it "
                                                "is licensed by the LDC, LDC93S1; nothing is downloaded here)")
        raise DatasetArgError("TimitDataset: reading TIMIT is not supported by this project; convert it to an Ogg "
                              "zip (OggZipDataset) or HDF")


    @staticmethod
    def get_label_map(source_num_phones: int = 61, target_num_phones: int = 39) -> Dict[int, Optional[int]]:
        """The standard folding of the TIMIT phone sets (61 -> 48 -> 39 phones) as label index maps, the
        reference's values (observed): ``{source index: target index}``; the glottal stop (61-phone index 46) maps
        to None. Equal sizes give the identity.

        :raises DatasetArgError: for sizes other than 61, 48, 39 or a target larger than the source
        """
        if source_num_phones == target_num_phones and source_num_phones in (61, 48, 39):
            return {i: i for i in range(source_num_phones)}
        if (source_num_phones, target_num_phones) == (61, 48):
            return dict(enumerate(_TIMIT_61_TO_48))
        if (source_num_phones, target_num_phones) == (48, 39):
            return dict(enumerate(_TIMIT_48_TO_39))
        if (source_num_phones, target_num_phones) == (61, 39):
            return {i: (None if j is None else _TIMIT_48_TO_39[j]) for i, j in enumerate(_TIMIT_61_TO_48)}
        raise DatasetArgError(f"TimitDataset.get_label_map: expected source/target phone counts among 61 -> 48 -> 39, "
                              f"got {source_num_phones} -> {target_num_phones}")


# observed from the reference's TimitDataset.get_label_map
_TIMIT_61_TO_48 = [0, 1, 2, 3, 4, 5, 6, 6, 18, 7, 8, 43, 9, 11, 43, 12, 13, 14, 15, 29, 16, 31, 17, 18, 19, 20, 21, 43,
                   0, 22, 22, 23, 24, 25, 26, 27, 10, 28, 29, 30, 31, 30, 32, 33, 34, 10, None, 35, 36, 37, 38, 10, 39,
                   40, 41, 41, 42, 44, 45, 46, 47]
_TIMIT_48_TO_39 = [0, 1, 2, 3, 1, 4, 3, 5, 6, 7, 0, 8, 9, 10, 11, 21, 23, 0, 12, 13, 14, 15, 16, 17, 17, 18, 19, 20, 21,
                   22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 0, 36, 37, 38, 30]


@register_dataset
class NltkTimitDataset(TimitDataset):
    """The TIMIT sample of NLTK's data: needs the ``nltk`` package and its downloaded ``timit`` corpus.

    :raises DataFileError: the NLTK TIMIT sample is not in ``nltk_download_dir``
    """

    def __init__(self, nltk_download_dir=None, **kwargs):
        folder = os.path.join(nltk_download_dir or os.path.expanduser("~/nltk_data"), "corpora", "timit")
        raise DataFileError(folder, "NltkTimitDataset option 'nltk_download_dir': the NLTK TIMIT sample is not there "
                                    "and nothing is downloaded here (python -m nltk.downloader timit); reading it is "
                                    "not supported by this project")
