"""``FileCache``: copies of (slow, network) files on a local disk, for datasets.

``get_file(src)`` copies ``src`` to ``<cache dir><src abs path>`` (once; again when the source's size or mtime
changed, recorded in ``<copy>.returnn-info``) and returns the copy's path. While a copy is in use (between
``get_file`` and ``release_files``), a background thread touches it every half second, so that
:meth:`cleanup` (also of other processes) never removes it: cleanup removes copies not touched for
``cleanup_files_always_older_than_days`` (and, when the disk is fuller than wanted, those older than
``cleanup_files_wanted_older_than_days``), then empty folders. Copying happens under a lock file
``<copy>.returnn-lock`` (a lock older than the lock timeout counts as stale).

In configs, ``CachedFile(path)`` marks a path to go through the cache (:meth:`handle_cached_files_in_config`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Collection, Dict, List, Optional, Tuple

from returnn.util.files import get_temp_dir
from returnn.util.process import expand_env_vars

_INFO_SUFFIX = ".returnn-info"
_LOCK_SUFFIX = ".returnn-lock"
_RECENT_CLEANUP = ".recent_full_cleanup"
_DAY = 24 * 60 * 60


@dataclass
class CachedFile:
    """Marks a file name in a config as one to be read through the :class:`FileCache`."""

    filename: str


class _TouchFilesThread(threading.Thread):
    """Touches the registered files every ``interval`` seconds; ``files`` maps a file name to its use count."""

    def __init__(self, interval: float = 0.5):
        super().__init__(daemon=True, name="FileCache touch thread")
        self.interval = interval
        self.files: Dict[str, int] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    def add(self, filenames: Collection[str]) -> None:
        with self.lock:
            for fn in filenames:
                self.files[fn] = self.files.get(fn, 0) + 1

    def remove(self, filenames: Collection[str]) -> None:
        with self.lock:
            for fn in filenames:
                count = self.files.get(fn, 0) - 1
                if count <= 0:
                    self.files.pop(fn, None)
                else:
                    self.files[fn] = count

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            with self.lock:
                names = list(self.files)
            for fn in names:
                try:
                    os.utime(fn)
                except FileNotFoundError:
                    pass


class FileCache:
    """A cache of file copies in ``cache_directory`` (see the module doc).

    :param cache_directory: where the copies go; ``$VARS`` are expanded
    :param cleanup_files_always_older_than_days: copies untouched this long are always removed by cleanup
    :param cleanup_files_wanted_older_than_days: copies untouched this long are removed when the disk is fuller
        than wanted
    :param cleanup_disk_usage_wanted_free_ratio: wanted free part of the disk
    :param cleanup_disk_usage_wanted_multiplier: wanted free space as a multiple of the file about to be copied
    :param num_tries: copy attempts before the error is raised
    """

    def __init__(self, *, cache_directory: str = "$TMPDIR/$USER/returnn/file_cache",
                 cleanup_files_always_older_than_days: float = 31.0, cleanup_files_wanted_older_than_days: float = 1.0,
                 cleanup_disk_usage_wanted_free_ratio: float = 0.2, cleanup_disk_usage_wanted_multiplier: float = 2.0,
                 num_tries: int = 3):
        if "$TMPDIR" in cache_directory and not os.environ.get("TMPDIR"):
            cache_directory = cache_directory.replace("$TMPDIR/$USER", get_temp_dir())
        self.cache_directory = expand_env_vars(cache_directory).rstrip("/")
        self._cleanup_files_always_older_than_days = cleanup_files_always_older_than_days
        self._cleanup_files_wanted_older_than_days = cleanup_files_wanted_older_than_days
        self._cleanup_disk_usage_wanted_free_ratio = cleanup_disk_usage_wanted_free_ratio
        self._cleanup_disk_usage_wanted_multiplier = cleanup_disk_usage_wanted_multiplier
        self._num_tries = num_tries
        self._lock_timeout = 20.0  # seconds; also the minimum age of an empty folder that cleanup removes
        self._full_cleanup_interval = 60.0 * 60.0
        self._touch_files_thread = _TouchFilesThread()
        self._touch_files_thread.start()

    # -- names
    def _get_dst_filename(self, src_filename: str) -> str:
        return self.cache_directory + os.path.abspath(src_filename)

    @staticmethod
    def _get_info_filename(filename: str) -> str:
        return filename + _INFO_SUFFIX

    @staticmethod
    def _is_info_filename(filename: str) -> bool:
        return filename.endswith(_INFO_SUFFIX)

    @staticmethod
    def _get_lock_filename(filename: str) -> str:
        return filename + _LOCK_SUFFIX

    @staticmethod
    def _is_lock_filename(filename: str) -> bool:
        return filename.endswith(_LOCK_SUFFIX)

    # -- using files
    def get_file(self, src_filename: str) -> str:
        """The path of the local copy of ``src_filename`` (copied if missing or outdated); it is kept fresh
        until :meth:`release_files`.

        :raises FileNotFoundError: ``src_filename`` does not exist
        :raises TimeoutError: another process holds the copy's lock longer than the lock timeout twice
        """
        if not os.path.isfile(src_filename):
            raise FileNotFoundError(f"FileCache.get_file: source file {src_filename!r} does not exist")
        self._maybe_full_cleanup()
        dst = self._get_dst_filename(src_filename)
        last_exc: Optional[BaseException] = None
        for _ in range(max(1, self._num_tries)):
            try:
                with _LockFile(self._get_lock_filename(dst), timeout=self._lock_timeout):
                    self._copy_file_if_needed(src_filename, dst)
                    os.utime(dst)
                    os.utime(self._get_info_filename(dst))
                    self._touch_files_thread.add([dst, self._get_info_filename(dst)])
                return dst
            except OSError as exc:
                last_exc = exc
        raise last_exc

    def release_files(self, filenames: Collection[str]) -> None:
        """Ends one use of each copy (as returned by :meth:`get_file`); unused copies are no longer touched."""
        if isinstance(filenames, str):
            filenames = [filenames]
        for fn in filenames:
            self._touch_files_thread.remove([fn, self._get_info_filename(fn)])

    def handle_cached_files_in_config(self, config: Any) -> Tuple[Any, List[str]]:
        """``config`` (nested dicts, lists, tuples) with every :class:`CachedFile` replaced by the path of its
        copy, and the list of those paths (to release later)."""
        cached: List[str] = []

        def _map(obj: Any) -> Any:
            if isinstance(obj, CachedFile):
                fn = self.get_file(obj.filename)
                cached.append(fn)
                return fn
            if isinstance(obj, dict):
                return {k: _map(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [_map(v) for v in obj]
            if isinstance(obj, tuple):
                return tuple(_map(v) for v in obj)
            return obj

        return _map(config), cached

    def _src_info(self, src_filename: str) -> Dict[str, Any]:
        st = os.stat(src_filename)
        return {"source": os.path.abspath(src_filename), "size": st.st_size, "mtime_ns": st.st_mtime_ns}

    def _copy_file_if_needed(self, src_filename: str, dst: str) -> None:
        info = self._src_info(src_filename)
        info_fn = self._get_info_filename(dst)
        if os.path.exists(dst) and os.path.exists(info_fn):
            try:
                with open(info_fn) as f:
                    if json.load(f) == info and os.path.getsize(dst) == info["size"]:
                        return
            except (OSError, ValueError):
                pass
        folder = os.path.dirname(dst)
        os.makedirs(folder, exist_ok=True)
        self._maybe_cleanup_for_space(info["size"])
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(dst) + ".", suffix=".copying")
        os.close(fd)
        try:
            shutil.copyfile(src_filename, tmp)
            os.replace(tmp, dst)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(info_fn) + ".", suffix=".writing")
        with os.fdopen(fd, "w") as f:
            json.dump(info, f)
        os.replace(tmp, info_fn)

    # -- cleanup
    def _maybe_full_cleanup(self) -> None:
        stamp = os.path.join(self.cache_directory, _RECENT_CLEANUP)
        try:
            if time.time() - os.stat(stamp).st_mtime < self._full_cleanup_interval:
                return
        except FileNotFoundError:
            pass
        self.cleanup()

    def _maybe_cleanup_for_space(self, needed_bytes: int) -> None:
        usage = shutil.disk_usage(os.path.dirname(self.cache_directory) or "/")
        wanted_free = max(usage.total * self._cleanup_disk_usage_wanted_free_ratio,
                          needed_bytes * self._cleanup_disk_usage_wanted_multiplier)
        if usage.free < wanted_free:
            self.cleanup(older_than_days=self._cleanup_files_wanted_older_than_days)

    def cleanup(self, *, older_than_days: Optional[float] = None) -> None:
        """Removes the copies (and their info files) not touched for ``older_than_days`` (default
        ``cleanup_files_always_older_than_days``) and not in use here, stale lock and temporary files, and the
        folders that are empty and older than the lock timeout; then marks the time of this cleanup."""
        if not os.path.isdir(self.cache_directory):
            return
        days = self._cleanup_files_always_older_than_days if older_than_days is None else older_than_days
        now = time.time()
        with self._touch_files_thread.lock:
            in_use = set(self._touch_files_thread.files)
        for root, dirs, files in os.walk(self.cache_directory, topdown=False):
            for name in files:
                path = os.path.join(root, name)
                if path == os.path.join(self.cache_directory, _RECENT_CLEANUP) or path in in_use:
                    continue
                try:
                    age = now - os.stat(path).st_mtime
                except FileNotFoundError:
                    continue
                limit = self._lock_timeout if (self._is_lock_filename(name) or name.endswith(".copying")) \
                    else days * _DAY
                if age > limit:
                    _remove(path)
            for name in dirs:
                path = os.path.join(root, name)
                try:
                    if not os.listdir(path) and now - os.stat(path).st_mtime > self._lock_timeout:
                        os.rmdir(path)
                except OSError:  # gone, or filled meanwhile
                    pass
        stamp = os.path.join(self.cache_directory, _RECENT_CLEANUP)
        with open(stamp, "a"):
            pass
        os.utime(stamp)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class _LockFile:
    """An exclusive lock file (``O_EXCL``); a lock older than ``timeout`` seconds is taken over."""

    def __init__(self, filename: str, timeout: float):
        self.filename = filename
        self.timeout = timeout

    def __enter__(self) -> _LockFile:
        os.makedirs(os.path.dirname(self.filename), exist_ok=True)
        start = time.time()
        while True:
            try:
                fd = os.open(self.filename, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                return self
            except FileExistsError:
                try:
                    if time.time() - os.stat(self.filename).st_mtime > self.timeout:
                        _remove(self.filename)  # stale
                        continue
                except FileNotFoundError:
                    continue
                if time.time() - start > 2 * self.timeout:
                    raise TimeoutError(f"FileCache: lock {self.filename!r} held longer than {2 * self.timeout}s")
                time.sleep(0.05)

    def __exit__(self, *exc: Any) -> None:
        _remove(self.filename)
