"""``HDFDataset``: reads the reference's HDF layout (see ``SimpleHDFWriter`` for the layout), lazily.

Only the small per-sequence tables (``seqLengths``, ``seqTags``) are read at construction; frames are read on
demand, with read-ahead blocks (one h5py slice for many sequences) on sequential access, so files larger than
memory work.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.log import log
from returnn.util.numbers_dict import NumbersDict
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


def _decode(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf8").rstrip("\0")
    return str(value).rstrip("\0")


def _open_h5(filename: str):
    import h5py
    if not os.path.exists(filename):
        raise DatasetFileError(filename, "HDF file does not exist")
    try:
        return h5py.File(filename, "r")
    except OSError as exc:
        raise DatasetFileError(filename, f"cannot open as HDF5 (not an HDF5 file, or truncated): {exc}") from None


class _HDFFile:
    """One opened file: its keys, per-key lengths/offsets and h5py datasets."""

    def __init__(self, filename: str):
        self.filename = filename
        self.h5 = _open_h5(filename)
        f = self.h5
        try:
            if "seqLengths" not in f or "seqTags" not in f:
                raise DatasetFileError(filename, "not in the HDFDataset layout: missing 'seqLengths' or 'seqTags'")
            seq_lens = np.asarray(f["seqLengths"][()])
            if seq_lens.ndim == 1:
                seq_lens = seq_lens[:, None]
            self.tags = [_decode(t) for t in f["seqTags"][()]]
        except DatasetFileError:
            raise
        except Exception as exc:  # h5py raises various errors for damaged files
            raise DatasetFileError(filename, f"cannot read seqLengths/seqTags (damaged file?): {exc}") from None
        self.num_seqs = int(seq_lens.shape[0])
        #: ``[num_seqs + 1, columns]``: the running sums of ``seqLengths`` (each sequence's start per column)
        self.seq_starts = np.concatenate([np.zeros((1, seq_lens.shape[1]), dtype=seq_lens.dtype),
                                          np.cumsum(seq_lens, axis=0)], axis=0)
        if len(self.tags) != self.num_seqs:
            raise DatasetFileError(filename, f"seqTags has {len(self.tags)} entries but seqLengths has "
                                             f"{self.num_seqs} rows")
        self.streams: Dict[str, Any] = {}
        self.lens: Dict[str, np.ndarray] = {}
        self.dims: Dict[str, Tuple[int, int]] = {}
        self.labels: Dict[str, List[str]] = {}
        if "inputs" in f:
            inputs = f["inputs"]
            self.streams["data"] = inputs
            self.lens["data"] = seq_lens[:, 0].astype(np.int64)
            if inputs.ndim == 1:
                self.dims["data"] = (int(f.attrs.get("inputPattSize", 0)), 1)
            else:
                self.dims["data"] = (int(inputs.shape[-1]), inputs.ndim)
            if "labels" in f and len(f["labels"]):
                self.labels["data"] = [_decode(x) for x in f["labels"][()]]
        target_keys = set()
        if "targets" in f:
            if "data" in f["targets"]:
                target_keys.update(f["targets/data"].keys())
            if "size" in f["targets"]:
                target_keys.update(f["targets/size"].attrs.keys())
        for col, key in enumerate(sorted(target_keys), start=1):
            if "targets/data" not in f or key not in f["targets/data"]:
                continue
            stream = f["targets/data"][key]
            self.streams[key] = stream
            if col >= seq_lens.shape[1]:
                raise DatasetFileError(filename, f"seqLengths has {seq_lens.shape[1]} columns, no column for "
                                                 f"target key {key!r}")
            self.lens[key] = seq_lens[:, col].astype(np.int64)
            size = f["targets/size"].attrs.get(key) if "size" in f["targets"] else None
            if size is None:
                dim, ndim = (int(stream.shape[-1]) if stream.ndim > 1 else 0), stream.ndim
            elif np.ndim(size) == 0:
                dim, ndim = int(size), stream.ndim
            else:
                dim, ndim = int(size[0]), int(size[1])
            self.dims[key] = (dim, ndim)
            if "labels" in f["targets"] and key in f["targets/labels"]:
                self.labels[key] = [_decode(x) for x in f["targets/labels"][key][()]]
        self.offsets: Dict[str, np.ndarray] = {}
        for key, lens in self.lens.items():
            total = int(lens.sum())
            frames = int(self.streams[key].shape[0])
            if total != frames:
                raise DatasetFileError(filename, f"stream {key!r}: seqLengths sum to {total} frames but the data "
                                                 f"has {frames} (inconsistent lengths or truncated file)")
            self.offsets[key] = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)

    def read_range(self, key: str, start: int, end: int) -> List[np.ndarray]:
        """Arrays of local sequences ``[start, end)`` of ``key``, read with one slice."""
        offs = self.offsets[key]
        lo, hi = int(offs[start]), int(offs[end])
        try:
            block = self.streams[key][lo:hi]
        except Exception as exc:
            raise DatasetFileError(self.filename, f"cannot read stream {key!r} frames [{lo}, {hi}): {exc}") from None
        return [block[int(offs[i]) - lo:int(offs[i + 1]) - lo] for i in range(start, end)]


@register_dataset
class HDFDataset(Dataset):
    """Reads one or several HDF files in the reference's layout.

    Data keys: ``"data"`` (the ``inputs`` array) if present, plus every key in ``targets/data`` /
    ``targets/size``. Dense streams are ``float32 [T, dim]``, sparse ones ``int32 [T]`` (as stored).

    :param files: list of HDF file paths (a single str is accepted)
    :param use_cache_manager: accepted for compatibility; ignored
    :param cache_byte_size: accepted for compatibility (reading is always lazy; the reference's split of it is
        reported as ``cache_byte_size_limit_at_start`` (2/3) and ``cache_byte_size_total_limit`` (the rest), 0
        by default); must not be combined with ``partition_epoch > 1`` (reference rule)
    :raises DatasetFileError: a file is missing, not HDF5, truncated, or has inconsistent lengths; a later file
        lacks a key of the first, or the dims differ
    """

    def __init__(self, files: Optional[Sequence[str]] = None, use_cache_manager: bool = False,
                 cache_byte_size: Optional[int] = None, **kwargs):
        super().__init__(**kwargs)
        if cache_byte_size and self.partition_epoch > 1:
            raise DatasetArgError("HDFDataset: cache_byte_size cannot be combined with partition_epoch > 1 "
                                  "(set cache_byte_size=0)")
        # the reference's cache budget split (observed: 2/3 for the preload at the start, the rest while
        # reading); reported only, reading here is lazy with a bounded read-ahead
        cache_bytes = int(cache_byte_size or 0)
        self.cache_byte_size_limit_at_start = cache_bytes * 2 // 3
        self.cache_byte_size_total_limit = cache_bytes - self.cache_byte_size_limit_at_start
        self._files: List[_HDFFile] = []
        self._file_starts: List[int] = []
        #: the reference's public bookkeeping: the added file names, the corpus index where each file starts
        #: (``[0, n1, n1 + n2, ...]``) and per file its sequences' start frames (``seqLengths`` running sums)
        self.files: List[str] = []
        self.file_start: List[int] = [0]
        self.file_seq_start: List[np.ndarray] = []
        self._total = 0
        self._data_dtypes: Dict[str, str] = {}
        self._all_lens: Dict[str, List[int]] = {}
        self._block: Optional[Tuple[int, int, Dict[str, List[np.ndarray]]]] = None
        self._last_corpus_idx = -2
        if isinstance(files, str):
            files = [files]
        for filename in files or []:
            self.add_file(filename)

    def add_file(self, filename: str) -> None:
        """Adds a file (reference API)."""
        print(f"parsing file {filename}", file=log.v5)
        hf = _HDFFile(filename)
        if self._files:
            first = self._files[0]
            missing = [k for k in first.streams if k not in hf.streams]
            if missing:
                raise DatasetFileError(filename, f"lacks data keys {missing} present in {first.filename!r}")
            for key in list(hf.streams):
                if key not in first.streams:
                    print(f"warning: {filename}: dropping key {key!r}, not in {first.filename!r}", file=log.v2)
                    del hf.streams[key]
                    continue
                if hf.dims[key] != first.dims[key]:
                    raise DatasetFileError(filename, f"key {key!r} has dim {hf.dims[key]}, but "
                                                     f"{first.filename!r} has {first.dims[key]}")
        else:
            self.num_outputs = {k: list(v) for k, v in hf.dims.items()}
            self.num_inputs = hf.dims.get("data", (0, 0))[0]
            self.labels = dict(hf.labels)
            for key, stream in hf.streams.items():
                self._data_dtypes[key] = str(stream.dtype) if stream.dtype.kind != "O" else "string"
        self._files.append(hf)
        self._file_starts.append(self._total)
        self._total += hf.num_seqs
        self.files.append(filename)
        self.file_start.append(self._total)
        self.file_seq_start.append(hf.seq_starts)
        first = self._files[0]
        self._all_lens = {k: np.concatenate([f.lens[k] for f in self._files]).tolist() for k in first.streams}

    # -- corpus access --
    def get_total_num_seqs(self) -> int:
        return self._total

    def _locate(self, corpus_idx: int) -> Tuple[_HDFFile, int]:
        fi = bisect_right(self._file_starts, corpus_idx) - 1
        return self._files[fi], corpus_idx - self._file_starts[fi]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        hf, local = self._locate(corpus_idx)
        key = "data" if "data" in hf.lens else next(iter(hf.lens))
        return int(hf.lens[key][local])

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        hf, local = self._locate(corpus_idx)
        return hf.tags[local]

    def get_all_tags(self) -> List[str]:
        return [t for hf in self._files for t in hf.tags]

    def get_data_shape(self, key: str) -> List[int]:
        """Frame shape as stored (``[]`` for sparse; ``stream.shape[1:]`` for dense)."""
        self._check_key(key)
        if self.is_data_sparse(key) or not self._files:
            return []
        return [int(d) for d in self._files[0].streams[key].shape[1:]]

    def get_num_timesteps(self) -> int:
        """Total frames of ``"data"`` (or the first key) over all files."""
        return int(sum(int(hf.lens["data" if "data" in hf.lens else next(iter(hf.lens))].sum())
                       for hf in self._files if hf.lens))

    _READ_AHEAD_FRAMES = 1 << 16

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        """One sequence. On sequential access (``corpus_idx`` follows the previous one) the following sequences
        of the same file are read ahead with one slice (up to ~64k frames) and served from memory."""
        block = self._block
        if block is not None and block[0] <= corpus_idx < block[1]:
            i = corpus_idx - block[0]
            self._last_corpus_idx = corpus_idx
            hf, local = self._locate(corpus_idx)
            return DatasetSeq(corpus_idx, {k: v[i] for k, v in block[2].items()}, seq_tag=hf.tags[local])
        hf, local = self._locate(corpus_idx)
        sequential = corpus_idx == self._last_corpus_idx + 1
        self._last_corpus_idx = corpus_idx
        if not sequential:
            features = {k: hf.read_range(k, local, local + 1)[0] for k in hf.streams}
            return DatasetSeq(corpus_idx, features, seq_tag=hf.tags[local])
        key0 = next(iter(hf.streams))
        offs = hf.offsets[key0]
        end = int(np.searchsorted(offs, offs[local] + self._READ_AHEAD_FRAMES, side="right")) - 1
        end = min(max(end, local + 1), hf.num_seqs)
        per_key = {k: hf.read_range(k, local, end) for k in hf.streams}
        self._block = (corpus_idx, corpus_idx + (end - local), per_key)
        return DatasetSeq(corpus_idx, {k: v[0] for k, v in per_key.items()}, seq_tag=hf.tags[local])

    def load_seqs(self, start: int, end: int) -> None:
        """Loads sequences ``[start, end)``; with a cache budget (``cache_byte_size``, its
        ``cache_byte_size_total_limit`` part), the following sequences whose frames fit into it are read ahead
        too (:meth:`_preload_seqs`), as the reference's cache does. Without one (the default), nothing more."""
        super().load_seqs(start, end)
        if self.cache_byte_size_total_limit > 0 and end < self.num_seqs:
            budget, stop = self.cache_byte_size_total_limit, end
            while stop < self.num_seqs and budget > 0:
                budget -= self._seq_num_bytes(self._seq_order_list[stop])
                stop += 1
            self._preload_seqs(end, stop)

    def _seq_num_bytes(self, corpus_idx: int) -> int:
        hf, local = self._locate(corpus_idx)
        total = 0
        for key, stream in hf.streams.items():
            row = int(np.prod(stream.shape[1:], dtype=np.int64)) * stream.dtype.itemsize
            total += int(hf.lens[key][local]) * row
        return total

    def _preload_seqs(self, start: int, end: int) -> None:
        """Reads the epoch's sequences ``[start, end)`` into memory now (kept until a later :meth:`load_seqs`
        moves past them)."""
        for seq_idx in range(max(start, 0), min(end, self.num_seqs)):
            self._get_seq(seq_idx)

    def get_seq_length(self, seq_idx: int) -> NumbersDict:
        """Per-key lengths from ``seqLengths`` (no frames are read)."""
        if seq_idx < 0 or seq_idx >= len(self._seq_order_list):
            self._check_seq_idx(seq_idx)
        corpus_idx = self._seq_order_list[seq_idx]
        return NumbersDict({k: v[corpus_idx] for k, v in self._all_lens.items()})

    def get_tag(self, seq_idx: int) -> str:
        self._check_seq_idx(seq_idx)
        return self._get_corpus_seq_tag(self._seq_order_list[seq_idx])

    # -- pickle / copy.deepcopy: the h5py handles are not stored, the files are opened again when read back
    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["_files"] = [hf.filename for hf in self._files]
        state["_block"] = None
        state["_last_corpus_idx"] = -2
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        filenames = state.pop("_files")
        self.__dict__.update(state)
        self._files = [_HDFFile(filename) for filename in filenames]

    def close(self) -> None:
        """Closes the files."""
        for hf in self._files:
            hf.h5.close()
