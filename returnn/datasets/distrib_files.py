"""``DistributeFilesDataset``: a corpus in many files, a subset of the files per sub-epoch, at the reference's
path ``returnn.datasets.distrib_files``.

``files`` (a list of paths, a text file listing them, or a function returning the list) are distributed over
the ``partition_epoch`` sub-epochs of a full epoch: with ``seq_ordering="random"`` the files are
shuffled per full epoch (``numpy.random.RandomState(full_epoch)``, as the reference), else kept in order; then
the list is split into ``partition_epoch`` contiguous parts of about equal size on disk (see
``distribute_files``; every sub-epoch gets at least one file), sub-epoch ``k`` gets part ``k``.
``get_sub_epoch_dataset(files)`` returns the dataset dict for a sub-epoch's files; as the reference, it must set
an explicit ``seq_ordering`` (the sequence order within the sub-epoch is that dataset's). It is called in the main
process: once at construction with the first file (for the data keys), and per sub-epoch. The sub dataset's
``init_seq_order`` gets the full epoch (as observed from the reference). ``num_seqs`` is 0 before the first
``init_seq_order`` (None while the sub dataset does not know it); ``get_total_num_seqs`` is only known without
partitioning.

Loading (``use_worker_proc=True``, the default): each sub-epoch's dataset is built and read in its own worker
process (:mod:`returnn.datasets.distrib_files_worker`), which hands the sequences to the main process in order; at
``init_seq_order(epoch)`` the workers of sub-epochs ``epoch .. epoch + preload_next_n_sub_epochs`` (default 1) are
running (the later ones load while the current one is read), the others are ended. The sub dataset dict must then be
picklable (functions importable from a module). ``finish_epoch(free_resources=True)`` and the end of the main process
end all workers. ``use_worker_proc=False`` loads in the main process.

Sharding (``distrib_shard_files=True``): with ``n`` distributed workers, the (per full epoch shuffled) file list is
split as above into ``partition_epoch * n`` parts and worker ``r`` takes parts ``r * partition_epoch ..
(r + 1) * partition_epoch - 1`` as its sub-epochs (observed from the reference). ``n`` and ``r`` come from the
global config's ``__debug_dummy_distributed_rank_and_size = (r, n)``, else from ``_distrib_info = {"_num_shards": n,
"_shard_index": r}``; without either there is one shard. (Multi-worker TensorFlow training does not set them here:
use its ``horovod_dataset_distribution`` instead.)
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.log import log
from returnn.datasets.cached2 import CachedDataset2, OptionalNotImplementedError
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.distrib_files_worker import SubEpochLocalLoader, SubEpochProcLoader
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset
from returnn.datasets.seq_order import full_epoch


def _file_size(tree: Any) -> int:
    if isinstance(tree, str):
        return os.path.getsize(tree) if os.path.exists(tree) else 1
    if isinstance(tree, dict):
        return sum(_file_size(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return sum(_file_size(v) for v in tree)
    return 1


def _has_seq_ordering(spec: Any) -> bool:
    if isinstance(spec, dict):
        if "seq_ordering" in spec or "seq_order_control_dataset" in spec or "map_seq_stream" in spec:
            return True
        return any(_has_seq_ordering(v) for v in spec.values() if isinstance(v, dict))
    return False


def distribute_files(files: Sequence[Any], num_parts: int,
                     sizes: Optional[Sequence[float]] = None) -> List[List[Any]]:
    """Splits ``files`` (in order) into ``num_parts`` contiguous, non-empty parts of about equal total size, as the
    reference splits them (``DistributeFilesDataset._distribute_evenly_by_size``; rule inferred from its outputs).

    Greedy, front to back. Each part starts with the next file and takes the following files one by one while a
    file brings the part's size at least as close to the part's target as without it (a tie, e.g. an empty file,
    takes the file) and enough files are left for one per later part; the last part takes the rest. Targets: part 0 gets
    ``total / num_parts``; part ``k >= 1`` gets ``R / (num_parts - k)``, where ``R`` is the size of the files not in
    parts ``0..k-1`` *without* part ``k``'s first file when the previous part ended at or below its own target
    (or was a single file and itself had such a target), else *with* it.
    Compared with the reference on 22,776 size lists (1-119 files, 1-30 parts, zero sizes included): equal on
    every one.

    :param files: the files (or file trees), in the order to split
    :param num_parts: number of parts (1 <= num_parts <= len(files))
    :param sizes: size per file; default: bytes on disk (a tree: the sum of its files; a missing file counts 1)
    :return: ``num_parts`` lists of files
    :raises DatasetArgError: ``num_parts`` outside ``1..len(files)``
    """
    if not 1 <= num_parts <= len(files):
        raise DatasetArgError(f"DistributeFilesDataset: cannot split {len(files)} files into {num_parts} parts")
    sizes = [_file_size(f) for f in files] if sizes is None else list(sizes)
    total = float(sum(sizes))
    parts: List[List[Any]] = []
    i, done = 0, 0.0  # next file; size of the finished parts
    target, without_first = total / num_parts, False
    prev_size, prev_len = 0.0, 0
    for k in range(num_parts - 1):
        if k > 0:
            without_first = prev_size <= target or (without_first and prev_len == 1)
            remaining = total - done - (sizes[i] if without_first else 0.0)
            target = remaining / (num_parts - k)
        part, size = [files[i]], float(sizes[i])
        i += 1
        while len(files) - i > num_parts - 1 - k:
            if abs(size + sizes[i] - target) > abs(size - target):
                break
            part.append(files[i])
            size += sizes[i]
            i += 1
        parts.append(part)
        done += size
        prev_size, prev_len = size, len(part)
    parts.append(list(files[i:]))
    return parts


@register_dataset
class DistributeFilesDataset(CachedDataset2):
    """A corpus in many files: each sub-epoch builds a dataset from its share of the files (see the module doc).

    :param files: list of files (or file trees), a text file with one path per line, or a function returning
        the list
    :param get_sub_epoch_dataset: ``(files) -> dataset dict``
    :param use_worker_proc: load each sub-epoch in a worker process (default) or in this process
    :param preload_next_n_sub_epochs: how many following sub-epochs are loaded ahead in worker processes (default 1)
    :param buffer_size: sequences a worker reads ahead (default 1)
    :param distrib_shard_files: take only this distributed worker's share of the files (see the module doc)
    :param sharding_fix: accepted (no effect here)
    :raises DatasetArgError: no files, fewer files than ``partition_epoch`` (times the shards), a sub dataset dict
        without an explicit ``seq_ordering``, a ``seq_ordering`` other than ``default`` / ``random``, a bad
        distributed rank / size
    """

    def __init__(self, *, files: Union[List[Any], str, Callable[[], List[Any]]],
                 get_sub_epoch_dataset: Callable[[List[Any]], Dict[str, Any]], use_worker_proc: bool = True,
                 preload_next_n_sub_epochs: Optional[int] = None, buffer_size: int = 1,
                 distrib_shard_files: bool = False, sharding_fix: Optional[bool] = None,
                 _meta_info_cache: Optional[Dict[str, Any]] = None, _distrib_info: Optional[Dict[str, int]] = None,
                 **kwargs):
        super().__init__(**kwargs)
        if callable(files):
            files = files()
        if isinstance(files, (str, os.PathLike)):
            try:
                with open(files, encoding="utf8") as f:
                    files = [line.strip() for line in f if line.strip()]
            except OSError as exc:
                raise DatasetFileError(str(files), f"DistributeFilesDataset option 'files': cannot read: {exc}"
                                       ) from None
        if self.seq_ordering not in ("default", "random"):
            # the reference: ValueError "seq_ordering ... not supported" at init_seq_order
            raise DatasetArgError(
                f"DistributeFilesDataset option 'seq_ordering': expected 'default' or 'random' (the order of the files "
                f"per full epoch; the sequence order within a sub-epoch is set by the sub dataset's own seq_ordering), "
                f"got {self.seq_ordering!r}")
        self.files = list(files)
        if not self.files:
            raise DatasetArgError("DistributeFilesDataset: 'files' is empty")
        self.distrib_shard_files = bool(distrib_shard_files)
        self._num_shards, self._shard_index = 1, 0
        if self.distrib_shard_files:
            self._num_shards, self._shard_index = _distributed_rank_and_size(_distrib_info)
        num_parts = self.partition_epoch * self._num_shards
        if len(self.files) < num_parts:
            raise DatasetArgError(f"DistributeFilesDataset: {len(self.files)} files for partition_epoch="
                                  f"{self.partition_epoch} and {self._num_shards} shard(s); every sub-epoch of every "
                                  f"shard needs at least one file")
        self.get_sub_epoch_dataset = get_sub_epoch_dataset
        self.use_worker_proc = bool(use_worker_proc)
        self.preload_next_n_sub_epochs = 1 if preload_next_n_sub_epochs is None else int(preload_next_n_sub_epochs)
        if self.preload_next_n_sub_epochs < 0 or int(buffer_size) < 1:
            raise DatasetArgError(f"DistributeFilesDataset: expected preload_next_n_sub_epochs >= 0 and buffer_size "
                                  f">= 1, got {preload_next_n_sub_epochs!r}, {buffer_size!r}")
        self.buffer_size = int(buffer_size)
        first = init_dataset(self._sub_dataset_dict([self.files[0]]), default_kwargs={"name": f"{self.name}_meta"})
        self.num_outputs = dict(first.num_outputs)
        self.num_inputs = first.num_inputs
        self.labels = dict(first.labels)
        self._data_keys = first.get_data_keys()
        self._data_dtypes = {k: first.get_data_dtype(k) for k in self._data_keys}
        #: full epoch index (0-based) -> this shard's files per sub-epoch
        self._files_order_cache: Dict[int, List[List[Any]]] = {}
        #: sub-epoch -> its loader (the current one and the preloaded ones)
        self._workers: Dict[int, Union[SubEpochProcLoader, SubEpochLocalLoader]] = {}
        self._cur_worker: Optional[Union[SubEpochProcLoader, SubEpochLocalLoader]] = None

    @staticmethod
    def _distribute_evenly_by_size(*, num_bins: int, file_sizes: Dict[Any, float], files_order: Sequence[Any]
                                   ) -> List[List[Any]]:
        """The reference's static helper: :func:`distribute_files` of ``files_order`` into ``num_bins`` parts with
        the sizes from ``file_sizes`` (a file may occur several times in ``files_order``)."""
        return distribute_files(list(files_order), num_bins, sizes=[file_sizes[f] for f in files_order])

    def _sub_dataset_dict(self, files: List[Any]) -> Dict[str, Any]:
        spec = self.get_sub_epoch_dataset(files)
        if not _has_seq_ordering(spec):
            raise DatasetArgError(f"{self}: there should be an explicit seq_ordering somewhere in the sub dataset (or "
                                  f"seq_order_control_dataset for MetaDataset), but found none in {spec!r}")
        return spec

    def files_for_epoch(self, epoch: int) -> List[Any]:
        """This shard's files of (sub-)epoch ``epoch``."""
        full_idx = full_epoch(epoch, self.partition_epoch) - 1
        if full_idx not in self._files_order_cache:
            files = list(self.files)
            if self.seq_ordering == "random":
                order = list(range(len(files)))
                np.random.RandomState(full_idx + 1).shuffle(order)
                files = [files[i] for i in order]
            parts = distribute_files(files, self.partition_epoch * self._num_shards)
            start = self._shard_index * self.partition_epoch
            self._files_order_cache[full_idx] = parts[start:start + self.partition_epoch]
        return self._files_order_cache[full_idx][(epoch - 1) % self.partition_epoch]

    def _start_loader(self, epoch: int, seq_list=None, seq_order=None):
        cls = SubEpochProcLoader if self.use_worker_proc else SubEpochLocalLoader
        files = self.files_for_epoch(epoch)
        print(f"{self}: using files for epoch {epoch}: {files}", file=log.v4)
        return cls(self._sub_dataset_dict(files), epoch=full_epoch(epoch, self.partition_epoch),
                   name=f"{type(self).__name__} {self.name} worker ep {epoch}", buffer_size=self.buffer_size,
                   seq_list=seq_list, seq_order=seq_order)

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        epoch = self.epoch or 1
        keep = {epoch}
        if self.use_worker_proc:
            keep.update(range(epoch + 1, epoch + 1 + self.preload_next_n_sub_epochs))
        old = [self._workers.pop(ep) for ep in list(self._workers)
               if ep not in keep or (ep == epoch and (seq_list or seq_order))]
        for worker in old:  # all end in parallel
            worker.request_close()
        for worker in old:
            worker.close()
        for ep in sorted(keep):
            if ep not in self._workers:
                self._workers[ep] = self._start_loader(
                    ep, seq_list=seq_list if ep == epoch else None, seq_order=seq_order if ep == epoch else None)
        min_full_idx = full_epoch(epoch, self.partition_epoch) - 1
        for idx in [idx for idx in self._files_order_cache if idx < min_full_idx]:
            del self._files_order_cache[idx]
        self._cur_worker = self._workers[epoch]
        self._num_seqs = self._cur_worker.get_num_seqs()
        return True

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if self._cur_worker is None:
            return None
        item = self._cur_worker.get_seq(seq_idx)
        if item is None:
            return None
        features, tag = item
        return DatasetSeq(seq_idx, dict(features), seq_tag=tag)

    def get_data_keys(self) -> List[str]:
        return list(self._data_keys)

    def _close_workers(self) -> None:
        workers = getattr(self, "_workers", None) or {}
        for worker in workers.values():  # all end in parallel
            worker.request_close()
        while workers:
            workers.popitem()[1].close()
        self._cur_worker = None

    def finish_epoch(self, *, free_resources: bool = False) -> None:
        """With ``free_resources``: ends all sub-epoch workers (the next ``init_seq_order`` starts new ones)."""
        if free_resources:
            self._close_workers()

    def get_total_num_seqs(self) -> int:
        if self.partition_epoch > 1 or self._num_shards > 1:
            raise OptionalNotImplementedError(f"{self} get_total_num_seqs not supported for partition_epoch > 1 or "
                                              f"sharded files")
        return init_dataset(self._sub_dataset_dict(list(self.files))).get_total_num_seqs()

    def __del__(self):
        try:
            self._close_workers()
        except Exception:  # interpreter shutdown
            pass

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["_workers"] = {}
        state["_cur_worker"] = None
        return state


def _distributed_rank_and_size(distrib_info: Optional[Dict[str, int]]) -> Tuple[int, int]:
    """(num shards, shard index) for ``distrib_shard_files`` (see the module doc)."""
    from returnn.options.distributed import DistributedKeys
    from returnn.options.global_config import read_global

    value = read_global(DistributedKeys, "__debug_dummy_distributed_rank_and_size")
    if value is not None:
        rank, size = int(value[0]), int(value[1])
    elif distrib_info:
        rank, size = int(distrib_info["_shard_index"]), int(distrib_info["_num_shards"])
    else:
        return 1, 0
    if not 0 <= rank < size:
        raise DatasetArgError(f"DistributeFilesDataset: distributed rank {rank} is not in 0..{size - 1}")
    return size, rank
