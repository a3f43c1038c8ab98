"""The ``feature_cache`` of :class:`~returnn.datasets.audio.OggZipDataset` (not in the reference): the extracted audio
features of a sequence are kept across epochs, so that the audio is decoded and its features computed once.

``feature_cache`` values:

- ``None`` (default): no cache, the features are computed every time a sequence is loaded (as the reference);
- ``"memory"``: a dict in the dataset's process (lost when it ends; each ``MultiProcDataset`` worker has its own,
  filled with the sequences that worker loads);
- a directory path: one ``.npy`` file per sequence under ``<dir>/<options key>/``, shared between processes
  (``MultiProcDataset`` workers, later runs). Files are written to a temporary name and renamed into place, so
  concurrent writers and an interrupted run leave no partial file behind; an unreadable file counts as a miss
  and is written again.

What makes an entry valid: the *options key* is a SHA-1 digest of everything that determines the features
(:func:`feature_options_key`: feature type, window/step length, filters, deltas, frame joining, the normalization
*values* (also when given as files), pre-emphasis, peak normalization, sample rate, channels, the
``feature_options``, the code, default arguments and captured closure values of ``pre_process`` / ``post_process`` /
a feature function, and a format version; module globals such a function reads are not part of it),
and the *sequence key* names the audio file and its content identity (the zip member's CRC-32 and size, or a
plain file's size and modification time). Changing any ``audio`` option therefore looks up a different set of
entries (the old ones stay on disk until the directory is removed); a rewritten zip or audio file does too.

Not allowed with ``random_permute`` (augmentation differs per epoch; a cache would repeat the first draw):
:class:`~returnn.errors.DatasetArgError`. A ``pre_process`` that draws from its ``random_state`` must not be
combined with the cache either (its first result would be kept).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Dict, Optional, Union

import numpy as np

from returnn.errors import DatasetArgError

#: bumped when the stored format or the meaning of the options key changes
CACHE_FORMAT_VERSION = 1


def _code_digest(code) -> str:
    """SHA-1 of a code object's bytecode, names and constants (nested code objects by their own digest, so that no
    memory address enters the key)."""
    digest = hashlib.sha1(code.co_code)
    digest.update(repr(code.co_names).encode("utf8"))
    for const in code.co_consts:
        text = _code_digest(const) if hasattr(const, "co_code") else repr(const)
        digest.update(text.encode("utf8", "backslashreplace"))
    return digest.hexdigest()


def _describe_callable(func: Any) -> Dict[str, Any]:
    """A stable description of a callable option: its name, a digest of its code, its default arguments and the
    values its closure captured (module globals it reads are not covered)."""
    code = getattr(func, "__code__", None)
    desc: Dict[str, Any] = {
        "name": "%s.%s" % (getattr(func, "__module__", "?"), getattr(func, "__qualname__", type(func).__name__))}
    if code is not None:
        desc["code"] = _code_digest(code)
        desc["defaults"] = _describe_value(list(getattr(func, "__defaults__", None) or ()))
        cells = getattr(func, "__closure__", None) or ()
        desc["closure"] = [_describe_value(_cell_value(c)) for c in cells]
    return desc


def _cell_value(cell) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _describe_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value, dtype=np.float64)
        return {"array": list(arr.shape), "sha1": hashlib.sha1(arr.tobytes()).hexdigest()}
    if isinstance(value, (list, tuple)):
        return [_describe_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _describe_value(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if callable(value):
        return _describe_callable(value)
    return "%s:%s" % (type(value).__name__, repr(value))


def feature_options_description(extractor) -> Dict[str, Any]:
    """Everything of an :class:`~returnn.datasets.util.feature_extraction.ExtractAudioFeatures` that determines
    its output, as a JSON-serializable dict (normalization files as the digest of their loaded values)."""
    fields = ("features", "window_len", "step_len", "num_feature_filters", "with_delta", "norm_mean", "norm_std_dev",
              "feature_options", "random_permute_opts", "raw_ogg_opts", "pre_process", "post_process", "sample_rate",
              "num_channels", "peak_normalization", "preemphasis", "join_frames")
    desc = {name: _describe_value(getattr(extractor, name)) for name in fields}
    desc["format_version"] = CACHE_FORMAT_VERSION
    return desc


def feature_options_key(extractor) -> str:
    """SHA-1 hex digest of :func:`feature_options_description` (the cache's options key)."""
    text = json.dumps(feature_options_description(extractor), sort_keys=True)
    return hashlib.sha1(text.encode("utf8")).hexdigest()


class FeatureCache:
    """Interface: ``get(seq_key) -> array or None``, ``put(seq_key, array)``; counters ``hits`` / ``misses``."""

    def __init__(self):
        self.hits = 0
        self.misses = 0

    def get(self, seq_key: str) -> Optional[np.ndarray]:
        raise NotImplementedError

    def put(self, seq_key: str, features: np.ndarray) -> None:
        raise NotImplementedError

    def _count(self, found: Optional[np.ndarray]) -> Optional[np.ndarray]:
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found


class MemoryFeatureCache(FeatureCache):
    """Features in a dict of this process (see the module doc)."""

    def __init__(self, options_key: str):
        super().__init__()
        self.options_key = options_key
        self._store: Dict[str, np.ndarray] = {}

    def get(self, seq_key: str) -> Optional[np.ndarray]:
        found = self._store.get(seq_key)
        # a copy (microseconds): a consumer that changes its array in place must not change the cached one
        return self._count(None if found is None else found.copy())

    def put(self, seq_key: str, features: np.ndarray) -> None:
        self._store[seq_key] = np.array(features, copy=True)

    def __len__(self) -> int:
        return len(self._store)

    def __getstate__(self):  # a pickled dataset (MultiProcDataset worker) starts empty
        state = dict(self.__dict__)
        state["_store"] = {}
        return state


class DiskFeatureCache(FeatureCache):
    """Features as ``<directory>/<options key>/<sequence key digest>.npy`` (see the module doc).

    :param directory: created when missing
    :param options_key: :func:`feature_options_key` of the extractor
    :param description: written once as ``<directory>/<options key>/options.json`` (for people looking at it)
    """

    def __init__(self, directory: str, options_key: str, description: Optional[Dict[str, Any]] = None):
        super().__init__()
        self.options_key = options_key
        self.directory = os.path.join(directory, options_key)
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            raise DatasetArgError(f"OggZipDataset feature_cache={directory!r}: cannot create the cache directory: "
                                  f"{exc}") from None
        info = os.path.join(self.directory, "options.json")
        if description is not None and not os.path.exists(info):
            _write_atomic(info, lambda f: f.write(json.dumps(description, sort_keys=True, indent=1).encode("utf8")))

    def path(self, seq_key: str) -> str:
        """The file of one sequence key."""
        return os.path.join(self.directory, hashlib.sha1(seq_key.encode("utf8")).hexdigest() + ".npy")

    def get(self, seq_key: str) -> Optional[np.ndarray]:
        fn = self.path(seq_key)
        try:
            return self._count(np.load(fn, allow_pickle=False))
        except FileNotFoundError:
            return self._count(None)
        except (OSError, ValueError, EOFError):  # a damaged file: computed again and overwritten
            return self._count(None)

    def put(self, seq_key: str, features: np.ndarray) -> None:
        arr = np.asarray(features)
        if arr.dtype == object:  # not storable without pickle: just not cached
            return
        _write_atomic(self.path(seq_key), lambda f: np.save(f, arr, allow_pickle=False))


def _write_atomic(path: str, write) -> None:
    tmp = "%s.tmp.%i" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except OSError:  # a full or read-only disk: the cache is an optimization, the data is still returned
        try:
            os.remove(tmp)
        except OSError:
            pass


def make_feature_cache(feature_cache: Union[None, str], extractor, where: str) -> Optional[FeatureCache]:
    """The cache for a dataset's ``feature_cache`` option (see the module doc).

    :param feature_cache: None, ``"memory"`` or a directory path
    :param extractor: the dataset's feature extractor (None: the dataset has no audio features)
    :param where: the dataset, for error messages
    :raises DatasetArgError: a value of another type, no ``audio`` features, ``random_permute`` set
    """
    if feature_cache is None:
        return None
    if not isinstance(feature_cache, str) or not feature_cache:
        raise DatasetArgError(f"{where}: 'feature_cache' must be None, \"memory\" or a directory path, got "
                              f"{type(feature_cache).__name__}: {feature_cache!r}")
    if extractor is None:
        raise DatasetArgError(f"{where}: 'feature_cache'={feature_cache!r} needs audio features, but 'audio' is None")
    if getattr(extractor, "random_permute_opts", None) is not None:
        raise DatasetArgError(f"{where}: 'feature_cache' cannot be used with the audio option 'random_permute' (the "
                              f"augmentation differs per epoch; a cache would repeat the first one)")
    key = feature_options_key(extractor)
    if feature_cache == "memory":
        return MemoryFeatureCache(key)
    return DiskFeatureCache(feature_cache, key, feature_options_description(extractor))
