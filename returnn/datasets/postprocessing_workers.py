"""Worker processes of a :class:`returnn.datasets.postprocessing.PostprocessingDataset` with ``num_workers > 0``.

The main process loads the sub dataset's sequences in order and hands sequence ``i`` to worker ``i % num_workers``
(when that worker asks for its next input); each worker runs ``map_seq`` / ``map_seq_stream`` on its share and
returns the results; the main process takes the results round-robin from the workers (a worker that has finished
is skipped), so the order is deterministic. Each worker computes at most ``buf_size`` results ahead.

Messages (main -> worker): ``("start", gen, epoch, seed)``, ``("next", gen)`` (one more result wanted),
``("seq", gen, raw)`` / ``("noinput", gen)`` (reply to ``need``), ``("exit",)``.
Messages (worker -> main): ``("need", gen)``, ``("out", gen, raw)``, ``("end", gen)``, ``("error", gen, text)``.
``gen`` numbers the epochs: messages of an earlier epoch are ignored, so an epoch may end before all results were
taken. Workers are daemonic ``spawn`` processes (a fresh interpreter; the functions must be importable there).
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional

import numpy as np

from returnn.errors import ReturnnError
from returnn.datasets.postprocessing_seq import SeqTemplate, process_stream


class PostprocessingWorkerError(ReturnnError, RuntimeError):
    """A worker process of a PostprocessingDataset failed or died."""


class _Interrupt(BaseException):  # not caught by a user function's "except Exception"
    def __init__(self, msg: tuple):
        super().__init__(msg[0])
        self.msg = msg


def _worker_main(conn: Any, map_seq: Optional[Callable], map_seq_stream: Optional[Callable],
                 in_template: SeqTemplate, out_template: SeqTemplate) -> None:
    """Worker process loop (see the module doc)."""
    state = {"gen": None, "credits": 0}

    def handle_async(msg: tuple) -> None:
        if msg[0] == "next" and msg[1] == state["gen"]:
            state["credits"] += 1
        elif msg[0] in ("start", "exit"):
            raise _Interrupt(msg)

    def inputs(gen: int) -> Iterator[Dict[str, Any]]:
        while True:
            conn.send(("need", gen))
            while True:
                msg = conn.recv()
                if msg[0] == "seq" and msg[1] == gen:
                    yield msg[2]
                    break
                if msg[0] == "noinput" and msg[1] == gen:
                    return
                handle_async(msg)

    outputs: Optional[Iterator[Dict[str, Any]]] = None
    pending: Optional[tuple] = None
    while True:
        try:
            if pending is None and (state["credits"] <= 0 or outputs is None):
                msg = conn.recv()
            else:
                msg, pending = pending, None
            if msg is not None:
                if msg[0] == "exit":
                    return
                if msg[0] == "start":
                    _, gen, epoch, seed = msg
                    state["gen"], state["credits"] = gen, 0
                    outputs = process_stream(inputs(gen), in_template=in_template, out_template=out_template,
                                             map_seq=map_seq, map_seq_stream=map_seq_stream, epoch=epoch,
                                             rng=np.random.RandomState(seed))
                    continue
                handle_async(msg)
            while state["credits"] > 0 and outputs is not None:
                state["credits"] -= 1
                try:
                    item = next(outputs)
                except StopIteration:
                    outputs = None
                    conn.send(("end", state["gen"]))
                    break
                conn.send(("out", state["gen"], item))
        except _Interrupt as exc:
            outputs, pending = None, exc.msg
        except (EOFError, OSError):
            return
        except BaseException as exc:  # reported to the main process
            outputs = None
            try:
                conn.send(("error", state["gen"], f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
            except (OSError, ValueError):
                return


class WorkerPool:
    """The worker processes and the main side of the protocol (see the module doc).

    :param num_workers: >= 1
    :param buf_size: results computed ahead per worker (>= 1)
    """

    def __init__(self, *, num_workers: int, buf_size: int, map_seq: Optional[Callable],
                 map_seq_stream: Optional[Callable], in_template: SeqTemplate, out_template: SeqTemplate):
        ctx = multiprocessing.get_context("spawn")
        self.buf_size = buf_size
        self.conns: List[Any] = []
        self.procs: List[Any] = []
        for _ in range(num_workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, map_seq, map_seq_stream, in_template, out_template),
                               daemon=True)
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)
        self.gen = 0
        self._inputs: Iterator[Dict[str, Any]] = iter(())
        self._in_queues: List[Deque[Dict[str, Any]]] = []
        self._out_queues: List[Deque[Dict[str, Any]]] = []
        self._finished: List[bool] = []
        self._next_in = 0
        self._in_done = True

    def start_epoch(self, epoch: int, seed: int, raw_inputs: Iterator[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
        """Starts an epoch over ``raw_inputs``; returns the iterator over the results (round-robin)."""
        n = len(self.conns)
        self.gen += 1
        self._inputs, self._next_in, self._in_done = raw_inputs, 0, False
        self._in_queues = [deque() for _ in range(n)]
        self._out_queues = [deque() for _ in range(n)]
        self._finished = [False] * n
        for w, conn in enumerate(self.conns):
            conn.send(("start", self.gen, epoch, seed + w))
            for _ in range(self.buf_size):
                conn.send(("next", self.gen))
        return self._iterate(self.gen)

    def _iterate(self, gen: int) -> Iterator[Dict[str, Any]]:
        active = list(range(len(self.conns)))
        while active and gen == self.gen:
            for w in list(active):
                item = self._get(w)
                if item is None:
                    active.remove(w)
                else:
                    yield item

    def _get(self, w: int) -> Optional[Dict[str, Any]]:
        while not self._out_queues[w] and not self._finished[w]:
            for conn in wait(self.conns):
                self._handle(self.conns.index(conn))
        if not self._out_queues[w]:
            return None
        item = self._out_queues[w].popleft()
        self.conns[w].send(("next", self.gen))
        return item

    def _handle(self, w: int) -> None:
        try:
            msg = self.conns[w].recv()
        except (EOFError, OSError):
            raise PostprocessingWorkerError(f"PostprocessingDataset: worker process {w} died "
                                            f"(exit code {self.procs[w].exitcode})") from None
        if msg[1] != self.gen:
            return
        if msg[0] == "out":
            self._out_queues[w].append(msg[2])
        elif msg[0] == "end":
            self._finished[w] = True
        elif msg[0] == "need":
            item = self._next_input_for(w)
            self.conns[w].send(("seq", self.gen, item) if item is not None else ("noinput", self.gen))
        elif msg[0] == "error":
            raise PostprocessingWorkerError(f"PostprocessingDataset: worker process {w} failed: {msg[2]}")

    def _next_input_for(self, w: int) -> Optional[Dict[str, Any]]:
        n = len(self.conns)
        while not self._in_queues[w] and not self._in_done:
            try:
                raw = next(self._inputs)
            except StopIteration:
                self._in_done = True
                break
            self._in_queues[self._next_in % n].append(raw)
            self._next_in += 1
        return self._in_queues[w].popleft() if self._in_queues[w] else None

    def close(self) -> None:
        """Stops the workers (idempotent)."""
        for conn in self.conns:
            try:
                conn.send(("exit",))
            except (OSError, ValueError):
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for conn in self.conns:
            conn.close()
        self.conns, self.procs = [], []
        self.gen += 1
