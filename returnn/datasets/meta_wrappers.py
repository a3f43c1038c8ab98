"""Datasets wrapping another dataset per epoch, public at the reference's path ``returnn.datasets.meta``:
:class:`VariableDataset` (a new dataset dict per epoch), :class:`MultiEpochDataset` (several sub-epochs of a
dataset as one epoch) and :class:`AnythingDataset` (endless dummy sequences of a given layout).

Behaviour observed from the reference is noted per class.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.cached2 import CachedDataset2, OptionalNotImplementedError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset


def _copy_seq(sub: Dataset, seq_idx: int) -> DatasetSeq:
    sub.load_seqs(seq_idx, seq_idx + 1)
    features = {key: sub.get_data(seq_idx, key) for key in sub.get_data_keys()}
    return DatasetSeq(seq_idx, features, seq_tag=sub.get_tag(seq_idx))


@register_dataset
class VariableDataset(CachedDataset2):
    """Each epoch, ``get_dataset(epoch=epoch, self=self)`` returns a dataset dict; the dataset built from it
    (reused while the dict stays the same, up to ``dataset_lru_cache_size`` of them) gives the epoch's
    sequences. As the reference, ``get_dataset`` is called for epoch 1 at construction (for the data keys)
    and again at every ``init_seq_order``; ``get_all_tags`` needs ``always_same_tags=True``.

    :param get_dataset: function ``(*, epoch: int, self, **_) -> dataset dict``
    :param dataset_lru_cache_size: how many built datasets are kept for reuse
    :param always_same_tags: every epoch's dataset has the same tags
    """

    def __init__(self, *, get_dataset: Callable[..., Dict[str, Any]], dataset_lru_cache_size: int = 1,
                 always_same_tags: bool = False, **kwargs):
        super().__init__(**kwargs)
        if not callable(get_dataset):
            raise DatasetArgError(f"VariableDataset: get_dataset must be a function (*, epoch, **_) -> dataset dict, "
                                  f"got {get_dataset!r}")
        self._get_dataset_func = get_dataset
        self._cache_size = max(int(dataset_lru_cache_size), 1)
        self._cache: List[tuple] = []  # (repr of dict, dataset), most recent last
        self.always_same_tags = always_same_tags
        self._dataset = self._load_dataset(1)
        self.num_outputs = dict(self._dataset.num_outputs)
        self.num_inputs = self._dataset.num_inputs
        self.labels = dict(self._dataset.labels)
        self._data_dtypes = {k: self._dataset.get_data_dtype(k) for k in self._dataset.get_data_keys()
                             if k in self._dataset.num_outputs}

    def _load_dataset(self, epoch: int) -> Dataset:
        spec = self._get_dataset_func(epoch=epoch, self=self)
        key = repr(spec)
        for i, (cached_key, ds) in enumerate(self._cache):
            if cached_key == key:
                self._cache.append(self._cache.pop(i))
                return ds
        ds = init_dataset(spec, default_kwargs={"name": f"{self.name}_sub"})
        self._cache.append((key, ds))
        del self._cache[:-self._cache_size]
        return ds

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._dataset = self._load_dataset(self.epoch)
        self._dataset.init_seq_order(epoch=self.epoch, seq_list=seq_list, seq_order=seq_order)
        try:
            self._num_seqs = self._dataset.num_seqs
        except NotImplementedError:
            self._num_seqs = None
        return True

    def is_less_than_num_seqs(self, n: int) -> bool:
        return self._dataset.is_less_than_num_seqs(n)

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if not self._dataset.is_less_than_num_seqs(seq_idx):
            return None
        return _copy_seq(self._dataset, seq_idx)

    def get_data_keys(self) -> List[str]:
        return self._dataset.get_data_keys()

    def get_all_tags(self) -> List[str]:
        if not self.always_same_tags:
            raise OptionalNotImplementedError(f"{self}.get_all_tags(): always_same_tags=False, thus could be "
                                              f"inconsistent")
        return self._dataset.get_all_tags()

    def get_current_seq_order(self) -> List[int]:
        return self._dataset.get_current_seq_order()


@register_dataset
class MultiEpochDataset(CachedDataset2):
    """Epoch ``e`` consists of the sub-epochs ``(e - 1) * multi_epoch + 1 .. e * multi_epoch`` of ``dataset``,
    one after the other (each with the sub dataset's own order and ``partition_epoch``); as the reference,
    ``num_seqs`` is unknown (``NotImplementedError``), the keys are the sub dataset's and
    ``get_total_num_seqs`` is its value.

    :param dataset: dataset dict
    :param multi_epoch: sub-epochs per epoch
    """

    def __init__(self, *, dataset: Dict[str, Any], multi_epoch: int, **kwargs):
        super().__init__(**kwargs)
        if int(multi_epoch) < 1:
            raise DatasetArgError(f"MultiEpochDataset: multi_epoch must be >= 1, got {multi_epoch!r}")
        self.multi_epoch = int(multi_epoch)
        self.dataset = init_dataset(dataset, default_kwargs={"name": f"{self.name}_sub"})
        self.num_outputs = dict(self.dataset.num_outputs)
        self.num_inputs = self.dataset.num_inputs
        self.labels = dict(self.dataset.labels)
        self._data_dtypes = {k: self.dataset.get_data_dtype(k) for k in self.dataset.num_outputs}
        self._sub_epoch: Optional[int] = None
        self._sub_offset = 0

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._num_seqs = None
        self._start_sub_epoch(0, 0)
        return True

    def _start_sub_epoch(self, k: int, offset: int) -> None:
        self._sub_k = k
        self._sub_offset = offset
        self.dataset.init_seq_order(epoch=(self.epoch - 1) * self.multi_epoch + k + 1)

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if seq_idx < self._sub_offset:
            self._start_sub_epoch(0, 0)
        while not self.dataset.is_less_than_num_seqs(seq_idx - self._sub_offset):
            if self._sub_k + 1 >= self.multi_epoch:
                return None
            self._start_sub_epoch(self._sub_k + 1, self._sub_offset + self.dataset.num_seqs)
        seq = _copy_seq(self.dataset, seq_idx - self._sub_offset)
        seq.seq_idx = seq_idx
        return seq

    def get_data_keys(self) -> List[str]:
        return self.dataset.get_data_keys()

    def get_total_num_seqs(self) -> int:
        return self.dataset.get_total_num_seqs()


@register_dataset
class AnythingDataset(CachedDataset2):
    """Endless sequences of zeros in the layout of ``data_keys`` (key -> ``{"dim", "shape", "dtype", "sparse"}``;
    dynamic axes get length 1), tags ``seq-<i>``; as the reference, ``num_seqs`` is unknown and
    ``is_less_than_num_seqs`` always true. Useful to build a model without data.

    :param data_keys: key -> Tensor kwargs
    """

    def __init__(self, *, data_keys: Dict[str, Dict[str, Any]], **kwargs):
        super().__init__(**kwargs)
        if not isinstance(data_keys, dict) or not data_keys:
            raise DatasetArgError(f"AnythingDataset: data_keys must be a non-empty dict key -> Tensor kwargs, got "
                                  f"{data_keys!r}")
        self.data_keys = data_keys
        from returnn.datasets.map import _num_outputs_entry

        self.num_outputs = {k: _num_outputs_entry(v) for k, v in data_keys.items()}
        self._data_dtypes = {k: v.get("dtype") or ("int32" if v.get("sparse") else "float32")
                             for k, v in data_keys.items()}

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._num_seqs = None
        return True

    def is_less_than_num_seqs(self, n: int) -> bool:
        return True

    def _collect_single_seq(self, seq_idx: int) -> DatasetSeq:
        features = {}
        for key, spec in self.data_keys.items():
            shape = spec.get("shape")
            if shape is None:
                shape = (None,) if spec.get("sparse") else (None, spec.get("dim"))
            features[key] = np.zeros([1 if d is None else int(d) for d in shape], dtype=self._data_dtypes[key])
        return DatasetSeq(seq_idx, features, seq_tag="seq-%i" % seq_idx)

    def get_data_keys(self) -> List[str]:
        return list(self.data_keys)
