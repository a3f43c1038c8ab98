"""Map-style datasets (``len`` + ``__getitem__``) and their wrapper, at the reference's path
``returnn.datasets.map``: :class:`MapDatasetBase` (users subclass it), :class:`FromListDataset` (a list of dicts)
and :class:`MapDatasetWrapper` (makes a map dataset a RETURNN dataset).

Behaviour observed from the reference: the wrapper's keys and ``num_outputs`` come from the map dataset's
``data_types`` (``{"data": {"dim": 2, "shape": (None, 2)}, "classes": {"dim": 5, "sparse": True}}`` ->
``{"data": (2, 2), "classes": (5, 1)}``, keys in ``data_types`` order); tags are ``get_seq_tag(i)`` (default
``"seq-<i>"``); the order is ``get_seq_order(epoch)`` if the map dataset implements it, else ``seq_ordering``,
where the sorting orders need ``get_seq_len`` (``FromListDataset``: the length of ``sort_data_key``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.cached2 import OptionalNotImplementedError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


class MapDatasetBase:
    """A dataset as ``len(ds)`` and ``ds[i] -> {key: numpy array}``; subclasses implement ``__len__`` and
    ``__getitem__`` and may implement ``get_seq_len``, ``get_seq_tag``, ``get_seq_order``.

    :param data_types: key -> Tensor kwargs (``dim``, ``shape``, ``sparse``, ``dtype``)
    """

    def __init__(self, data_types: Optional[Dict[str, Dict[str, Any]]] = None):
        self.data_types = dict(data_types or {})

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__}.__len__")

    def __getitem__(self, seq_idx: int) -> Dict[str, np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__}.__getitem__")

    def get_seq_len(self, seq_idx: int) -> int:
        """Length for the sorting orders (optional)."""
        raise OptionalNotImplementedError

    def get_seq_tag(self, seq_idx: int) -> str:
        """``"seq-<seq_idx>"``."""
        return "seq-%i" % seq_idx

    def get_seq_order(self, epoch: Optional[int] = None) -> Sequence[int]:
        """A custom order of ``epoch`` (optional)."""
        raise OptionalNotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} data_types={list(self.data_types)}>"


class FromListDataset(MapDatasetBase):
    """A list of dicts key -> array as map dataset.

    :param data_list: the sequences
    :param sort_data_key: the key whose length :meth:`get_seq_len` gives (for the sorting orders)
    """

    def __init__(self, data_list: List[Dict[str, np.ndarray]], sort_data_key: Optional[str] = None, **kwargs):
        super().__init__(**kwargs)
        self.data_list = data_list
        self.sort_data_key = sort_data_key

    def __len__(self) -> int:
        return len(self.data_list)

    def __getitem__(self, seq_idx: int) -> Dict[str, np.ndarray]:
        return self.data_list[seq_idx]

    def get_seq_len(self, seq_idx: int) -> int:
        """Length of ``sort_data_key``.

        :raises DatasetArgError: no ``sort_data_key``
        """
        if not self.sort_data_key:
            raise DatasetArgError("FromListDataset: specify which data key should be used for sequence sorting via "
                                  "'sort_data_key'")
        return len(self.data_list[seq_idx][self.sort_data_key])


def _num_outputs_entry(spec: Dict[str, Any]) -> Any:
    shape = spec.get("shape")
    sparse = bool(spec.get("sparse", False))
    dim = spec.get("dim")
    if dim is None and shape and shape[-1] is not None and not sparse:
        dim = shape[-1]
    if shape is None:
        ndim = 1 if sparse else 2
    else:
        ndim = len(shape)
    if ndim == 0:
        return dict(spec)
    return (dim, ndim)


@register_dataset
class MapDatasetWrapper(Dataset):
    """A map-style dataset (:class:`MapDatasetBase`: ``len`` + ``__getitem__``) as RETURNN dataset (see the module
    doc).

    :param map_dataset: an instance, or a class / function returning one
    :raises DatasetArgError: no ``data_types``, a sorting order without ``get_seq_len``
    """

    def __init__(self, map_dataset: Any, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(map_dataset, MapDatasetBase) and callable(map_dataset):
            map_dataset = map_dataset()
        if not isinstance(map_dataset, MapDatasetBase):
            raise DatasetArgError(f"MapDatasetWrapper: map_dataset must be a MapDatasetBase (or return one), got "
                                  f"{type(map_dataset).__name__}")
        if not map_dataset.data_types:
            raise DatasetArgError(f"{self}: map_dataset {map_dataset!r} needs to provide data_types")
        self._dataset = map_dataset
        self.num_outputs = {key: _num_outputs_entry(spec) for key, spec in map_dataset.data_types.items()}
        self._data_dtypes = {key: spec["dtype"] for key, spec in map_dataset.data_types.items() if spec.get("dtype")}
        self.num_inputs = self.num_outputs["data"][0] if isinstance(self.num_outputs.get("data"), tuple) else 0

    def get_total_num_seqs(self) -> int:
        return len(self._dataset)

    def get_data_keys(self) -> List[str]:
        """The keys of ``data_types``, in their order."""
        return list(self._dataset.data_types)

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        try:
            return [int(i) for i in self._dataset.get_seq_order(epoch=epoch)]
        except OptionalNotImplementedError:
            pass
        base = self.seq_ordering.split(":")[0]
        if base not in ("default", "reverse", "random"):
            try:
                self._dataset.get_seq_len(0)
            except OptionalNotImplementedError:
                raise DatasetArgError(f"{self}: dataset {self._dataset!r}.get_seq_len is not implemented, "
                                      f"seq_ordering {self.seq_ordering!r} is not supported") from None
        return super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len=self._dataset.get_seq_len)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return self._dataset.get_seq_len(corpus_idx)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._dataset.get_seq_tag(corpus_idx)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        features = {k: np.asarray(v) for k, v in self._dataset[corpus_idx].items()}
        return DatasetSeq(corpus_idx, features, seq_tag=self._dataset.get_seq_tag(corpus_idx))
