"""``HuggingFaceDataset``: a dataset of the HuggingFace ``datasets`` library, at the reference's path
``returnn.datasets.huggingface``.

``dataset_opts``: a folder written by ``Dataset.save_to_disk`` (or a list of them / of ``.arrow`` shard
files), a dict of ``datasets.load_dataset`` kwargs, or a function returning any of these or a
``datasets.Dataset``. Then ``map_func(dataset)``, ``rename_columns`` and ``cast_columns`` (column -> a
``datasets.Features`` dict entry) are applied. ``data_format``: data key (= column) -> Tensor kwargs
(``dtype``, ``shape`` without batch, ``sparse``, ``dim``).

Behaviour observed from the reference: the user's ``dtype`` must equal the column's (``int32`` for an ``int64``
column is rejected), and a sparse ``dim`` must be what the column tells (a ``ClassLabel``'s number of names);
``num_outputs`` is ``(dim or 1, len(shape))``; tags come from ``seq_tag_column`` (default ``"id"``; None:
``seq-<i>``); the sorting orders need ``sorting_seq_len_column`` (an int column) or
``sorting_seq_len_column_data`` (the length of a data column); strings are 0-dim numpy str arrays.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


def _datasets_lib():
    try:
        import datasets
    except ImportError:
        raise DatasetArgError("HuggingFaceDataset needs the 'datasets' package: pip install datasets") from None
    return datasets


def _load(opts: Any):
    datasets = _datasets_lib()
    if callable(opts) and not isinstance(opts, (str, os.PathLike)):
        opts = opts()
    if isinstance(opts, datasets.Dataset):
        return opts
    if isinstance(opts, dict):
        return datasets.load_dataset(**opts)
    if isinstance(opts, (str, os.PathLike)):
        opts = [opts]
    parts = []
    for path in opts:
        path = os.fspath(path)
        if path.endswith(".arrow"):
            parts.append(datasets.Dataset.from_file(path))
        elif os.path.isdir(path):
            parts.append(datasets.load_from_disk(path))
        else:
            raise DatasetArgError(f"HuggingFaceDataset option 'dataset_opts': {path!r} is neither a folder written by "
                                  f"save_to_disk nor an .arrow file")
    return parts[0] if len(parts) == 1 else datasets.concatenate_datasets(parts)


def _feature_info(feature) -> tuple:
    """(dtype or None, sparse dim or None, number of nested list levels) of a ``datasets`` feature."""
    datasets = _datasets_lib()
    depth = 0
    while isinstance(feature, (datasets.Sequence, getattr(datasets, "List", datasets.Sequence))) and \
            hasattr(feature, "feature"):
        feature = feature.feature
        depth += 1
    if isinstance(feature, datasets.ClassLabel):
        return "int64", feature.num_classes, depth
    if isinstance(feature, datasets.Value):
        return str(feature.dtype), None, depth
    return None, None, depth


@register_dataset
class HuggingFaceDataset(Dataset):
    """A dataset of the HuggingFace ``datasets`` library (saved folders, ``.arrow`` shards or ``load_dataset``),
    columns as data keys (see the module doc).

    :raises DatasetArgError: the ``datasets`` package is missing, a ``data_format`` entry contradicts the
        column (dtype, sparse dim), an unknown column, a sorting order without a length column
    """

    def __init__(self, dataset_opts: Any, *, use_file_cache: bool = False, map_func: Optional[Callable] = None,
                 rename_columns: Optional[Dict[str, str]] = None, cast_columns: Optional[Dict[str, Dict]] = None,
                 data_format: Dict[str, Dict[str, Any]], seq_tag_column: Optional[str] = "id",
                 sorting_seq_len_column_data: Optional[str] = None, sorting_seq_len_column: Optional[str] = None,
                 **kwargs):
        super().__init__(**kwargs)
        datasets = _datasets_lib()
        ds = _load(dataset_opts)
        if map_func is not None:
            ds = map_func(ds)
        if rename_columns:
            ds = ds.rename_columns(dict(rename_columns))
        if cast_columns:
            for column, feature in cast_columns.items():
                ds = ds.cast_column(column, datasets.Features.from_dict({column: feature})[column])
        self.hf_dataset = ds
        self.data_format = dict(data_format)
        self.seq_tag_column = seq_tag_column
        self.sorting_seq_len_column = sorting_seq_len_column
        self.sorting_seq_len_column_data = sorting_seq_len_column_data
        self.num_outputs, self._data_dtypes = {}, {}
        for key, spec in self.data_format.items():
            if key not in ds.column_names:
                raise DatasetArgError(f"HuggingFaceDataset data_format[{key!r}]: no such column; columns: "
                                      f"{ds.column_names}")
            dtype, sparse_dim, _depth = _feature_info(ds.features[key])
            want_dtype = spec.get("dtype", "float32")
            if dtype is not None and want_dtype != dtype:
                raise DatasetArgError(f"HuggingFaceDataset data_format[{key!r}]: dtype: user-specified {want_dtype} "
                                      f"does not match the column's {dtype}")
            if spec.get("sparse") and spec.get("dim") is not None and spec["dim"] != sparse_dim:
                raise DatasetArgError(f"HuggingFaceDataset data_format[{key!r}]: dim: user-specified {spec['dim']} "
                                      f"does not match the column's {sparse_dim} (a sparse dim needs a ClassLabel "
                                      f"column)")
            shape = list(spec.get("shape", [None, spec.get("dim")]))
            self.num_outputs[key] = (spec.get("dim") or 1, len(shape))
            self._data_dtypes[key] = want_dtype
        self._sparse = {k for k, v in self.data_format.items() if v.get("sparse")}
        self._shapes = {k: [d for d in v.get("shape", [None, v.get("dim")]) if d is not None]
                        for k, v in self.data_format.items()}

    def get_data_keys(self) -> List[str]:
        return list(self.data_format)

    def is_data_sparse(self, key: str) -> bool:
        self._check_key(key)
        return key in self._sparse

    def get_data_shape(self, key: str) -> List[int]:
        self._check_key(key)
        return list(self._shapes[key])

    def get_data_dim(self, key: str) -> Optional[int]:
        self._check_key(key)
        return self.data_format[key].get("dim")

    def get_total_num_seqs(self) -> int:
        return len(self.hf_dataset)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        if self.seq_tag_column is None:
            return "seq-%i" % corpus_idx
        return str(self.hf_dataset[corpus_idx][self.seq_tag_column])

    def get_all_tags(self) -> List[str]:
        if self.seq_tag_column is None:
            return ["seq-%i" % i for i in range(len(self.hf_dataset))]
        return [str(t) for t in self.hf_dataset[self.seq_tag_column]]

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        base = self.seq_ordering.split(":")[0]
        if base not in ("default", "reverse", "random"):
            if self.sorting_seq_len_column:
                lens = [int(x) for x in self.hf_dataset[self.sorting_seq_len_column]]
            elif self.sorting_seq_len_column_data:
                lens = [len(x) for x in self.hf_dataset[self.sorting_seq_len_column_data]]
            else:
                raise DatasetArgError(f"{self}: sorting/shuffling by seq len not configured, need "
                                      f"sorting_seq_len_column or sorting_seq_len_column_data")
            return super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len=lambda i: lens[i])
        return super().get_seq_order_for_epoch(epoch, num_seqs)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        row = self.hf_dataset[corpus_idx]
        features = {}
        for key, spec in self.data_format.items():
            dtype = spec.get("dtype", "float32")
            value = row[key]
            features[key] = np.array(value) if dtype == "string" else np.asarray(value, dtype=dtype)
        return DatasetSeq(corpus_idx, features, seq_tag=self._get_corpus_seq_tag(corpus_idx))
