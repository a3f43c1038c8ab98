"""``MultiProcDataset``: a dataset loaded in worker processes (e.g. to spread audio decoding and feature
extraction over CPU cores), at the reference's path ``returnn.datasets.multi_proc``.

Each of ``num_workers`` worker processes (``spawn``: a fresh interpreter, so the main process's TensorFlow
state is not inherited) builds its own copy of ``dataset`` from the dict and, per epoch, the same sequence
order. With ``sharding_method="seq_order"`` (the default, the only one here) worker ``w`` loads the sequences
``w, w + num_workers, ...`` of the epoch; the main process requests up to ``buffer_size`` sequences ahead per
worker. The result is exactly the sub dataset's: same order, tags, keys and data (observed from the reference).
``num_seqs`` is 0 before the first ``init_seq_order`` (as the reference); ``get_current_seq_order`` is not
available.

The dataset dict must be picklable (no lambdas; functions from the config are sent by reference to their
module and must be importable in the worker).
"""

from __future__ import annotations

import multiprocessing
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.cached2 import CachedDataset2
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset


def _worker_loop(dataset_dict: Dict[str, Any], conn) -> None:
    """Worker process: serves ``init`` / ``get`` requests on ``conn`` until ``exit``."""
    try:
        dataset = init_dataset(dataset_dict)
        conn.send(("ok", None))
    except BaseException as exc:  # reported to the main process
        conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        return
    while True:
        try:
            msg, arg = conn.recv()
        except EOFError:
            return
        try:
            if msg == "exit":
                return
            if msg == "init":
                epoch, seq_list, seq_order = arg
                dataset.init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
                try:
                    num = dataset.num_seqs
                except NotImplementedError:
                    num = None
                conn.send(("ok", num))
            elif msg == "get":
                if not dataset.is_less_than_num_seqs(arg):
                    conn.send(("ok", None))
                    continue
                dataset.load_seqs(arg, arg + 1)
                features = {key: dataset.get_data(arg, key) for key in dataset.get_data_keys()}
                conn.send(("ok", (features, dataset.get_tag(arg))))
            elif msg == "meta":
                conn.send(("ok", getattr(dataset, arg)()))
        except BaseException as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))


class _Worker:
    def __init__(self, ctx, dataset_dict: Dict[str, Any]):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_loop, args=(dataset_dict, child), daemon=True)
        self.proc.start()
        child.close()
        self.pending: List[int] = []

    def call(self, msg: str, arg: Any = None) -> Any:
        self.conn.send((msg, arg))
        return self.reply()

    def reply(self) -> Any:
        try:
            status, value = self.conn.recv()
        except EOFError:
            raise RuntimeError("MultiProcDataset: a worker process died") from None
        if status == "error":
            raise RuntimeError(f"MultiProcDataset worker failed: {value}")
        return value

    def close(self) -> None:
        try:
            self.conn.send(("exit", None))
        except (OSError, ValueError):
            pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.terminate()


@register_dataset
class MultiProcDataset(CachedDataset2):
    """Loads another dataset in worker processes (same order and data; see the module doc).

    :param dataset: the dataset dict
    :param num_workers: worker processes (>= 1)
    :param buffer_size: sequences requested ahead per worker
    :param sharding_method: ``"seq_order"`` (``"dedicated"``, the reference's per-worker corpus shards, is not
        supported here)
    :raises DatasetArgError: bad ``num_workers`` / ``buffer_size`` / ``sharding_method``, an unpicklable dict
    """

    def __init__(self, dataset: Dict[str, Any], num_workers: int, buffer_size: int,
                 sharding_method: str = "seq_order", _meta_info_cache: Optional[Dict[str, Any]] = None, **kwargs):
        super().__init__(**kwargs)
        if int(num_workers) < 1 or int(buffer_size) < 1:
            raise DatasetArgError(f"MultiProcDataset: num_workers and buffer_size must be >= 1, got {num_workers!r}, "
                                  f"{buffer_size!r}")
        if sharding_method != "seq_order":
            raise DatasetArgError(f"MultiProcDataset: sharding_method={sharding_method!r} is not supported here; use "
                                  f"'seq_order'")
        import pickle

        try:
            pickle.dumps(dataset)
        except Exception as exc:
            raise DatasetArgError(f"MultiProcDataset: the dataset dict must be picklable (sent to the workers): "
                                  f"{exc}") from None
        self.dataset_dict = dataset
        self.num_workers, self.buffer_size = int(num_workers), int(buffer_size)
        meta = init_dataset(dataset, default_kwargs={"name": f"{self.name}_meta"})  # keys and dims, in-process
        self.num_outputs = dict(meta.num_outputs)
        self.num_inputs = meta.num_inputs
        self.labels = dict(meta.labels)
        self._data_dtypes = {k: meta.get_data_dtype(k) for k in meta.num_outputs}
        self._data_keys = meta.get_data_keys()
        self._meta = meta
        self._workers: List[_Worker] = []
        self._next_request = 0
        self._received: Dict[int, Optional[Tuple[Dict[str, np.ndarray], str]]] = {}

    def _start_workers(self) -> None:
        if self._workers:
            return
        ctx = multiprocessing.get_context("spawn")
        self._workers = [_Worker(ctx, self.dataset_dict) for _ in range(self.num_workers)]
        for w in self._workers:
            w.reply()

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._start_workers()
        for w in self._workers:  # drop the replies of requests still in flight
            for _ in w.pending:
                w.reply()
            w.pending = []
        nums = [w.call("init", (self.epoch, list(seq_list) if seq_list is not None else None,
                                list(seq_order) if seq_order is not None else None)) for w in self._workers]
        self._num_seqs = nums[0]
        self._next_request = 0
        self._received = {}
        return True

    def _request_until(self, seq_idx: int) -> None:
        limit = seq_idx + self.buffer_size * self.num_workers
        if self._num_seqs is not None:
            limit = min(limit, self._num_seqs)
        while self._next_request < max(limit, seq_idx + 1):
            w = self._workers[self._next_request % self.num_workers]
            w.conn.send(("get", self._next_request))
            w.pending.append(self._next_request)
            self._next_request += 1

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if self._num_seqs is not None and seq_idx >= self._num_seqs:
            return None
        if seq_idx not in self._received:
            if seq_idx >= self._next_request:
                self._request_until(seq_idx)
            w = self._workers[seq_idx % self.num_workers]
            while seq_idx not in self._received:
                if not w.pending:  # requested long ago and dropped: ask again
                    w.conn.send(("get", seq_idx))
                    w.pending.append(seq_idx)
                idx = w.pending.pop(0)
                self._received[idx] = w.reply()
        self._request_until(seq_idx + 1)
        item = self._received.pop(seq_idx)
        for old in [i for i in self._received if i < seq_idx]:
            del self._received[old]
        if item is None:
            return None
        features, tag = item
        return DatasetSeq(seq_idx, features, seq_tag=tag)

    def get_data_keys(self) -> List[str]:
        return list(self._data_keys)

    def get_total_num_seqs(self) -> int:
        return self._meta.get_total_num_seqs()

    def get_all_tags(self) -> List[str]:
        return self._meta.get_all_tags()

    def __del__(self):
        for w in getattr(self, "_workers", []):
            w.close()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_workers"] = []
        state["_received"] = {}
        return state
