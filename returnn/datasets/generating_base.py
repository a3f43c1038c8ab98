"""``GeneratingDataset`` (sequences computed on demand) and ``StaticDataset`` (sequences given in memory)."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


def _normalize_dims(input_dim: Optional[int], output_dim: Any) -> Dict[str, Any]:
    """``input_dim``/``output_dim`` -> ``num_outputs`` (key -> ``(dim, ndim)``), as the reference:
    an int ``input_dim`` is dense ``"data"`` ``(dim, 2)``; an int ``output_dim`` is sparse ``"classes"``
    ``(dim, 1)``; a dict ``output_dim`` gives key -> int (sparse) or ``(dim, ndim)``."""
    num_outputs: Dict[str, Any] = {}
    if input_dim is not None:
        num_outputs["data"] = (int(input_dim), 2)
    if isinstance(output_dim, dict):
        for key, value in output_dim.items():
            if isinstance(value, int):
                value = (value, 1)
            num_outputs[key] = tuple(value)
    elif output_dim is not None:
        num_outputs["classes"] = (int(output_dim), 1)
    return num_outputs


@register_dataset
class GeneratingDataset(Dataset):
    """Base of the synthetic datasets: sequence ``i`` of an epoch is computed by :meth:`generate_seq`.

    Randomness (as the reference): ``self.random`` is one ``numpy.random.RandomState``; before sequence
    ``i`` of the corpus is generated it is re-seeded with ``seed((epoch_seed, i))``, where ``epoch_seed`` is
    ``fixed_random_seed`` if given, else the full epoch plus ``random_seed_offset``. So a sequence depends only
    on (seed, corpus index): with ``fixed_random_seed`` every epoch gives the same sequences, without it each
    full epoch gives new ones (which makes ``task = "eval"`` on ``load_epoch = N`` reproduce epoch N's dev
    score), and the same config gives the reference's sequences.

    :param input_dim: dim of the dense ``"data"`` stream (None: no ``"data"`` or given via ``output_dim``)
    :param output_dim: int (sparse ``"classes"``) or dict key -> dim / ``(dim, ndim)``
    :param num_seqs: number of sequences per (full) epoch; default infinite (as the reference: the epoch never
        ends by itself, ``is_less_than_num_seqs`` is always true; only ``seq_ordering="default"`` then)
    :raises DatasetArgError: for a negative ``num_seqs``, or an infinite one with another ``seq_ordering`` or
        ``partition_epoch``
    """

    def __init__(self, input_dim: Optional[int], output_dim: Any, num_seqs: Any = math.inf, **kwargs):
        super().__init__(**kwargs)
        if num_seqs is None:
            num_seqs = math.inf
        if not isinstance(num_seqs, (int, float)) or num_seqs < 0 or num_seqs != num_seqs:
            raise DatasetArgError(f"{type(self).__name__}: num_seqs must be an int >= 0 or inf, got {num_seqs!r}")
        self._infinite = math.isinf(num_seqs)
        if self._infinite and (self.seq_ordering != "default" or self.partition_epoch > 1):
            raise DatasetArgError(f"{type(self).__name__}: an infinite num_seqs needs seq_ordering='default' and no "
                                  f"partition_epoch, got seq_ordering={self.seq_ordering!r}, "
                                  f"partition_epoch={self.partition_epoch}")
        self._num_seqs_total = num_seqs if self._infinite else int(num_seqs)
        self.num_outputs = _normalize_dims(input_dim, output_dim)
        self.num_inputs = self.num_outputs.get("data", (0, 2))[0]
        self._input_dim = input_dim
        self._output_dim = output_dim
        self.random = np.random.RandomState(0)

    @property
    def num_seqs(self):
        """Sequences in the current (sub-)epoch; before :meth:`init_seq_order` the corpus size, as the reference
        (``inf`` for an infinite dataset)."""
        if self._infinite:
            return math.inf
        if self.epoch is None:
            return self._num_seqs_total
        return len(self._seq_order_list)

    def init_seq_order(self, epoch: Optional[int] = None, seq_list=None, seq_order=None) -> bool:
        if not self._infinite:
            return super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self.epoch = epoch if epoch is not None else 1
        self._loaded.clear()
        self._seq_order_list = []
        return True

    def is_less_than_num_seqs(self, n: int) -> bool:
        return True if self._infinite else super().is_less_than_num_seqs(n)

    def get_corpus_seq_idx(self, seq_idx: int) -> int:
        return seq_idx if self._infinite else super().get_corpus_seq_idx(seq_idx)

    def get_total_num_seqs(self) -> int:
        return self._num_seqs_total

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        self.random.seed((self._get_epoch_seed(self.epoch or 1), corpus_idx))
        seq = self.generate_seq(corpus_idx)
        if not isinstance(seq, DatasetSeq):
            seq = DatasetSeq(corpus_idx, seq)
        seq.seq_tag = f"seq-{corpus_idx}"
        return seq

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return f"seq-{corpus_idx}"

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        """Computes corpus sequence ``seq_idx`` using ``self.random``. Subclasses implement this."""
        raise NotImplementedError(f"{type(self).__name__}.generate_seq")


@register_dataset
class StaticDataset(Dataset):
    """Sequences given in memory (the reference's ``StaticDataset``).

    :param data: list of dicts key -> array (time-major per sequence: ``[T]`` sparse, ``[T, dim]`` dense)
    :param target_list: keys other than ``"data"``; default: all other keys
    :param input_dim: dim of ``"data"``; default inferred
    :param output_dim: dict key -> dim or ``(dim, ndim)``; missing keys are inferred: float arrays are dense
        with ``dim = shape[-1]``, int arrays are sparse with ``dim = max + 1``
    :raises DatasetArgError: if ``data`` is not a list of dicts of arrays or a key's frame shape varies
    """

    def __init__(self, data: Sequence[Dict[str, np.ndarray]], target_list: Optional[List[str]] = None,
                 input_dim: Optional[int] = None, output_dim: Any = None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(data, (list, tuple)) or not all(isinstance(d, dict) for d in data):
            raise DatasetArgError(f"StaticDataset: 'data' must be a list of dicts key -> array, got "
                                  f"{type(data).__name__}")
        self._data = [{k: np.asarray(v) for k, v in d.items()} for d in data]
        keys = sorted({k for d in self._data for k in d})
        num_outputs = _normalize_dims(input_dim, output_dim if isinstance(output_dim, dict) else None)
        if isinstance(output_dim, int):
            num_outputs.setdefault("classes", (output_dim, 1))
        self._data_dtypes = {}
        for key in keys:
            arrays = [d[key] for d in self._data if key in d]
            if len(arrays) != len(self._data):
                raise DatasetArgError(f"StaticDataset: key {key!r} is missing in some sequences")
            shapes = {a.shape[1:] for a in arrays}
            if len(shapes) > 1:
                raise DatasetArgError(f"StaticDataset: key {key!r} has inconsistent frame shapes {sorted(shapes)}")
            first = arrays[0]
            self._data_dtypes[key] = str(first.dtype)
            if key in num_outputs:
                continue
            if first.dtype.kind == "f":
                num_outputs[key] = (int(first.shape[-1]) if first.ndim >= 2 else 1, max(first.ndim, 1))
            else:
                dim = max((int(a.max()) + 1 for a in arrays if a.size), default=0)
                num_outputs[key] = (dim, max(first.ndim, 1))
        self.num_outputs = num_outputs
        self.num_inputs = num_outputs.get("data", (0, 2))[0]
        self.target_list = target_list if target_list is not None else [k for k in keys if k != "data"]

    @property
    def data(self) -> List[Dict[str, np.ndarray]]:
        """The sequences as given (corpus order): one dict key -> numpy array per sequence (the reference's
        public attribute)."""
        return self._data

    @property
    def num_seqs(self) -> int:
        """Sequences in the current epoch; before :meth:`init_seq_order` all of them, as the reference."""
        return len(self._data) if self.epoch is None else len(self._seq_order_list)

    def get_total_num_seqs(self) -> int:
        return len(self._data)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        return DatasetSeq(corpus_idx, self._data[corpus_idx], seq_tag=f"seq-{corpus_idx}")

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        seq = self._data[corpus_idx]
        arr = seq.get("data", next(iter(seq.values())))
        return int(arr.shape[0]) if arr.ndim else 1

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return f"seq-{corpus_idx}"

    def get_target_list(self) -> List[str]:
        return list(self.target_list)
