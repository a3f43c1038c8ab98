"""``NumpyDumpDataset``: one text file of numbers per sequence and stream, at the reference's path
``returnn.datasets.numpy_dump``.

Sequence ``i`` (counting from ``start_seq``) is ``<prefix><i>.data<postfix>`` (``numpy.loadtxt``: ``[T,
num_inputs]``) and ``<prefix><i>.targets<postfix>`` (``[T]`` class indices); ``postfix`` default ``.txt.gz``.
The sequences run from ``start_seq`` up to ``end_seq`` (exclusive) or, without it, while the data files exist.
``"data"`` is ``float32 [T, num_inputs]``, ``"classes"`` sparse ``int32 [T]`` with ``num_outputs`` classes; tags
``seq-<i>`` (0-based in the dataset). (The reference's version stops after the first sequence; this reads all.)
"""

from __future__ import annotations

import os

import numpy as np

from returnn.errors import DataFileError, DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


@register_dataset
class NumpyDumpDataset(Dataset):
    """Text dumps of numpy arrays (see the module doc).

    :raises DatasetArgError: ``num_inputs`` / ``num_outputs`` missing
    :raises DataFileError: no data file for ``start_seq``, a target file missing, a file that does not parse
    """

    def __init__(self, prefix, postfix=".txt.gz", start_seq=0, end_seq=None, num_inputs=None, num_outputs=None,
                 **kwargs):
        super().__init__(**kwargs)
        if num_inputs is None or num_outputs is None:
            raise DatasetArgError("NumpyDumpDataset: num_inputs and num_outputs must be given")
        self.prefix, self.postfix = prefix, postfix
        self.start_seq = int(start_seq)
        if end_seq is None:
            end_seq = self.start_seq
            while os.path.exists(self._filename(end_seq, "data")):
                end_seq += 1
        self.end_seq = int(end_seq)
        if self.end_seq > self.start_seq and not os.path.exists(self._filename(self.start_seq, "data")):
            raise DataFileError(self._filename(self.start_seq, "data"), "NumpyDumpDataset: the data file of the "
                                                                        "first sequence does not exist")
        self.num_inputs = int(num_inputs)
        self.num_outputs = {"data": (self.num_inputs, 2), "classes": (int(num_outputs), 1)}

    def _filename(self, idx: int, kind: str) -> str:
        return f"{self.prefix}{idx}.{kind}{self.postfix}"

    def get_total_num_seqs(self) -> int:
        return max(self.end_seq - self.start_seq, 0)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return "seq-%i" % corpus_idx

    def _load(self, idx: int, kind: str, ndmin: int) -> np.ndarray:
        fn = self._filename(idx, kind)
        if not os.path.exists(fn):
            raise DataFileError(fn, f"NumpyDumpDataset: sequence 'seq-{idx - self.start_seq}': file does not exist")
        try:
            return np.loadtxt(fn, ndmin=ndmin)
        except ValueError as exc:
            raise DataFileError(fn, f"NumpyDumpDataset: not a text file of numbers: {exc}") from None

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        idx = self.start_seq + corpus_idx
        data = self._load(idx, "data", 2).astype(np.float32)
        classes = self._load(idx, "targets", 1).astype(np.int32)
        if data.shape[1] != self.num_inputs:
            raise DataFileError(self._filename(idx, "data"), f"NumpyDumpDataset: {data.shape[1]} columns, "
                                                             f"num_inputs={self.num_inputs}")
        return DatasetSeq(corpus_idx, {"data": data, "classes": classes}, seq_tag="seq-%i" % corpus_idx)
