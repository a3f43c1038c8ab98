"""The dataset base class :class:`Dataset` and one loaded sequence, :class:`DatasetSeq`.

Data model (as the reference): a dataset is a list of sequences; each sequence has a tag (``"seq-0"``) and
one numpy array per data key. Time-major per sequence: a dense stream is ``float32 [T, dim]``, a sparse
stream ``int32 [T]`` of class indices in ``[0, dim)``. ``num_outputs`` maps each key to ``(dim, ndim)``
as the reference: ``ndim`` is ``1`` for sparse ``[T]`` and ``2`` for dense ``[T, dim]``; an entry may also be a dict
``{"dim", "shape", "dtype", "sparse"}`` (e.g. ``"raw": {"dtype": "string", "shape": ()}``, one string per
sequence, as the speech datasets give). ``num_inputs`` is the dim of ``"data"``.

A subclass provides the corpus (all sequences in corpus order) through

- :meth:`get_total_num_seqs` (number of corpus sequences),
- :meth:`_collect_corpus_seq` (``corpus_idx -> DatasetSeq``),
- optionally :meth:`_get_corpus_seq_len` (for the sorting orders, without loading data) and
  :meth:`_get_corpus_seq_tag`.

The base class does the epoch logic: ``seq_ordering``, ``partition_epoch``, ``seq_list`` and
``seq_list_filter_file``, and caches loaded sequences between :meth:`load_seqs` calls.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetFileError, DatasetArgError
from returnn.util.numbers_dict import NumbersDict
from returnn.datasets import frames as _frames
from returnn.datasets import seq_order as _seq_order
from returnn.datasets.chunking import parse_chunking


class DatasetSeq:
    """One loaded sequence.

    :param seq_idx: index in the current epoch's order
    :param features: key -> numpy array (time-major, see the module doc); a single array means ``{"data": it}``
    :param targets: optional extra keys (merged into ``features``; the reference's legacy argument)
    :param seq_tag: the sequence's name; default ``"seq-<seq_idx>"``
    """

    def __init__(self, seq_idx: int, features: Any, targets: Optional[Dict[str, np.ndarray]] = None,
                 seq_tag: Optional[str] = None):
        if not isinstance(features, dict):
            features = {"data": features}
        self.features: Dict[str, np.ndarray] = dict(features)
        if targets:
            self.features.update(targets)
        self.seq_idx = seq_idx
        self.seq_tag = seq_tag if seq_tag is not None else f"seq-{seq_idx}"

    def get_data(self, key: str) -> np.ndarray:
        """The array of one key."""
        return self.features[key]

    @property
    def num_frames(self) -> NumbersDict:
        """Per-key length (first axis; 1 for scalars)."""
        return NumbersDict({k: (v.shape[0] if v.ndim > 0 else 1) for k, v in self.features.items()})

    def __repr__(self) -> str:
        return f"<DatasetSeq {self.seq_tag!r} {self.num_frames}>"


class Dataset:
    """Base class of all datasets. See the module doc for the data model and what a subclass provides.

    Common kwargs (every dataset accepts them; reference names and defaults):

    :param name: used in log lines; default ``"dataset_id<N>"``
    :param seq_ordering: see :mod:`returnn.datasets.seq_order`; default ``"default"``
    :param partition_epoch: one (sub-)epoch covers 1/N of the data; N sub-epochs cycle through all of it
    :param repeat_epoch: one epoch covers the data N times
    :param fixed_random_seed: if given, every random choice (order, generated data) uses this seed in every
        epoch, instead of one seeded by the epoch
    :param random_seed_offset: added to the epoch-based seed
    :param seq_list_filter_file: a text file (one tag per line) restricting the sequences used
    :param chunking: per-dataset chunking, see :mod:`returnn.datasets.chunking` (the config key ``chunking``
        sets this on the train dataset)
    :param min_chunk_size: trailing chunks shorter than this are dropped
    :param window: frame stacking of ``"data"`` (odd int; 1 is off): each frame holds the ``window`` frames
        around it, zero-padded, so its dim is ``window * dim`` (see :mod:`returnn.datasets.frames`)
    :param context_window: int (for ``"data"``) or dict key -> int: the batches take ``(w - 1) // 2`` frames more
        on the left and the rest on the right of each sequence part (``ctx_left``, ``ctx_right``)
    :param _num_shards: split each (sub-)epoch's order into this many contiguous parts (as ``partition_epoch``
        splits a full epoch) ...
    :param _shard_index: ... and use only part ``_shard_index`` (0-based); set by ``MultiProcDataset``'s
        ``sharding_method="dedicated"``
    :raises DatasetArgError: for invalid values of these kwargs
    :raises ConfigValueError: for an invalid ``seq_ordering`` or ``chunking``
    """

    def __init__(self, name: Optional[str] = None, seq_ordering: str = "default",
                 partition_epoch: Optional[int] = None, repeat_epoch: Optional[int] = None,
                 fixed_random_seed: Optional[int] = None, random_seed_offset: Optional[int] = None,
                 seq_list_filter_file: Optional[str] = None, unique_seq_tags: bool = False,
                 chunking: Any = None, min_chunk_size: int = 0, chunking_variance: float = 0.0,
                 window: int = 1, context_window: Any = None, shuffle_frames_of_nseqs: int = 0,
                 estimated_num_seqs: Optional[int] = None, seq_order_seq_lens_file: Optional[str] = None,
                 _num_shards: int = 1, _shard_index: int = 0):
        self.name = name or f"dataset_id{id(self)}"
        _seq_order.check_seq_ordering(seq_ordering)
        self.seq_ordering = seq_ordering
        self.partition_epoch = int(partition_epoch or 1)
        if self.partition_epoch < 1:
            raise DatasetArgError(f"{type(self).__name__}: partition_epoch must be >= 1, got {partition_epoch!r}")
        self.repeat_epoch = int(repeat_epoch or 1)
        self._num_shards, self._shard_index = int(_num_shards or 1), int(_shard_index or 0)
        if not 0 <= self._shard_index < self._num_shards:
            raise DatasetArgError(f"{type(self).__name__}: expected 0 <= _shard_index < _num_shards, got "
                                  f"{_shard_index!r}, {_num_shards!r}")
        self.fixed_random_seed = fixed_random_seed
        self.random_seed_offset = int(random_seed_offset or 0)
        self._seq_list_filter_file = seq_list_filter_file
        self._seq_tags_filter: Optional[set] = None
        self.unique_seq_tags = unique_seq_tags
        self.window = _frames.check_window(window, type(self).__name__)
        self.ctx_left, self.ctx_right = _frames.context_window_sides(context_window)
        self.chunking = chunking
        self.chunk_size, self.chunk_step = parse_chunking(chunking)
        self.custom_chunking_func = None
        self.min_chunk_size = int(min_chunk_size or 0)
        self.chunking_variance = chunking_variance
        self.estimated_num_seqs = estimated_num_seqs
        self._seq_order_seq_lens_file = seq_order_seq_lens_file
        self._seq_order_seq_lens_by_idx: Optional[np.ndarray] = None
        self.num_inputs = 0
        self.num_outputs: Dict[str, Any] = {}
        self.labels: Dict[str, List[str]] = {}
        self.epoch: Optional[int] = None
        self._seq_order_list: List[int] = []
        self._loaded: Dict[int, DatasetSeq] = {}

    @property
    def chunk_size(self) -> NumbersDict:
        """Chunk size per key (0: no chunking); assign an int, a dict or a :class:`NumbersDict`."""
        return self._chunk_size

    @chunk_size.setter
    def chunk_size(self, value: Any) -> None:
        self._chunk_size = value if isinstance(value, NumbersDict) else NumbersDict(value or 0)

    @property
    def chunk_step(self) -> NumbersDict:
        """Chunk step per key; assign an int, a dict or a :class:`NumbersDict`."""
        return self._chunk_step

    @chunk_step.setter
    def chunk_step(self, value: Any) -> None:
        self._chunk_step = value if isinstance(value, NumbersDict) else NumbersDict(value or 0)

    def initialize(self) -> None:
        """The reference's second initialisation step; everything is set up in the constructor here, so this
        only exists for callers of that API."""

    def have_seqs(self) -> bool:
        """Whether the dataset has any sequence (``get_total_num_seqs() > 0``)."""
        return self.get_total_num_seqs() > 0

    def len_info(self, fast: bool = False) -> str:
        """A short text about the dataset's size for log lines; with ``fast``, nothing that would load data."""
        parts = [repr(self), f"epoch {self.epoch}"]
        if not fast or self.epoch is not None:
            parts.append(f"num_seqs {self.num_seqs}")
        return ", ".join(parts)

    def iterate_seqs(self, recurrent_net: bool = True, used_data_keys: Optional[Sequence[str]] = None):
        """Yields ``(seq_idx, start, end)`` per sequence (or chunk) of the current epoch; see
        :func:`returnn.datasets.frames.iterate_seqs`."""
        return _frames.iterate_seqs(self, recurrent_net=recurrent_net, used_data_keys=used_data_keys)

    def can_serialize_data(self, key: str) -> bool:
        """Whether :meth:`serialize_data` can turn ``key``'s class indices into text (it has labels)."""
        return key in self.labels

    def serialize_data(self, key: str, data: np.ndarray) -> str:
        """Class indices of ``key`` as text, as the reference: byte labels (``chr(0) .. chr(255)``) are decoded as
        UTF-8; otherwise the labels are joined with spaces if any is longer than one character, else without.

        :raises KeyError: ``key`` has no labels
        """
        labels = self.labels[key]
        if len(labels) == 256 and all(labels[i] == chr(i) for i in range(256)):
            return bytearray(int(i) for i in data).decode("utf8")
        sep = " " if any(len(label) > 1 for label in labels) else ""
        return sep.join(labels[int(i)] for i in data)

    # ---------------------------------------------------------------- subclass interface
    def get_total_num_seqs(self) -> int:
        """Number of sequences in the corpus (all sub-epochs together)."""
        raise NotImplementedError(f"{type(self).__name__}.get_total_num_seqs")

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        """Loads the sequence with this corpus index. ``seq_idx`` is filled in by the base class."""
        raise NotImplementedError(f"{type(self).__name__}._collect_corpus_seq")

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        """Length of the ``"data"`` stream (or the first key), used by the sorting orders."""
        seq = self._collect_corpus_seq(corpus_idx)
        key = "data" if "data" in seq.features else next(iter(seq.features))
        return int(seq.num_frames[key])

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._collect_corpus_seq(corpus_idx).seq_tag

    def _get_epoch_seed(self, epoch: int, every_n: int = 1) -> int:
        """The random seed of ``epoch``: ``fixed_random_seed`` if set, else the full epoch + ``random_seed_offset``;
        with ``every_n``, the seed changes only every ``every_n`` full epochs (``seq_ordering="random:<n>"``)."""
        if self.fixed_random_seed is not None:
            return int(self.fixed_random_seed)
        return (_seq_order.full_epoch(epoch, self.partition_epoch) - 1) // every_n + 1 + self.random_seed_offset

    # ---------------------------------------------------------------- epoch / order
    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        """Prepares ``epoch`` (1-based; None means 1): computes the order of the sequences for it.

        :param seq_list: explicit list of sequence tags; they are used in this order
        :param seq_order: explicit list of corpus indices
        :return: whether the order changed (the reference's contract; always True here)
        :raises DatasetFileError: for a tag in ``seq_list`` that the dataset does not have
        """
        self.epoch = epoch if epoch is not None else 1
        self._loaded.clear()
        if seq_order is not None:
            order = list(seq_order)
        elif seq_list is not None:
            tag_to_idx = {self._get_corpus_seq_tag(i): i for i in range(self.get_total_num_seqs())}
            missing = [t for t in seq_list if t not in tag_to_idx]
            if missing:
                raise DatasetFileError(self.name, f"seq_list has {len(missing)} tags not in the dataset, "
                                               f"e.g. {missing[0]!r}")
            order = [tag_to_idx[t] for t in seq_list]
        else:
            order = self.get_seq_order_for_epoch(self.epoch, self.get_total_num_seqs(),
                                                 get_seq_len=self._get_corpus_seq_len)
        self._seq_order_list = order
        return True

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        """Corpus indices for ``epoch`` after ``seq_ordering``, ``seq_list_filter_file``, ``partition_epoch``
        and ``repeat_epoch``."""
        epoch = epoch or 1
        if self._seq_order_seq_lens_file:
            get_seq_len = self._get_seq_order_seq_lens_by_idx
        order = _seq_order.get_seq_order(
            num_seqs, self.seq_ordering, seed=self._get_epoch_seed(epoch), get_seq_len=get_seq_len,
            seed_every_n_epochs=lambda n: self._get_epoch_seed(epoch, every_n=n),
            get_all_seq_lens=None if get_seq_len is None else lambda: get_seq_len_as_array(get_seq_len, num_seqs))
        if self._seq_list_filter_file:
            allowed = self._load_seq_list_filter()
            order = [i for i in order if self._get_corpus_seq_tag(i) in allowed]
        order = _seq_order.partition(order, self.partition_epoch, epoch)
        if self._num_shards > 1:
            order = _seq_order.partition(order, self._num_shards, self._shard_index + 1)
        if self.repeat_epoch > 1:
            order = order * self.repeat_epoch
        return order

    def _get_seq_order_seq_lens_by_idx(self, corpus_idx: int) -> int:
        """The length of corpus sequence ``corpus_idx`` from ``seq_order_seq_lens_file`` (a Python/JSON dict
        tag -> length; read once into :attr:`_seq_order_seq_lens_by_idx`, indexed as :meth:`get_all_tags`), the
        lengths the sorting orders use when that option is set.

        :raises DatasetFileError: the file cannot be read, or lacks a tag of the dataset
        """
        if self._seq_order_seq_lens_by_idx is None:
            self._seq_order_seq_lens_by_idx = _read_seq_lens_file(self._seq_order_seq_lens_file, self.get_all_tags())
        return int(self._seq_order_seq_lens_by_idx[corpus_idx])

    def _load_seq_list_filter(self) -> set:
        if self._seq_tags_filter is None:
            try:
                with open(self._seq_list_filter_file, encoding="utf8") as f:
                    self._seq_tags_filter = {line.strip() for line in f if line.strip()}
            except OSError as exc:
                raise DatasetFileError(self._seq_list_filter_file, f"cannot read seq_list_filter_file: {exc}") from None
        return self._seq_tags_filter

    def get_current_seq_order(self) -> List[int]:
        """Corpus indices of the current epoch, in order."""
        return list(self._seq_order_list)

    @property
    def num_seqs(self) -> int:
        """Number of sequences in the current (sub-)epoch."""
        return len(self._seq_order_list)

    def is_less_than_num_seqs(self, n: int) -> bool:
        """Whether ``n < num_seqs`` (the reference's API for datasets of unknown length)."""
        return n < self.num_seqs

    def get_corpus_seq_idx(self, seq_idx: int) -> int:
        """Corpus index of the ``seq_idx``-th sequence of the current epoch."""
        return self._seq_order_list[seq_idx]

    def have_corpus_seq_idx(self) -> bool:
        return True

    def get_all_tags(self) -> List[str]:
        """Tags of all corpus sequences, in corpus order."""
        return [self._get_corpus_seq_tag(i) for i in range(self.get_total_num_seqs())]

    def get_estimated_seq_length(self, seq_idx: int) -> int:
        return self.get_seq_length(seq_idx)["data"]

    # ---------------------------------------------------------------- loading
    def _check_seq_idx(self, seq_idx: int) -> None:
        if self.epoch is None:
            self.init_seq_order(epoch=1)
        if not 0 <= seq_idx < self.num_seqs:
            raise IndexError(f"{self.name}: seq_idx {seq_idx} out of range [0, {self.num_seqs}) in epoch "
                             f"{self.epoch}")

    def load_seqs(self, start: int, end: int) -> None:
        """Loads sequences ``[start, end)`` of the current epoch; earlier loaded ones (< start) are freed."""
        if self.epoch is None:
            self.init_seq_order(epoch=1)
        for idx in [i for i in self._loaded if i < start]:
            del self._loaded[idx]
        for idx in range(max(start, 0), min(end, self.num_seqs)):
            self._get_seq(idx)

    def _get_seq(self, seq_idx: int) -> DatasetSeq:
        seq = self._loaded.get(seq_idx)
        if seq is None:
            self._check_seq_idx(seq_idx)
            seq = self._collect_corpus_seq(self.get_corpus_seq_idx(seq_idx))
            features = seq.features
            if self.window > 1 and "data" in features and features["data"].ndim == 2:
                features = dict(features, data=_frames.sliding_window(features["data"], self.window))
            seq = DatasetSeq(seq_idx, features, seq_tag=seq.seq_tag)
            self._loaded[seq_idx] = seq
        return seq

    def get_data(self, seq_idx: int, key: str) -> np.ndarray:
        """The array of ``key`` for sequence ``seq_idx`` (time-major: dense ``[T, dim]``, sparse ``[T]``).

        :raises KeyError: naming the available keys
        """
        seq = self._get_seq(seq_idx)
        if key not in seq.features:
            raise KeyError(f"{self.name}: no data key {key!r}; available: {sorted(seq.features)}")
        return seq.features[key]

    def get_input_data(self, seq_idx: int) -> np.ndarray:
        return self.get_data(seq_idx, "data")

    def get_targets(self, target: str, seq_idx: int) -> np.ndarray:
        return self.get_data(seq_idx, target)

    def get_seq_length(self, seq_idx: int) -> NumbersDict:
        """Per-key length of sequence ``seq_idx`` (first axis of each key's array)."""
        return self._get_seq(seq_idx).num_frames

    def get_tag(self, seq_idx: int) -> str:
        """Name of sequence ``seq_idx``."""
        return self._get_seq(seq_idx).seq_tag

    def get_data_slice(self, seq_idx: int, key: str, start_frame: int, end_frame: int) -> np.ndarray:
        """Frames ``[start_frame, end_frame)`` of one key (keys without a time axis are returned whole)."""
        data = self.get_data(seq_idx, key)
        if data.ndim == 0 or self.get_data_shape(key) == list(data.shape):
            return data
        return data[start_frame:end_frame]

    # ---------------------------------------------------------------- meta data
    def get_data_keys(self) -> List[str]:
        """All data keys, ``"data"`` first, then the others sorted."""
        keys = sorted(self.num_outputs.keys())
        if "data" in keys:
            keys.remove("data")
            keys.insert(0, "data")
        return keys

    def get_target_list(self) -> List[str]:
        """All keys except ``"data"``."""
        return [k for k in self.get_data_keys() if k != "data"]

    def _check_key(self, key: str) -> None:
        if key not in self.num_outputs:
            raise KeyError(f"{self.name}: no data key {key!r}; available: {self.get_data_keys()}")

    def get_data_dim(self, key: str) -> int:
        """Feature dim (dense) or number of classes (sparse) of ``key``."""
        self._check_key(key)
        entry = self.num_outputs[key]
        if isinstance(entry, dict):  # {"dim": .., "shape": .., "dtype": .., "sparse": ..}; "raw" strings: dim 0
            return int(entry.get("dim") or 0)
        if key == "data" and self.window > 1 and int(entry[1]) >= 2:
            return int(entry[0]) * self.window  # frame stacking
        return int(entry[0])

    def is_data_sparse(self, key: str) -> bool:
        """Whether ``key`` holds class indices (``ndim == 1`` in ``num_outputs``, non-float dtype)."""
        self._check_key(key)
        entry = self.num_outputs[key]
        if isinstance(entry, dict):
            return bool(entry.get("sparse", False))
        if "float" in self.get_data_dtype(key):
            return False
        return int(entry[1]) == 1

    def get_data_shape(self, key: str) -> List[int]:
        """Shape of one frame: ``[]`` for sparse, ``[dim]`` for dense (no time, no batch axis)."""
        self._check_key(key)
        entry = self.num_outputs[key]
        if isinstance(entry, dict):
            shape = entry.get("shape")
            if shape is None:
                return [] if self.is_data_sparse(key) else [self.get_data_dim(key)]
            shape = list(shape)
            if shape and shape[0] is None:  # the time axis
                shape = shape[1:]
            return [int(d) for d in shape]
        if self.is_data_sparse(key):
            return []
        ndim = int(self.num_outputs[key][1])
        return [self.get_data_dim(key)] if ndim >= 2 else []

    def get_data_dtype(self, key: str) -> str:
        """numpy dtype name: ``"float32"`` for dense, ``"int32"`` for sparse, unless the data says else."""
        self._check_key(key)
        dtypes = getattr(self, "_data_dtypes", None) or {}
        if key in dtypes:
            return dtypes[key]
        entry = self.num_outputs[key]
        if isinstance(entry, dict):
            return str(entry.get("dtype") or ("int32" if entry.get("sparse") else "float32"))
        return "int32" if int(self.num_outputs[key][1]) == 1 else "float32"

    def finish_epoch(self, *, free_resources: bool = False) -> None:
        """Called after the last sequence of an epoch was used. Nothing to do here; datasets holding workers or
        sub datasets stop / pass it on (``free_resources``: also release workers, caches).
        """

    def get_max_ctc_length(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} epoch={self.epoch}>"

    # ---------------------------------------------------------------- batching
    def generate_batches(self, *, recurrent_net: bool = True, batch_size: Any, max_seqs: int = -1,
                         max_seq_length: Any = None, max_pad_size: Any = None, min_seq_length: Any = None,
                         seq_drop: float = 0.0, shuffle_batches: bool = False,
                         used_data_keys: Optional[Sequence[str]] = None, epoch: Optional[int] = None):
        """Builds the mini-batches of the current epoch; see :func:`returnn.datasets.batching.generate_batches`.

        :return: :class:`returnn.datasets.batching.BatchSetGenerator`
        """
        from returnn.datasets.batching import BatchSetGenerator, generate_batches
        batches = generate_batches(
            self, recurrent_net=recurrent_net, batch_size=batch_size, max_seqs=max_seqs,
            max_seq_length=max_seq_length, max_pad_size=max_pad_size, min_seq_length=min_seq_length,
            seq_drop=seq_drop, used_data_keys=used_data_keys,
            seed=self._get_epoch_seed(epoch or self.epoch or 1) if (shuffle_batches or seq_drop) else 0,
            shuffle_batches=shuffle_batches)
        return BatchSetGenerator(self, batches)


def _read_seq_lens_file(filename: str, tags: Sequence[str]) -> np.ndarray:
    import ast
    try:
        with open(filename, encoding="utf8") as f:
            lens = ast.literal_eval(f.read())
    except (OSError, ValueError, SyntaxError) as exc:
        raise DatasetFileError(filename, f"cannot read seq_order_seq_lens_file (a dict tag -> length): {exc}") from None
    if not isinstance(lens, dict):
        raise DatasetFileError(filename, f"seq_order_seq_lens_file: expected a dict tag -> length, got "
                                         f"{type(lens).__name__}")
    missing = [t for t in tags if t not in lens]
    if missing:
        raise DatasetFileError(filename, f"seq_order_seq_lens_file has no length for {len(missing)} tags, e.g. "
                                         f"{missing[0]!r}")
    return np.array([int(lens[t]) for t in tags], dtype=np.int64)


def get_seq_len_as_array(get_seq_len, num_seqs: int) -> np.ndarray:
    """The lengths ``[get_seq_len(i) for i in range(num_seqs)]`` as an int array; for a dataset's
    ``_get_seq_order_seq_lens_by_idx`` its cached array itself (no copy), as the reference's
    ``_get_seq_len_as_array``."""
    owner = getattr(get_seq_len, "__self__", None)
    if isinstance(owner, Dataset) and getattr(get_seq_len, "__func__", None) is Dataset._get_seq_order_seq_lens_by_idx:
        if num_seqs:
            get_seq_len(0)  # reads the file once
        arr = owner._seq_order_seq_lens_by_idx
        if arr is not None and len(arr) == num_seqs:
            return arr
    return np.array([get_seq_len(i) for i in range(num_seqs)], dtype=np.int64)


def check_data_consistency(name: str, key: str, arrays: Sequence[np.ndarray]) -> None:
    """Raises :class:`DatasetFileError` if the per-frame shapes of ``arrays`` differ (inconsistent stream)."""
    shapes = {tuple(a.shape[1:]) for a in arrays}
    if len(shapes) > 1:
        raise DatasetFileError(name, f"data key {key!r}: frames have inconsistent shapes {sorted(shapes)}")


def invalid_kwarg(cls_name: str, arg: str, known: Sequence[str]) -> DatasetArgError:
    """The error for an unknown dataset kwarg (naming it, the class and the closest valid kwarg)."""
    from returnn.util.suggest import close_matches
    sugg = close_matches(arg, known)
    text = f"dataset {{\"class\": \"{cls_name}\"}}: unknown argument {arg!r}"
    if sugg:
        text += "\n  did you mean: " + ", ".join(repr(s) for s in sugg) + "?"
    text += "\n  accepted: " + ", ".join(sorted(known))
    return DatasetArgError(text)

