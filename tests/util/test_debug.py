"""Tests for returnn.util.debug and returnn.util.better_exchook (formats observed from the reference)."""

import io
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading

import better_exchook as package

from returnn.util import better_exchook, debug

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _plain(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_better_exchook_exports_the_package():
    public = {n for n in dir(package) if not n.startswith("_")}
    assert public <= set(dir(better_exchook))
    assert better_exchook.install is package.install and better_exchook.print_tb is package.print_tb
    try:
        raise ValueError("boom")
    except ValueError as exc:
        text = better_exchook.format_exception(exc)
    assert "ValueError: boom" in text and "\x1b[" not in text


def test_format_signum():
    assert debug.format_signum(signal.SIGINT) == "2 (SIGINT)" and debug.format_signum(12) == "12 (SIGUSR2)"
    assert debug.signum_to_signame[signal.SIGTERM] == "SIGTERM"


def test_dump_all_thread_tracebacks():
    event = threading.Event()
    worker = threading.Thread(target=event.wait, name="h1-worker", daemon=True)
    worker.start()
    try:
        out = io.StringIO()
        debug.dump_all_thread_tracebacks(file=out, exclude_thread_ids=[worker.ident])
        text = _plain(out.getvalue())
        out = io.StringIO()
        debug.dump_all_thread_tracebacks(file=out, exclude_self=True)
        text_self = _plain(out.getvalue())
    finally:
        event.set()
    assert text.startswith("\n") and text.endswith("\nThat were all threads.\n")
    assert f"\nThread {worker!r}:\n(Excluded thread.)\n" in text
    main = threading.main_thread()
    assert f"\nThread current, main, {main!r}:\n" in text and "in test_dump_all_thread_tracebacks" in text
    assert f"\nThread current, main, {main!r}:\n(Excluded thread.)\n" in text_self


def test_signal_handler_in_subprocess():
    script = textwrap.dedent("""
        import os, signal, sys
        from returnn.util import debug
        assert debug.install_signal_handler_if_default(signal.SIGUSR2) is True
        assert debug.install_signal_handler_if_default(signal.SIGUSR2) is True  # ours already
        signal.signal(signal.SIGUSR1, lambda *a: None)
        assert debug.install_signal_handler_if_default(signal.SIGUSR1) is False  # someone else's
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGUSR2)
        print("after signal")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert out.returncode == 0, out.stderr
    text = _plain(out.stdout)
    assert text.startswith("Signal handler: got signal 12 (SIGUSR2)\n\nThread current, main, ")
    assert "That were all threads.\nafter signal\n" in text


def test_init_faulthandler_and_better_exchook(tmp_path):
    script = textwrap.dedent("""
        import faulthandler, sys, threading
        from returnn.util import debug
        debug.init_faulthandler()
        debug.init_better_exchook()
        assert faulthandler.is_enabled()
        def fail():
            local_value = 42
            raise RuntimeError("in thread %i" % local_value)
        t = threading.Thread(target=fail, name="h1-thread")
        t.start(); t.join()
        raise KeyError("in main")
    """)
    path = tmp_path / "script.py"  # a file, so that the tracebacks can show the source lines and locals
    path.write_text(script)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT,
                         env=dict(os.environ, PYTHONPATH=REPO_ROOT))
    err = _plain(out.stderr)
    assert out.returncode == 1
    assert "Unhandled exception <class 'RuntimeError'> in thread <Thread(h1-thread" in err
    assert "RuntimeError: in thread 42" in err and "local_value = <local> 42" in err
    assert "KeyError: 'in main'" in err


def test_auto_exclude_all_new_threads():
    event = threading.Event()

    @debug.auto_exclude_all_new_threads
    def start():
        t = threading.Thread(target=event.wait, daemon=True)
        t.start()
        return t

    thread = start()
    try:
        assert thread.ident in debug.global_exclude_thread_ids
    finally:
        event.set()
        debug.global_exclude_thread_ids.discard(thread.ident)
