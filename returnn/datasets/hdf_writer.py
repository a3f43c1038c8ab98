"""``SimpleHDFWriter``: writes the reference's HDF layout (read by ``HDFDataset``).

Layout (all sequences concatenated along the first axis):

- root attrs ``inputPattSize`` (dim), ``numLabels`` (dim), ``numDims`` (1), ``numSeqs``, ``numTimesteps``
  (all int64);
- ``inputs``: ``[total_frames, dim]`` (dense) or ``[total_frames]`` (sparse ids);
- ``labels``: fixed-width bytes, the vocabulary of sparse ``inputs`` (empty if none);
- ``seqLengths``: ``int32 [num_seqs, 1 + num_extra_keys]`` (column 0: ``inputs``, then extra keys in sorted
  order; at least 2 columns, the legacy dummy column being 0);
- ``seqTags``: variable-length UTF-8 strings;
- ``targets/data/<key>``: concatenated extra streams; ``targets/size`` attrs ``<key> = [dim, ndim]``;
  ``targets/labels/<key>``: fixed-width bytes (``"dummy-label"`` when none given).

Inputs with more than one variable axis per sequence (as observed from the reference's writer): sparse (integer)
``[B, T, K, ...]``, dense without a static feature dim (``dim=None``) ``[B, T, F]``, dense ``[B, T, S, dim]``
are stored with those axes flattened into one (``[T * K]``, ``[T * F]``, ``[T * S, dim]``), and an extra
stream ``sizes`` (int32, ``[1, 1]``) holds each sequence's lengths of the flattened axes (``seq_len``'s dict
entries ``{0: ..., 1: ...}``; an axis without an entry counts in full).

The file is written under a temporary name in the same directory and renamed on :meth:`close`, so a crash
never leaves a complete-looking file.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError


class SimpleHDFWriter:
    """Incremental writer of the HDFDataset layout.

    :param filename: final path
    :param dim: feature dim (dense) or vocabulary size (sparse) of ``inputs``
    :param labels: vocabulary of sparse ``inputs`` (stored as ``labels``)
    :param ndim: axes of one sequence's ``inputs`` incl. time: 1 = sparse ``[T]``, 2 = dense ``[T, dim]``;
        default 1 if ``labels`` else 2
    :param extra_type: key -> ``(dim, ndim, dtype)`` of extra streams; default inferred from the first batch
        (dense float ``[B, T, d]`` -> ``(d, 2)``; ``[B, T]`` -> ``(1, 1)``, as the reference)
    :param extra_labels: key -> vocabulary of an extra stream
    :param swmr: accepted for compatibility; ignored
    :param extend_existing_file: append to the sequences of ``filename`` (a file in this layout, e.g. one this
        writer closed before; the new batches must have its keys and shapes)
    :param with_inputs: False: no ``inputs`` stream (a dataset without ``"data"``); ``insert_batch``'s
        ``inputs`` then only give the lengths of ``seqLengths``' first column (ours; the reference's writer
        always has one)
    :raises DatasetFileError: ``filename`` already exists (without ``extend_existing_file``), or it does not
        exist or cannot be read (with it)
    """

    def __init__(self, filename: str, dim: Optional[int], labels: Optional[Sequence[str]] = None,
                 ndim: Optional[int] = None, extra_type: Optional[Dict[str, Tuple[int, int, str]]] = None,
                 swmr: bool = False, extend_existing_file: bool = False,
                 extra_labels: Optional[Dict[str, Sequence[str]]] = None, *, with_inputs: bool = True):
        import h5py
        if extend_existing_file and not os.path.exists(filename):
            raise DatasetFileError(filename, "extend_existing_file=True, but the file does not exist")
        if not extend_existing_file and os.path.exists(filename):
            raise DatasetFileError(filename, "output file exists already; remove it or choose another name")
        self.filename = filename
        self.dim = dim
        self.labels = list(labels) if labels is not None else None
        #: axes of one sequence's inputs incl. time; None: from the first batch
        self.ndim = ndim
        self.extra_type: Dict[str, Tuple[int, int, str]] = dict(extra_type or {})
        self.extra_labels = {k: list(v) for k, v in (extra_labels or {}).items()}
        self.with_inputs = with_inputs
        directory = os.path.dirname(os.path.abspath(filename))
        self._tmp_filename = os.path.join(directory, f".{os.path.basename(filename)}.tmp{os.getpid()}")
        self._seq_lens: List[List[int]] = []
        self._tags: List[str] = []
        self._extra_keys: Optional[List[str]] = None
        self._num_frames = 0
        if extend_existing_file:
            import shutil

            shutil.copyfile(filename, self._tmp_filename)
            self._file = h5py.File(self._tmp_filename, "a")
            self._read_existing()
        else:
            self._file = h5py.File(self._tmp_filename, "w")
            f = self._file
            f.attrs["numDims"] = np.int64(1)
            f.attrs["inputPattSize"] = np.int64(dim if dim is not None else 1)
            f.attrs["numLabels"] = np.int64(dim if dim is not None else 1)
            label_bytes = [x.encode("utf8") for x in (self.labels or [])]
            width = max([len(x) for x in label_bytes] + [5])
            f.create_dataset("labels", data=np.array(label_bytes, dtype=f"S{width}") if label_bytes
                             else np.zeros((0,), dtype="S5"))
        self._closed = False

    def _read_existing(self) -> None:
        """Takes over the sequences of the copied file (extend_existing_file): its lengths, tags, extra keys."""
        f = self._file
        try:
            seq_lens = np.asarray(f["seqLengths"][()]).reshape(len(f["seqTags"]), -1)
            self._tags = [t.decode("utf8") if isinstance(t, bytes) else str(t) for t in f["seqTags"][()]]
        except Exception as exc:  # h5py raises various errors for damaged / foreign files
            self._file.close()
            os.remove(self._tmp_filename)
            raise DatasetFileError(self.filename, f"extend_existing_file=True: cannot read seqLengths/seqTags: {exc}"
                                   ) from None
        self._seq_lens = seq_lens.tolist()
        self._num_frames = int(f.attrs.get("numTimesteps", int(seq_lens[:, 0].sum()) if len(seq_lens) else 0))
        keys = sorted(f["targets/data"].keys()) if "targets/data" in f else []
        self._extra_keys = keys
        for key in keys:
            size = f["targets/size"].attrs[key]
            self.extra_type.setdefault(key, (int(size[0]), int(size[1]), str(f["targets/data"][key].dtype)))
        del f["seqLengths"], f["seqTags"]

    def _append(self, name: str, values: np.ndarray) -> None:
        f = self._file
        if name not in f:
            import h5py

            # strings (object arrays) as variable-length UTF-8, as the reference writes its seq_tags streams
            dtype = h5py.string_dtype("utf-8") if values.dtype == object else None
            f.create_dataset(name, data=values, maxshape=(None,) + values.shape[1:], chunks=True, dtype=dtype)
            return
        ds = f[name]
        if ds.shape[1:] != values.shape[1:]:
            raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: stream {name!r} frame shape "
                                  f"{values.shape[1:]} differs from earlier {ds.shape[1:]}")
        old = ds.shape[0]
        if ds.maxshape[0] is not None:  # a fixed-size stream of an extended file: written anew
            data = np.concatenate([ds[()], values.astype(ds.dtype)], axis=0)
            del f[name]
            f.create_dataset(name, data=data, maxshape=(None,) + data.shape[1:], chunks=True)
            return
        ds.resize(old + values.shape[0], axis=0)
        ds[old:] = values

    def _init_extras(self, extra: Dict[str, np.ndarray]) -> None:
        self._extra_keys = sorted(extra)
        if not self._extra_keys:
            return
        grp = self._file.create_group("targets")
        grp.create_group("data")
        size = grp.create_group("size")
        lab = grp.create_group("labels")
        for key in self._extra_keys:
            arr = np.asarray(extra[key])
            if key not in self.extra_type:
                ndim = max(arr.ndim - 1, 1)
                dim = int(arr.shape[-1]) if arr.ndim >= 3 else 1
                self.extra_type[key] = (dim, ndim, str(arr.dtype))
            dim, ndim, _ = self.extra_type[key]
            size.attrs[key] = np.array([dim, ndim], dtype=np.int64)
            labels = [x.encode("utf8") for x in self.extra_labels.get(key, ["dummy-label"])]
            lab.create_dataset(key, data=np.array(labels, dtype=f"S{max(len(x) for x in labels)}"))

    def insert_batch(self, inputs: np.ndarray, seq_len: Any, seq_tag: Sequence[str],
                     extra: Optional[Dict[str, np.ndarray]] = None) -> None:
        """Appends a batch.

        :param inputs: ``[B, T, dim]`` dense or ``[B, T]`` sparse, padded
        :param seq_len: ``[B]`` lengths, or a dict ``{0: [B]}`` (axis index -> lengths, the reference's form);
            extra keys may also be given lengths in this dict (``{"classes": [B]}``), else their full padded
            length is stored (as the reference)
        :param seq_tag: ``B`` tags (str or bytes)
        :param extra: key -> ``[B, T', ...]`` extra streams; the same keys in every call
        :raises DatasetArgError: for inconsistent shapes/keys
        """
        if self._closed:
            raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: insert_batch after close()")
        inputs = np.asarray(inputs)
        lens_d = dict(seq_len) if isinstance(seq_len, dict) else {0: seq_len}
        extra = {k: np.asarray(v) for k, v in (extra or {}).items()}
        if self.ndim is None:
            self.ndim = inputs.ndim - 1
        inputs, lens_d, sizes = self._flatten_inputs(inputs, lens_d)
        if sizes is not None:
            if "sizes" in extra:
                raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: extra key 'sizes' is taken by the "
                                      f"lengths of the flattened axes of the inputs")
            extra["sizes"] = sizes
            lens_d["sizes"] = [sizes.shape[1]] * sizes.shape[0]
        in_lens = np.asarray(lens_d.get(0, [inputs.shape[1]] * inputs.shape[0])).reshape(-1)
        n = inputs.shape[0]
        if len(in_lens) != n or len(seq_tag) != n:
            raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: batch of {n} seqs but {len(in_lens)} "
                                  f"lengths and {len(seq_tag)} tags")
        if inputs.ndim < 2 or int(in_lens.max(initial=0)) > inputs.shape[1]:
            raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: inputs shape {inputs.shape} does not fit "
                                  f"seq lengths {in_lens.tolist()}")
        if self._extra_keys is None:
            self._init_extras(extra)
        if sorted(extra) != self._extra_keys:
            raise DatasetArgError(f"SimpleHDFWriter {self.filename!r}: extra keys {sorted(extra)} differ from the "
                                  f"first batch's {self._extra_keys}")
        if self.with_inputs:
            self._append("inputs", np.concatenate([inputs[i, :int(in_lens[i])] for i in range(n)], axis=0))
        rows = [[int(x)] for x in in_lens]
        for key in self._extra_keys:
            arr = extra[key]
            k_lens = np.asarray(lens_d.get(key, [arr.shape[1] if arr.ndim > 1 else 1] * n)).reshape(-1)
            dtype = self.extra_type[key][2]
            parts = [arr[i, :int(k_lens[i])] if arr.ndim > 1 else arr[i:i + 1] for i in range(n)]
            self._append(f"targets/data/{key}", np.concatenate(parts, axis=0).astype(dtype))
            for i in range(n):
                rows[i].append(int(k_lens[i]))
        if not self._extra_keys:
            for row in rows:
                row.append(0)
        self._seq_lens.extend(rows)
        self._tags.extend(t.decode("utf8") if isinstance(t, bytes) else str(t) for t in seq_tag)
        self._num_frames += int(in_lens.sum())

    def _flatten_inputs(self, inputs: np.ndarray, lens_d: Dict[Any, Any]
                        ) -> Tuple[np.ndarray, Dict[Any, Any], Optional[np.ndarray]]:
        """Inputs with several variable axes per sequence: those axes flattened into one (see the module doc).

        :return: ``[B, T', ...]`` inputs padded to the longest flattened sequence, ``lens_d`` with the flattened
            lengths at 0, and ``[B, num_axes]`` int32 sizes (None when there is one variable axis)
        """
        num_axes = inputs.ndim - 1
        sparse = inputs.dtype.kind in "iub"
        if not sparse and self.dim is not None:
            num_axes -= 1  # the static feature axis stays
        if num_axes <= 1:
            return inputs, lens_d, None
        n = inputs.shape[0]
        lens = np.stack([np.asarray(lens_d.get(a, [inputs.shape[a + 1]] * n)).reshape(-1) for a in range(num_axes)],
                        axis=1).astype(np.int32)  # [B, num_axes]
        seqs = [inputs[(i,) + tuple(slice(0, int(x)) for x in lens[i])] for i in range(n)]
        seqs = [x.reshape((-1,) + x.shape[num_axes:]) for x in seqs]
        total = max([x.shape[0] for x in seqs] + [0])
        flat = np.zeros((n, total) + inputs.shape[num_axes + 1:], dtype=inputs.dtype)
        for i, x in enumerate(seqs):
            flat[i, :x.shape[0]] = x
        lens_d = {k: v for k, v in lens_d.items() if not isinstance(k, int)}
        lens_d[0] = [x.shape[0] for x in seqs]
        return flat, lens_d, lens

    def close(self) -> None:
        """Writes ``seqLengths``/``seqTags``/attrs and renames the temporary file to ``filename``."""
        import h5py
        if self._closed:
            return
        f = self._file
        width = 1 + max(len(self._extra_keys or []), 1)
        seq_lens = np.array(self._seq_lens, dtype=np.int32).reshape(-1, width)
        f.create_dataset("seqLengths", data=seq_lens)
        f.create_dataset("seqTags", data=np.array(self._tags, dtype=object), dtype=h5py.string_dtype("utf-8"))
        if "inputs" not in f and self.with_inputs:
            shape = (0,) if (self.ndim or 2) == 1 else (0, self.dim or 0)
            f.create_dataset("inputs", shape=shape, dtype="int32" if self.ndim == 1 else "float32")
        f.attrs["numSeqs"] = np.int64(len(self._tags))
        f.attrs["numTimesteps"] = np.int64(self._num_frames)
        f.close()
        self._closed = True
        os.replace(self._tmp_filename, self.filename)

    def __del__(self):
        if not getattr(self, "_closed", True) and getattr(self, "_file", None) is not None:
            try:
                self._file.close()
                os.remove(self._tmp_filename)
            except Exception:
                pass


def dump_dataset(dataset, filename: str, *, epoch: int = 1, start_seq: int = 0, end_seq: int = -1,
                 progress: Optional[bool] = False) -> int:
    """Writes sequences ``[start_seq, end_seq]`` (inclusive; -1 = all) of ``dataset`` to ``filename`` in the
    HDFDataset layout: ``"data"`` as ``inputs`` (with its labels if sparse; no ``inputs`` if the dataset has no
    ``"data"``), every other key under ``targets/data/<key>`` with its dim, dtype and labels.

    :param progress: show a progress bar (None: only on a terminal)
    :return: number of sequences written
    :raises DatasetArgError: the dataset has no data keys
    :raises DatasetFileError: ``filename`` exists already
    """
    from returnn.datasets.tool_util import Progress
    dataset.init_seq_order(epoch=epoch)
    keys = dataset.get_data_keys()
    if not keys:
        raise DatasetArgError(f"HDF dump: dataset {dataset.name!r} has no data keys")
    has_data = "data" in keys
    extra_keys = [k for k in keys if k != "data"]
    sparse = dataset.is_data_sparse("data") if has_data else True
    writer = SimpleHDFWriter(
        filename, dim=dataset.get_data_dim("data") if has_data else None, ndim=1 if sparse else 2,
        labels=dataset.labels.get("data") if sparse and has_data else None, with_inputs=has_data,
        extra_type={k: (dataset.get_data_dim(k), 1 if dataset.is_data_sparse(k) else 2,
                        dataset.get_data_dtype(k)) for k in extra_keys},
        extra_labels={k: dataset.labels[k] for k in extra_keys if dataset.labels.get(k)})
    total = dataset.num_seqs if end_seq < 0 else min(end_seq + 1, dataset.num_seqs)
    bar = Progress(max(total - start_seq, 0), enabled=progress)
    seq_idx = start_seq
    while seq_idx < total and dataset.is_less_than_num_seqs(seq_idx):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        extra = {k: dataset.get_data(seq_idx, k)[None] for k in extra_keys}
        # without "data": the first key's frames stand in for seqLengths' first column (not stored)
        data = dataset.get_data(seq_idx, "data") if has_data else extra[extra_keys[0]][0]
        lens = {0: [data.shape[0]]}
        lens.update({k: [v.shape[1]] for k, v in extra.items()})
        writer.insert_batch(data[None], seq_len=lens, seq_tag=[dataset.get_tag(seq_idx)], extra=extra or None)
        seq_idx += 1
        bar.update(seq_idx - start_seq)
    bar.finish()
    writer.close()
    return seq_idx - start_seq


class HDFDatasetWriter:
    """Writes a whole dataset into one HDF file (the reference's ``HDFDatasetWriter``); an existing file of that
    name is replaced when the dump is complete.

    :param filename: the HDF file
    """

    def __init__(self, filename: str):
        self.filename = filename
        self.num_seqs = 0

    def dump_from_dataset(self, dataset, epoch: int = 1, start_seq: int = 0, end_seq: float = float("inf"),
                          use_progress_bar: bool = True) -> None:
        """Writes sequences ``[start_seq, end_seq]`` (inclusive) of ``dataset`` in ``epoch`` (see
        :func:`dump_dataset`)."""
        directory = os.path.dirname(os.path.abspath(self.filename))
        tmp = os.path.join(directory, f".{os.path.basename(self.filename)}.dump{os.getpid()}")
        end = -1 if end_seq == float("inf") else int(end_seq)
        self.num_seqs = dump_dataset(dataset, tmp, epoch=epoch, start_seq=start_seq, end_seq=end,
                                     progress=None if use_progress_bar else False)
        os.replace(tmp, self.filename)

    def close(self) -> None:
        """Nothing left to do (the file is complete after :meth:`dump_from_dataset`)."""
