"""``MultiProcDataset``: a dataset loaded in worker processes (e.g. to spread audio decoding and feature
extraction over CPU cores), at the reference's path ``returnn.datasets.multi_proc``.

Each of ``num_workers`` worker processes (``spawn``: a fresh interpreter, so the main process's TensorFlow
state is not inherited) builds its own copy of ``dataset`` from the dict. The main process requests up to
``buffer_size`` sequences ahead per worker. How the epoch is split (observed from the reference):

- ``sharding_method="seq_order"`` (default): every worker has the epoch's full sequence order; worker ``w``
  loads the sequences ``w, w + num_workers, ...``. The result is exactly the sub dataset's: same order, tags,
  keys and data.
- ``sharding_method="dedicated"``: worker ``w`` builds the sub dataset as shard ``w`` of ``num_workers``
  (``_num_shards``, ``_shard_index``: the epoch's order split into contiguous parts, as ``partition_epoch``
  splits it), and the sequences are taken from the workers in turn (``w0[0], w1[0], ..., w0[1], ...``; a worker
  that has no more is skipped). Same sequences as the sub dataset, in another order.

The sub dataset is also built once in the main process, on first use (:meth:`MultiProcDataset.initialize`), for
its keys, dims, labels and tags; its errors are raised there. ``num_seqs`` is 0 before the first
``init_seq_order`` (as the reference); ``get_current_seq_order`` is not available.

The dataset dict must be picklable (no lambdas). The global config (if any, and if it can be pickled) goes to
the workers first and is their global config, so that classes and functions a Python config defines (module
``__returnn_config__``) can be used in the dict.
"""

from __future__ import annotations

import multiprocessing
import pickle
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.cached2 import CachedDataset2
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset
from returnn.log import log
from returnn.options.global_config import global_config_or_none


SHARDING_METHODS = ("seq_order", "dedicated")


def _worker_loop(config: Any, dataset_bytes: bytes, conn) -> None:
    """Worker process: serves ``init`` / ``get`` requests on ``conn`` until ``exit``.

    :param config: the main process's global config (unpickled before the dataset dict, which may name its
        classes), or None
    :param dataset_bytes: the pickled dataset dict
    """
    try:
        if config is not None:
            from returnn.config import set_global_config

            if global_config_or_none() is not config:
                set_global_config(config)
        dataset = init_dataset(pickle.loads(dataset_bytes))
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


def _picklable_global_config() -> Any:
    """The global config if there is one and it can be pickled, else None."""
    config = global_config_or_none()
    if config is None:
        return None
    try:
        pickle.dumps(config)
    except Exception as exc:  # noqa: BLE001 (the workers then run without it)
        print(f"MultiProcDataset: the global config cannot be sent to the workers ({type(exc).__name__}: {exc}); "
              f"they run without it", file=log.v3)
        return None
    return config


class _Worker:
    def __init__(self, ctx, config: Any, dataset_dict: Dict[str, Any]):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_loop, args=(config, pickle.dumps(dataset_dict), child), daemon=True)
        self.proc.start()
        child.close()
        #: global seq indices requested from this worker whose replies are not read yet, in request order
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
    :param sharding_method: ``"seq_order"`` (default) or ``"dedicated"`` (see the module doc)
    :raises DatasetArgError: bad ``num_workers`` / ``buffer_size`` / ``sharding_method``, an unpicklable dict
    """

    def __init__(self, dataset: Dict[str, Any], num_workers: int, buffer_size: int,
                 sharding_method: str = "seq_order", _meta_info_cache: Optional[Dict[str, Any]] = None, **kwargs):
        self._meta: Optional[Dataset] = None
        self._meta_labels: Dict[str, List[str]] = {}
        super().__init__(**kwargs)
        if int(num_workers) < 1 or int(buffer_size) < 1:
            raise DatasetArgError(f"MultiProcDataset: num_workers and buffer_size must be >= 1, got {num_workers!r}, "
                                  f"{buffer_size!r}")
        if sharding_method not in SHARDING_METHODS:
            raise DatasetArgError(f"MultiProcDataset: sharding_method={sharding_method!r} is not one of "
                                  f"{', '.join(repr(m) for m in SHARDING_METHODS)}")
        try:
            pickle.dumps(dataset)
        except Exception as exc:
            raise DatasetArgError(f"MultiProcDataset: the dataset dict must be picklable (sent to the workers): "
                                  f"{exc}") from None
        self.dataset_dict = dataset
        self.sharding_method = sharding_method
        self.num_workers, self.buffer_size = int(num_workers), int(buffer_size)
        self._data_dtypes: Dict[str, str] = {}
        self._data_keys: List[str] = []
        self._workers: List[_Worker] = []
        self._next_request = 0
        self._received: Dict[int, Optional[Tuple[Dict[str, np.ndarray], str]]] = {}
        self._worker_num_seqs: List[Optional[int]] = []
        #: dedicated sharding: global seq idx -> (worker, its local idx), when all workers know their num_seqs
        self._order: Optional[List[Tuple[int, int]]] = None

    def _lazy_init(self) -> Dataset:
        """Builds the sub dataset once in this process, for its keys, dims, dtypes, labels and tags (on first use:
        :meth:`initialize`, :meth:`init_seq_order` or a question about the data)."""
        if self._meta is None:
            meta = init_dataset(self.dataset_dict, default_kwargs={"name": f"{self.name}_meta"})
            self._num_outputs = dict(meta.num_outputs)
            self.num_inputs = meta.num_inputs
            self._meta_labels = dict(meta.labels)
            self._data_dtypes = {k: meta.get_data_dtype(k) for k in meta.num_outputs}
            self._data_keys = meta.get_data_keys()
            self._meta = meta
        return self._meta

    def initialize(self) -> None:
        """Builds the sub dataset in this process (its errors are raised here, as by the reference)."""
        self._lazy_init()

    @property
    def num_outputs(self) -> Dict[str, Any]:
        """key -> ``(dim, ndim)`` of the sub dataset."""
        if getattr(self, "_meta", None) is None and getattr(self, "dataset_dict", None) is not None:
            self._lazy_init()
        return CachedDataset2.num_outputs.fget(self)

    @num_outputs.setter
    def num_outputs(self, value: Dict[str, Any]) -> None:
        self._num_outputs = value

    @property
    def labels(self) -> Dict[str, List[str]]:
        """key -> label names of the sub dataset."""
        if getattr(self, "_meta", None) is None and getattr(self, "dataset_dict", None) is not None:
            self._lazy_init()
        return self._meta_labels

    @labels.setter
    def labels(self, value: Dict[str, List[str]]) -> None:
        self._meta_labels = value

    def _start_workers(self) -> None:
        if self._workers:
            return
        ctx = multiprocessing.get_context("spawn")
        config = _picklable_global_config()
        dicts = [self.dataset_dict] * self.num_workers
        if self.sharding_method == "dedicated":
            dicts = [dict(self.dataset_dict, _num_shards=self.num_workers, _shard_index=w)
                     for w in range(self.num_workers)]
        self._workers = [_Worker(ctx, config, d) for d in dicts]
        for w in self._workers:
            w.reply()

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        if (seq_list is not None or seq_order is not None) and self.sharding_method == "dedicated":
            raise DatasetArgError("MultiProcDataset: a seq_list / seq_order cannot be combined with "
                                  "sharding_method='dedicated'")
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._lazy_init()
        self._start_workers()
        for w in self._workers:  # drop the replies of requests still in flight
            for _ in w.pending:
                w.reply()
            w.pending = []
        nums = [w.call("init", (self.epoch, list(seq_list) if seq_list is not None else None,
                                list(seq_order) if seq_order is not None else None)) for w in self._workers]
        self._worker_num_seqs = nums
        self._order = None
        if self.sharding_method == "seq_order":
            self._num_seqs = nums[0]
        elif all(n is not None for n in nums):
            # the workers in turn; one that has no more sequences is skipped
            self._order = [(w, r) for r in range(max(nums, default=0)) for w, n in enumerate(nums) if r < n]
            self._num_seqs = len(self._order)
        else:
            self._num_seqs = None
        self._next_request = 0
        self._received = {}
        return True

    def _locate(self, seq_idx: int) -> Optional[Tuple[int, int]]:
        """:return: (worker, index to request from it) of global ``seq_idx``, None past the end"""
        if self._num_seqs is not None and seq_idx >= self._num_seqs:
            return None
        if self._order is not None:
            return self._order[seq_idx]
        if self.sharding_method == "seq_order":
            return seq_idx % self.num_workers, seq_idx
        return seq_idx % self.num_workers, seq_idx // self.num_workers

    def _send_request(self, seq_idx: int) -> bool:
        where = self._locate(seq_idx)
        if where is None:
            return False
        w = self._workers[where[0]]
        w.conn.send(("get", where[1]))
        w.pending.append(seq_idx)
        return True

    def _request_until(self, seq_idx: int) -> None:
        limit = seq_idx + self.buffer_size * self.num_workers
        if self._num_seqs is not None:
            limit = min(limit, self._num_seqs)
        while self._next_request < max(limit, seq_idx + 1):
            if not self._send_request(self._next_request):
                break
            self._next_request += 1

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        where = self._locate(seq_idx)
        if where is None:
            return None
        if seq_idx not in self._received:
            if seq_idx >= self._next_request:
                self._request_until(seq_idx)
            w = self._workers[where[0]]
            while seq_idx not in self._received:
                if not w.pending:  # requested long ago and dropped: ask again
                    self._send_request(seq_idx)
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
        self._lazy_init()
        return list(self._data_keys)

    def get_data_dtype(self, key: str) -> str:
        self._lazy_init()
        return super().get_data_dtype(key)

    def get_total_num_seqs(self) -> int:
        return self._lazy_init().get_total_num_seqs()

    def get_all_tags(self) -> List[str]:
        return self._lazy_init().get_all_tags()

    def __del__(self):
        for w in getattr(self, "_workers", []):
            w.close()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_workers"] = []
        state["_received"] = {}
        return state
