"""The loaders of :class:`returnn.datasets.distrib_files.DistributeFilesDataset`: one per sub-epoch, each building
the sub-epoch's dataset from its dict and handing its sequences to the main process in order.

:class:`SubEpochProcLoader` does this in its own process (``spawn``, not daemonic, so the sub dataset may start
worker processes itself; it is terminated at the main process's exit at the latest). The child builds the dataset,
calls ``init_seq_order(epoch)`` and reports ``num_seqs`` (None when the dataset does not know it), then sends the
sequences in order as the main process asks for them: at most ``buffer_size`` ahead of the one last asked for, so
the next ones are read while the main process works on the current one.

Messages (main -> child): ``("more", n)`` (n more sequences wanted), ``("exit",)``.
Messages (child -> main): ``("init", num_seqs)``, ``("seq", idx, features, tag)``, ``("end", idx)`` (no sequence
``idx``), ``("error", text)``. The child exits on ``exit``, or when the main process's end of the pipe closes.

:class:`SubEpochLocalLoader` has the same interface and loads in the main process (``use_worker_proc=False``).
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError, ReturnnError
from returnn.datasets.init import init_dataset
from returnn.util.multi_proc_non_daemonic_spawn import NonDaemonicSpawnProcess

#: features by data key, and the sequence tag
SeqItem = Tuple[Dict[str, np.ndarray], str]


class DistributeFilesWorkerError(ReturnnError, RuntimeError):
    """The worker process of a sub-epoch failed or died."""


def _init_sub_dataset(dataset_dict: Dict[str, Any], epoch: int, seq_list: Optional[List[str]],
                      seq_order: Optional[List[int]]):
    dataset = init_dataset(dataset_dict)
    dataset.init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
    try:
        num_seqs = dataset.num_seqs
    except NotImplementedError:
        num_seqs = None
    return dataset, num_seqs


def _read_seq(dataset, idx: int) -> Optional[SeqItem]:
    if not dataset.is_less_than_num_seqs(idx):
        return None
    dataset.load_seqs(idx, idx + 1)
    return {key: dataset.get_data(idx, key) for key in dataset.get_data_keys()}, dataset.get_tag(idx)


def _exit_on_sigterm(_signum, _frame) -> None:
    raise SystemExit(0)


def _child_main(conn, dataset_dict: Dict[str, Any], epoch: int, seq_list: Optional[List[str]],
                seq_order: Optional[List[int]]) -> None:
    """The worker process (see the module doc)."""
    dataset = None
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        dataset, num_seqs = _init_sub_dataset(dataset_dict, epoch, seq_list, seq_order)
        conn.send(("init", num_seqs))
        next_idx, ended = 0, False
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                return
            if msg[0] == "exit":
                return
            for _ in range(msg[1] if msg[0] == "more" and not ended else 0):
                item = _read_seq(dataset, next_idx)
                if item is None:
                    conn.send(("end", next_idx))
                    ended = True
                    break
                conn.send(("seq", next_idx, item[0], item[1]))
                next_idx += 1
    except (BrokenPipeError, ConnectionResetError, SystemExit):  # the main process went away, or stopped us
        return
    except BaseException as exc:  # reported to the main process
        try:
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        except OSError:
            pass
    finally:
        if dataset is not None:
            dataset.finish_epoch(free_resources=True)


class SubEpochProcLoader:
    """One sub-epoch's dataset in a worker process (see the module doc).

    Attributes: ``dataset_dict`` (the sub dataset's dict), ``epoch`` (passed to its ``init_seq_order``),
    ``worker_proc`` (the process).

    :param dataset_dict: picklable dataset dict (its functions are sent by reference: importable in the child)
    :param epoch: epoch for the sub dataset's ``init_seq_order``
    :param name: process name (for ``ps`` and error messages)
    :param buffer_size: sequences read ahead (>= 1)
    :raises DatasetArgError: ``dataset_dict`` cannot be pickled
    """

    def __init__(self, dataset_dict: Dict[str, Any], *, epoch: int, name: str, buffer_size: int = 1,
                 seq_list: Optional[Sequence[str]] = None, seq_order: Optional[Sequence[int]] = None):
        try:
            pickle.dumps(dataset_dict)
        except Exception as exc:
            raise DatasetArgError(
                f"{name}: the sub-epoch dataset dict must be picklable to load it in a worker process "
                f"(functions defined at module level, no lambdas), or set use_worker_proc=False: {exc}") from None
        self.dataset_dict = dataset_dict
        self.epoch = epoch
        self.name = name
        self.buffer_size = max(int(buffer_size), 1)
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe()
        self.worker_proc = NonDaemonicSpawnProcess(
            target=_child_main, name=name,
            args=(child_conn, dataset_dict, epoch, list(seq_list) if seq_list is not None else None,
                  list(seq_order) if seq_order is not None else None))
        self.worker_proc.start()
        child_conn.close()
        self._num_seqs: Optional[int] = None
        self._initialized = False
        self._requested = 0  # sequences asked for so far (indices 0 .. _requested-1)
        self._next_recv = 0  # the index of the next sequence the worker sends
        self._received: Dict[int, SeqItem] = {}
        self._end: Optional[int] = None  # the first index that does not exist, once known

    def _recv(self) -> tuple:
        try:
            msg = self._conn.recv()
        except (EOFError, OSError):
            raise DistributeFilesWorkerError(
                f"{self.name}: the worker process ended unexpectedly (exit code {self.worker_proc.exitcode})"
            ) from None
        if msg[0] == "error":
            raise DistributeFilesWorkerError(f"{self.name}: the sub dataset failed in the worker process: {msg[1]}")
        return msg

    def _wait_init(self) -> None:
        if not self._initialized:
            msg = self._recv()
            assert msg[0] == "init", msg
            self._num_seqs = msg[1]
            self._initialized = True

    def get_num_seqs(self) -> Optional[int]:
        """The sub dataset's ``num_seqs`` for the epoch (None: unknown); waits until the worker has loaded it."""
        self._wait_init()
        return self._num_seqs

    def get_seq(self, idx: int) -> Optional[SeqItem]:
        """Sequence ``idx`` (features, tag), None past the end. Sequences are read in order: an index below the
        last one asked for is no longer available.

        :raises DistributeFilesWorkerError: the worker failed, or ``idx`` was already dropped
        """
        self._wait_init()
        if self._end is not None and idx >= self._end:
            return None
        if idx in self._received:
            return self._received[idx]
        if idx < self._next_recv:
            raise DistributeFilesWorkerError(f"{self.name}: sequence {idx} was read before and is dropped "
                                             f"(sequences are read in order)")
        for old in [i for i in self._received if i < idx]:
            del self._received[old]
        wanted = idx + self.buffer_size
        if self._num_seqs is not None:
            wanted = min(wanted, self._num_seqs)
        if wanted > self._requested:
            self._conn.send(("more", wanted - self._requested))
            self._requested = wanted
        while idx not in self._received:
            msg = self._recv()
            if msg[0] == "end":
                self._end = msg[1]
                return None
            self._received[msg[1]] = (msg[2], msg[3])
            self._next_recv = msg[1] + 1
        return self._received[idx]

    def request_close(self) -> None:
        """Asks the worker to exit (it frees its dataset); one that has not finished loading yet is stopped at once
        (SIGTERM, which it turns into a normal exit). Does not wait: see :meth:`close`."""
        if self.worker_proc is None:
            return
        try:
            if self._initialized or self._conn.poll():
                self._conn.send(("exit",))
            elif self.worker_proc.is_alive():
                self.worker_proc.terminate()
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        """:meth:`request_close`, then waits for the worker (killed if it has not ended after some seconds)."""
        if self.worker_proc is None:
            return
        self.request_close()
        self.worker_proc.join(timeout=5)
        if self.worker_proc.is_alive():
            self.worker_proc.kill()
            self.worker_proc.join(timeout=5)
        self._conn.close()
        self.worker_proc = None


class SubEpochLocalLoader:
    """One sub-epoch's dataset in the main process; the interface of :class:`SubEpochProcLoader`
    (``worker_proc`` is None)."""

    def __init__(self, dataset_dict: Dict[str, Any], *, epoch: int, name: str, buffer_size: int = 1,
                 seq_list: Optional[Sequence[str]] = None, seq_order: Optional[Sequence[int]] = None):
        self.dataset_dict = dataset_dict
        self.epoch = epoch
        self.name = name
        self.worker_proc = None
        self._dataset, self._num_seqs = _init_sub_dataset(
            dataset_dict, epoch, list(seq_list) if seq_list is not None else None,
            list(seq_order) if seq_order is not None else None)

    def get_num_seqs(self) -> Optional[int]:
        """The sub dataset's ``num_seqs`` (None: unknown)."""
        return self._num_seqs

    def get_seq(self, idx: int) -> Optional[SeqItem]:
        """Sequence ``idx`` (features, tag), None past the end."""
        return _read_seq(self._dataset, idx)

    def request_close(self) -> None:
        """As :meth:`close` (nothing runs in the background here)."""
        self.close()

    def close(self) -> None:
        """Frees the sub dataset's resources (its worker processes)."""
        if self._dataset is not None:
            self._dataset.finish_epoch(free_resources=True)
            self._dataset = None
