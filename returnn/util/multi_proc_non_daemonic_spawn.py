"""``NonDaemonicSpawnProcess``: a ``multiprocessing`` process started with the *spawn* method that is not
daemonic (so it may start processes itself, e.g. data loader workers), with an optional ``pre_init_func`` that
runs in the child before ``target``, and which is terminated when the parent process exits.

The process object (its state, and ``pre_init_func`` separately) goes to the child through a temporary file;
the spawn pipe carries only the file name. So the parent never blocks on the pipe while the child is still
starting up (importing the main module can take long) or after the child gave up; the child deletes the file
once read (the parent deletes it on ``join`` if the child never did). A ``pre_init_func`` that cannot be
unpickled in the child makes the child exit with a non-zero code.
"""

from __future__ import annotations

import atexit
import os
import pickle
import tempfile
import weakref
from multiprocessing import reduction
from multiprocessing.context import SpawnProcess
from typing import Callable, Optional


class PreInitFuncError(RuntimeError):
    """The child process could not unpickle its ``pre_init_func``."""


def _rebuild_process(cls: type, payload_filename: str) -> NonDaemonicSpawnProcess:
    with open(payload_filename, "rb") as f:
        state_bytes, pre_init_bytes = pickle.load(f)
    os.remove(payload_filename)
    proc = cls.__new__(cls)
    proc.__dict__.update(pickle.loads(state_bytes))
    proc.pre_init_func = None
    proc.pre_init_error = None
    proc.payload_filename = None
    if pre_init_bytes is not None:
        try:
            proc.pre_init_func = pickle.loads(pre_init_bytes)
        except BaseException as exc:  # reported from run(), the child then exits with an error code
            proc.pre_init_error = f"{type(exc).__name__}: {exc}"
    return proc


class NonDaemonicSpawnProcess(SpawnProcess):
    """A spawn-method process, never daemonic.

    Attributes: ``pre_init_func`` (``() -> None`` or None), called in the child before ``target``.
    Arguments as ``multiprocessing.Process``.

    :raises ValueError: ``daemon=True``
    """

    def __init__(self, group=None, target=None, name=None, args=(), kwargs=None, *, daemon=None):
        if daemon:
            raise ValueError("NonDaemonicSpawnProcess: daemon=True is not possible (the process is never daemonic)")
        super().__init__(group=group, target=target, name=name, args=args, kwargs=kwargs or {}, daemon=False)
        self.pre_init_func: Optional[Callable[[], None]] = None
        self.pre_init_error: Optional[str] = None
        self.payload_filename: Optional[str] = None

    def __reduce__(self):
        skip = ("pre_init_func", "pre_init_error", "payload_filename")
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        state_bytes = bytes(reduction.ForkingPickler.dumps(state))
        pre_init_bytes = None
        if self.pre_init_func is not None:
            pre_init_bytes = bytes(reduction.ForkingPickler.dumps(self.pre_init_func))
        fd, filename = tempfile.mkstemp(prefix="returnn-spawn-", suffix=".pkl")
        with os.fdopen(fd, "wb") as f:
            pickle.dump((state_bytes, pre_init_bytes), f, protocol=pickle.HIGHEST_PROTOCOL)
        self.payload_filename = filename
        return _rebuild_process, (type(self), filename)

    def start(self) -> None:
        """Starts the child; it is terminated at the parent's exit if still running."""
        try:
            super().start()
        except BaseException:
            self._remove_payload()
            raise
        atexit.register(_terminate_at_exit, weakref.ref(self))

    def join(self, timeout: Optional[float] = None) -> None:
        """Waits for the child (as ``multiprocessing.Process.join``)."""
        super().join(timeout)
        if self.exitcode is not None:
            self._remove_payload()

    def _remove_payload(self) -> None:
        if self.payload_filename and os.path.exists(self.payload_filename):
            os.remove(self.payload_filename)
        self.payload_filename = None

    def run(self) -> None:
        """In the child: ``pre_init_func()``, then ``target(*args, **kwargs)``.

        :raises PreInitFuncError: ``pre_init_func`` could not be unpickled
        """
        if self.pre_init_error is not None:
            raise PreInitFuncError(f"{self.name}: could not unpickle pre_init_func: {self.pre_init_error}")
        if self.pre_init_func is not None:
            self.pre_init_func()
        super().run()


def _terminate_at_exit(ref: weakref.ref) -> None:
    proc = ref()
    if proc is None:
        return
    try:
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=5)
        proc._remove_payload()
    except (ValueError, AssertionError, OSError):  # closed, or not our child
        pass
