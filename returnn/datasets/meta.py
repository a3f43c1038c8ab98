"""Combining datasets: ``MetaDataset`` (keys from several datasets, matched by tag), ``ConcatDataset`` (one after
another) and ``CombinedDataset`` (sampling sequences from several datasets)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.datasets import seq_order as _seq_order
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.epoch_wise_filter import EpochWiseFilter as EpochWiseFilter  # noqa: F401  (reference path)
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset


def _read_tag_list(filename: str) -> List[str]:
    try:
        with open(filename, encoding="utf8") as f:
            return [line.strip() for line in f if line.strip()]
    except OSError as exc:
        raise DatasetFileError(filename, f"cannot read seq list file: {exc}") from None


def _sub_datasets(owner: str, specs: Dict[str, Any]) -> Dict[str, Dataset]:
    if not isinstance(specs, dict) or not specs:
        raise DatasetArgError(f"{owner}: 'datasets' must be a non-empty dict name -> dataset dict")
    return {name: init_dataset(spec, default_kwargs={"name": f"{owner}_{name}"}) for name, spec in specs.items()}


class _TagIndex:
    """tag -> corpus index of one sub dataset (built once)."""

    def __init__(self, dataset: Dataset):
        self.dataset = dataset
        self._index: Optional[Dict[str, int]] = None

    def lookup(self, tag: str, meta_name: str) -> int:
        if self._index is None:  # built at the first use: the sub datasets may read their files lazily
            self._index = {t: i for i, t in enumerate(self.dataset.get_all_tags())}
        try:
            return self._index[tag]
        except KeyError:
            raise DatasetFileError(self.dataset.name, f"{meta_name}: sequence tag {tag!r} not found in this "
                                                      f"sub dataset") from None


@register_dataset
class MetaDataset(Dataset):
    """Takes data keys from several datasets; sequences are matched by tag.

    :param datasets: name -> dataset dict
    :param data_map: our key -> ``(dataset name, key in that dataset)``, e.g.
        ``{"data": ("audio", "data"), "classes": ("align", "classes")}``
    :param seq_list_file: text file with one tag per line (the corpus, in this order), or a dict dataset name ->
        file (lines matched by position); default: the tags of ``seq_order_control_dataset``
    :param seq_order_control_dataset: whose tags define the corpus and whose epoch order (its ``seq_ordering``,
        ``partition_epoch``, filters) is used, as the reference (without ``seq_list_file``, the MetaDataset's own
        ``seq_ordering`` / ``partition_epoch`` are not used); default: the dataset that provides ``"data"``, else
        the first one
    :param data_dims: key -> ``(dim, ndim)`` overrides
    :raises DatasetArgError: for a ``data_map`` naming an unknown dataset or key
    :raises DatasetFileError: a tag of the corpus is missing in a sub dataset
    """

    def __init__(self, datasets: Dict[str, Dict[str, Any]], data_map: Dict[str, Tuple[str, str]],
                 seq_list_file: Union[None, str, Dict[str, str]] = None, seq_order_control_dataset: Optional[str] = None,
                 seq_lens_file: Optional[str] = None, data_dims: Optional[Dict[str, Tuple[int, int]]] = None,
                 data_dtypes: Optional[Dict[str, str]] = None, window: int = 1, **kwargs):
        super().__init__(window=window, **kwargs)
        self.datasets = _sub_datasets("MetaDataset", datasets)
        self.data_map = {k: tuple(v) for k, v in data_map.items()}
        for key, (ds_name, ds_key) in self.data_map.items():
            if ds_name not in self.datasets:
                raise DatasetArgError(f"MetaDataset: data_map[{key!r}] refers to unknown dataset {ds_name!r}; "
                                      f"datasets: {sorted(self.datasets)}")
            if ds_key not in self.datasets[ds_name].get_data_keys():
                raise DatasetArgError(f"MetaDataset: data_map[{key!r}]: dataset {ds_name!r} has no key {ds_key!r}; "
                                      f"it has {self.datasets[ds_name].get_data_keys()}")
        if seq_order_control_dataset is None:
            seq_order_control_dataset = self.data_map["data"][0] if "data" in self.data_map else next(iter(datasets))
        if seq_order_control_dataset not in self.datasets:
            raise DatasetArgError(f"MetaDataset: seq_order_control_dataset {seq_order_control_dataset!r} is not in "
                                  f"datasets {sorted(self.datasets)}")
        self.seq_order_control_dataset = seq_order_control_dataset
        self._seq_list_file = seq_list_file
        self._index = {name: _TagIndex(ds) for name, ds in self.datasets.items()}
        self._tags_cache: Optional[Tuple[List[str], Dict[str, List[str]]]] = None
        self.num_outputs = {}
        self.labels = {}
        self._data_dtypes = {}
        for key, (ds_name, ds_key) in self.data_map.items():
            sub = self.datasets[ds_name]
            self.num_outputs[key] = tuple(sub.num_outputs[ds_key])
            self._data_dtypes[key] = sub.get_data_dtype(ds_key)
            if ds_key in sub.labels:
                self.labels[key] = sub.labels[ds_key]
        self.num_outputs.update({k: tuple(v) for k, v in (data_dims or {}).items()})
        self._data_dtypes.update(data_dtypes or {})
        self.num_inputs = self.num_outputs.get("data", (0, 2))[0]

    def _corpus_tags(self) -> Tuple[List[str], Dict[str, List[str]]]:
        """The corpus tags and each sub dataset's tags in the same order; read at the first use (the sub
        datasets may load their files lazily, as the reference's)."""
        if self._tags_cache is None:
            self._tags_cache = self._read_corpus_tags()
        return self._tags_cache

    def _read_corpus_tags(self) -> Tuple[List[str], Dict[str, List[str]]]:
        seq_list_file, seq_order_control_dataset = self._seq_list_file, self.seq_order_control_dataset
        if isinstance(seq_list_file, dict):
            lists = {name: _read_tag_list(fn) for name, fn in seq_list_file.items()}
            base = lists.get(seq_order_control_dataset) or next(iter(lists.values()))
            tags = list(base)
            tags_per_ds = {name: lists.get(name, base) for name in self.datasets}
        else:
            base = _read_tag_list(seq_list_file) if seq_list_file else self.datasets[
                seq_order_control_dataset].get_all_tags()
            tags = list(base)
            tags_per_ds = {name: tags for name in self.datasets}
        for name, ds_tags in tags_per_ds.items():
            if len(ds_tags) != len(tags):
                raise DatasetFileError(str(seq_list_file), f"seq list of {name!r} has {len(ds_tags)} tags, expected "
                                                           f"{len(tags)}")
        return tags, tags_per_ds

    @property
    def _tags(self) -> List[str]:
        return self._corpus_tags()[0]

    @property
    def _tags_per_ds(self) -> Dict[str, List[str]]:
        return self._corpus_tags()[1]

    def get_total_num_seqs(self) -> int:
        return len(self._tags)

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        for ds in self.datasets.values():
            ds.init_seq_order(epoch=epoch)
        if seq_list is None and seq_order is None and not self._seq_list_file:
            # as the reference: the epoch's order (ordering, partition_epoch, filters) is the one of the
            # seq_order_control_dataset; the MetaDataset's own seq_ordering / partition_epoch are not used
            control = self.datasets[self.seq_order_control_dataset]
            seq_order = control.get_current_seq_order()
        return super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._tags[corpus_idx]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        name = self.seq_order_control_dataset
        sub = self.datasets[name]
        return sub._get_corpus_seq_len(self._index[name].lookup(self._tags_per_ds[name][corpus_idx], self.name))

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        loaded: Dict[str, DatasetSeq] = {}
        features = {}
        for key, (ds_name, ds_key) in self.data_map.items():
            if ds_name not in loaded:
                tag = self._tags_per_ds[ds_name][corpus_idx]
                loaded[ds_name] = self.datasets[ds_name]._collect_corpus_seq(
                    self._index[ds_name].lookup(tag, self.name))
            features[key] = loaded[ds_name].features[ds_key]
        return DatasetSeq(corpus_idx, features, seq_tag=self._tags[corpus_idx])


@register_dataset
class ConcatDataset(Dataset):
    """The sequences of several datasets one after another (all must have the same data keys).

    :param datasets: list of dataset dicts
    :raises DatasetArgError: if the datasets' keys or dims differ
    """

    def __init__(self, datasets: Sequence[Dict[str, Any]], **kwargs):
        super().__init__(**kwargs)
        if not datasets:
            raise DatasetArgError("ConcatDataset: 'datasets' must be a non-empty list of dataset dicts")
        self.datasets = [init_dataset(spec, default_kwargs={"name": f"{self.name}_{i}"})
                         for i, spec in enumerate(datasets)]
        first = self.datasets[0]
        for ds in self.datasets[1:]:
            if ds.get_data_keys() != first.get_data_keys():
                raise DatasetArgError(f"ConcatDataset: dataset {ds.name!r} has keys {ds.get_data_keys()}, "
                                      f"the first has {first.get_data_keys()}")
            for key in first.get_data_keys():
                if ds.get_data_dim(key) != first.get_data_dim(key):
                    raise DatasetArgError(f"ConcatDataset: key {key!r} has dim {ds.get_data_dim(key)} in "
                                          f"{ds.name!r} but {first.get_data_dim(key)} in {first.name!r}")
        self.num_outputs = dict(first.num_outputs)
        self.num_inputs = first.num_inputs
        self.labels = dict(first.labels)
        self._starts: List[int] = []

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        self._starts = []
        total = 0
        for ds in self.datasets:
            ds.init_seq_order(epoch=epoch)
            self._starts.append(total)
            total += ds.num_seqs
        self._total = total
        return super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)

    def get_total_num_seqs(self) -> int:
        if not self._starts:
            return sum(ds.get_total_num_seqs() for ds in self.datasets)
        return self._total

    def _locate(self, corpus_idx: int) -> Tuple[Dataset, int]:
        i = int(np.searchsorted(self._starts, corpus_idx, side="right")) - 1
        ds = self.datasets[i]
        return ds, ds.get_corpus_seq_idx(corpus_idx - self._starts[i])

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        ds, sub_idx = self._locate(corpus_idx)
        return ds._collect_corpus_seq(sub_idx)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        ds, sub_idx = self._locate(corpus_idx)
        return ds._get_corpus_seq_len(sub_idx)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        ds, sub_idx = self._locate(corpus_idx)
        return ds._get_corpus_seq_tag(sub_idx)


@register_dataset
class CombinedDataset(Dataset):
    """Samples sequences from several datasets into one epoch (multi-task / corpus mixing).

    Each epoch holds ``sampling_sizes[name]`` sequences of each dataset (default: all of them; fewer: a random
    subset per epoch; more: cycling), dataset after dataset; the usual ``seq_ordering`` (e.g. ``"random"``)
    then mixes them. A key a dataset does not provide is an empty (length 0) array in its sequences. A sequence's
    tag is its tag in its dataset (as the reference).

    Two more ``seq_ordering`` s: ``"interleave"`` (as the reference: item ``j`` of a dataset with ``n`` sequences
    this epoch sits at ``(j + 1) / n``; all merged by that position, the earlier dataset first on ties) and
    ``"random_dataset"`` (each dataset keeps its order; which dataset comes next is drawn at random, weighted by
    the sequences it has left: our own random stream, seeded by the epoch).

    :param datasets: name -> dataset dict
    :param data_map: ``(dataset name, key in it)`` -> our key
    :param sampling_sizes: int (same for all) or name -> int
    :param data_dims: key -> ``(dim, ndim)`` overrides
    """

    def __init__(self, datasets: Dict[str, Dict[str, Any]], data_map: Dict[Tuple[str, str], str],
                 sampling_sizes: Union[None, int, Dict[str, int]] = None,
                 data_dims: Optional[Dict[str, Tuple[int, int]]] = None, data_dtypes: Optional[Dict[str, str]] = None,
                 window: int = 1, interleave_gumbel_scale: Any = None, seq_ordering: str = "default", **kwargs):
        super().__init__(window=window, **kwargs)
        if seq_ordering not in self._OWN_ORDERS:
            _seq_order.check_seq_ordering(seq_ordering)
        self.seq_ordering = seq_ordering
        self.datasets = _sub_datasets("CombinedDataset", datasets)
        self.data_map = {tuple(k): v for k, v in data_map.items()}
        self.num_outputs, self._data_dtypes, self.labels = {}, {}, {}
        self._frame_shapes: Dict[str, Tuple[List[int], str]] = {}
        for (ds_name, ds_key), key in self.data_map.items():
            if ds_name not in self.datasets:
                raise DatasetArgError(f"CombinedDataset: data_map key {(ds_name, ds_key)!r} refers to unknown "
                                      f"dataset {ds_name!r}; datasets: {sorted(self.datasets)}")
            sub = self.datasets[ds_name]
            self.num_outputs[key] = tuple(sub.num_outputs[ds_key])
            self._data_dtypes[key] = sub.get_data_dtype(ds_key)
            self._frame_shapes[key] = (sub.get_data_shape(ds_key), sub.get_data_dtype(ds_key))
            if ds_key in sub.labels:
                self.labels[key] = sub.labels[ds_key]
        self.num_outputs.update({k: tuple(v) for k, v in (data_dims or {}).items()})
        self._data_dtypes.update(data_dtypes or {})
        self.num_inputs = self.num_outputs.get("data", (0, 2))[0]
        self.sampling_sizes = sampling_sizes
        self._entries: List[Tuple[str, int]] = []

    _OWN_ORDERS = ("interleave", "random_dataset")

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        if self.seq_ordering not in self._OWN_ORDERS:
            return super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len)
        epoch = epoch or 1
        groups: Dict[str, List[int]] = {}
        for idx, (name, _) in enumerate(self._entries):
            groups.setdefault(name, []).append(idx)
        lists = [groups[name] for name in self.datasets if name in groups]
        if self.seq_ordering == "interleave":
            keyed = [((j + 1) / len(lst), g, idx) for g, lst in enumerate(lists) for j, idx in enumerate(lst)]
            order = [idx for _, _, idx in sorted(keyed)]
        else:
            rng = np.random.RandomState(self._get_epoch_seed(epoch))
            left = [len(lst) for lst in lists]
            pos = [0] * len(lists)
            order = []
            for _ in range(sum(left)):
                g = int(rng.choice(len(lists), p=np.array(left) / sum(left)))
                order.append(lists[g][pos[g]])
                pos[g] += 1
                left[g] -= 1
        return _seq_order.partition(order, self.partition_epoch, epoch)

    def _size(self, name: str, available: int) -> int:
        if self.sampling_sizes is None:
            return available
        if isinstance(self.sampling_sizes, int):
            return self.sampling_sizes
        return int(self.sampling_sizes.get(name, available))

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        epoch = epoch or 1
        rng = np.random.RandomState(self._get_epoch_seed(epoch))
        self._entries = []
        for name, ds in self.datasets.items():
            ds.init_seq_order(epoch=epoch)
            num = ds.num_seqs
            size = self._size(name, num)
            if size <= num:
                picks = sorted(rng.choice(num, size=size, replace=False).tolist()) if size < num else list(range(num))
            else:
                picks = [i % num for i in range(size)]
            self._entries.extend((name, ds.get_corpus_seq_idx(i)) for i in picks)
        return super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)

    def get_total_num_seqs(self) -> int:
        if not self._entries:
            return sum(self._size(n, ds.get_total_num_seqs()) for n, ds in self.datasets.items())
        return len(self._entries)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        name, sub_idx = self._entries[corpus_idx]
        seq = self.datasets[name]._collect_corpus_seq(sub_idx)
        features = {}
        for key in self.num_outputs:
            src = [k for (n, k), ours in self.data_map.items() if n == name and ours == key]
            if src:
                features[key] = seq.features[src[0]]
            else:
                shape, dtype = self._frame_shapes[key]
                features[key] = np.zeros([0] + list(shape), dtype=dtype)
        return DatasetSeq(corpus_idx, features, seq_tag=seq.seq_tag)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        name, sub_idx = self._entries[corpus_idx]
        return self.datasets[name]._get_corpus_seq_len(sub_idx)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        name, sub_idx = self._entries[corpus_idx]
        return self.datasets[name]._get_corpus_seq_tag(sub_idx)


# classes the reference has in this module, implemented in their own modules (imported last: they use init_dataset)
from returnn.datasets.concat_seqs import ConcatSeqsDataset as ConcatSeqsDataset  # noqa: E402
from returnn.datasets.meta_wrappers import AnythingDataset as AnythingDataset  # noqa: E402
from returnn.datasets.meta_wrappers import MultiEpochDataset as MultiEpochDataset  # noqa: E402
from returnn.datasets.meta_wrappers import VariableDataset as VariableDataset  # noqa: E402
