"""Debugging helpers with the reference's names (``returnn.util.debug``, legacy ``Debug``) that configs and
scripts call: rich tracebacks (:func:`init_better_exchook`), tracebacks of all threads on a fatal signal or
on demand (:func:`init_faulthandler`, :func:`dump_all_thread_tracebacks`), a signal handler that dumps
them (:func:`install_signal_handler_if_default`), and :func:`debug_shell`.

Output formats observed from the reference: ``format_signum(2) == "2 (SIGINT)"``; the signal handler prints
``Signal handler: got signal 12 (SIGUSR2)`` and then the thread dump, which lists each thread as
``Thread <name>, <kind>, <thread repr>:`` with its stack (or ``(Excluded thread.)``) and ends with
``That were all threads.``. Where the reference loads a native signal-handler library, this project uses
Python's :mod:`faulthandler`.
"""

from __future__ import annotations

import faulthandler
import io
import os
import signal
import sys
import threading
import warnings
from typing import Any, Callable, Collection, Dict, Optional, Set, TextIO

#: signal number → name (``SIGINT``), as the reference's
signum_to_signame: Dict[int, str] = {
    sig: sig.name for sig in signal.Signals if sig.name.startswith("SIG") and not sig.name.startswith("SIG_")}
#: thread ids :func:`dump_all_thread_tracebacks` leaves out (see :func:`auto_exclude_all_new_threads`)
global_exclude_thread_ids: Set[int] = set()


def format_signum(signum: int) -> str:
    """``"2 (SIGINT)"``."""
    return "%i (%s)" % (signum, signum_to_signame.get(signum, "unknown"))


def init_better_exchook() -> None:
    """Installs rich tracebacks (with local variables) for uncaught exceptions, in the main thread and in other
    threads (:mod:`returnn.util.better_exchook`)."""
    from returnn.util import better_exchook

    better_exchook.install()

    def excepthook(args) -> None:
        if args.exc_type is SystemExit:
            return
        print("Unhandled exception %s in thread %s, proc %i." % (args.exc_type, args.thread, os.getpid()),
              file=sys.stderr)
        better_exchook.better_exchook(args.exc_type, args.exc_value, args.exc_traceback, autodebugshell=False,
                                      file=sys.stderr)

    threading.excepthook = excepthook


def dump_all_thread_tracebacks(*, exclude_thread_ids: Optional[Collection[int]] = None, exclude_self: bool = False,
                               file: Optional[TextIO] = None) -> None:
    """Prints the stack of every thread (with local variables, via better_exchook) to ``file`` (stdout).

    :param exclude_thread_ids: threads to list as ``(Excluded thread.)`` (plus :data:`global_exclude_thread_ids`)
    :param exclude_self: also exclude the calling thread
    """
    from returnn.util.better_exchook import print_tb

    file = file if file is not None else sys.stdout
    excluded = set(exclude_thread_ids or ()) | global_exclude_thread_ids
    if exclude_self:
        excluded.add(threading.get_ident())
    threads = {t.ident: t for t in threading.enumerate()}
    print("", file=file)
    for tid, stack in sys._current_frames().items():
        tags = []
        if tid == threading.get_ident():
            tags.append("current")
        if tid == threading.main_thread().ident:
            tags.append("main")
        print("Thread %s:" % ", ".join(tags + [repr(threads.get(tid, "(unknown thread %i)" % tid))]), file=file)
        if tid in excluded:
            print("(Excluded thread.)", file=file)
        else:
            print_tb(stack, file=file)
        print("", file=file)
    print("That were all threads.", file=file)
    file.flush()


def signal_handler(signum: int, frame: Any) -> None:
    """Prints ``Signal handler: got signal <signum>`` and all thread tracebacks (the handler installed by
    :func:`install_signal_handler_if_default`)."""
    print("Signal handler: got signal %s" % format_signum(signum))
    dump_all_thread_tracebacks()


def install_signal_handler_if_default(signum: int, exceptions_are_fatal: bool = False) -> bool:
    """Installs :func:`signal_handler` for ``signum`` if it still has the default handler.

    :param exceptions_are_fatal: accepted for the reference's signature (the handler itself does not raise)
    :return: whether :func:`signal_handler` is now the handler (False if another one was installed before)
    """
    current = signal.getsignal(signum)
    if current is signal_handler:
        return True
    if current == signal.SIG_DFL:
        signal.signal(signum, signal_handler)
        return True
    return False


def init_faulthandler(sigusr1_chain: bool = False) -> None:
    """Dumps all thread tracebacks on a fatal signal (SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL) and on SIGUSR1.

    :param sigusr1_chain: also call the previous SIGUSR1 handler
    """
    out = sys.stderr
    try:
        out.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):  # stderr replaced (captured): the process's own
        out = sys.__stderr__
    faulthandler.enable(file=out, all_threads=True)
    if hasattr(faulthandler, "register") and hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=out, all_threads=True, chain=sigusr1_chain)


def install_native_signal_handler(*, reraise_exceptions: bool = False) -> None:
    """The reference loads a native library here; this project uses :func:`init_faulthandler` instead."""
    init_faulthandler()


def install_lib_sig_segfault() -> None:
    """Tracebacks on SIGSEGV: :func:`init_faulthandler` (no native library in this project)."""
    init_faulthandler()


def auto_exclude_all_new_threads(func: Callable) -> Callable:
    """Decorator: threads started while ``func`` runs are added to :data:`global_exclude_thread_ids` (left out
    of :func:`dump_all_thread_tracebacks`)."""

    def wrapped(*args, **kwargs):
        before = {t.ident for t in threading.enumerate()}
        try:
            return func(*args, **kwargs)
        finally:
            global_exclude_thread_ids.update(t.ident for t in threading.enumerate() if t.ident not in before)

    wrapped.__name__ = getattr(func, "__name__", "wrapped")
    wrapped.__doc__ = func.__doc__
    return wrapped


def debug_shell(user_ns: Optional[Dict[str, Any]] = None, user_global_ns: Optional[Dict[str, Any]] = None,
                exit_afterwards: bool = True) -> None:
    """An interactive shell in the given namespaces (the caller's frame by default); exits the process after it
    with ``exit_afterwards``."""
    from returnn.util.better_exchook import debug_shell as shell

    if user_ns is None and user_global_ns is None:
        frame = sys._getframe(1)
        user_ns, user_global_ns = frame.f_locals, frame.f_globals
    shell(user_ns=user_ns if user_ns is not None else {}, user_global_ns=user_global_ns if user_global_ns is not None
          else {})
    if exit_afterwards:
        sys.exit(1)


def setup_warn_with_traceback() -> None:
    """Prints a stack trace with every Python warning."""
    import traceback

    original = warnings.showwarning

    def warn_with_traceback(message, category, filename, lineno, file=None, line=None):
        log = file if hasattr(file, "write") else sys.stderr
        traceback.print_stack(file=log)
        original(message, category, filename, lineno, file, line)

    warnings.showwarning = warn_with_traceback
