"""Mini-batch construction (``batch_size``, ``max_seqs``, ``max_seq_length``, chunking), as the reference.

A :class:`Batch` is a list of :class:`BatchSeqCopyPart`: which frames of which sequence go to which batch
slice (row of the padded ``[B, T, ...]`` array). Rules of :func:`generate_batches` (observed on the
reference):

- Sequences (or their chunks, if the dataset has ``chunking``) are taken in the epoch's order.
- A sequence longer than ``max_seq_length`` (for any key given) is skipped (log line at verbosity 5);
  one shorter than ``min_seq_length`` likewise.
- A new sequence is added to the current batch if ``max(len) * (num_seqs + 1) <= batch_size`` for every key
  (padding counted), ``num_seqs + 1 <= max_seqs`` and (if set) the padding stays ``<= max_pad_size``;
  otherwise the current batch is closed and a new one started.
- A sequence longer than ``batch_size`` on its own becomes its own batch (with a warning line), it is not
  dropped.
- With ``recurrent_net=False`` the sequences are concatenated in one slice (frame-wise training) and cut so
  that each batch holds exactly ``batch_size`` frames (the last one fewer); ``max_seqs`` bounds the parts.

The classes have the reference's public API (``returnn.engine.batch`` re-exports them); the generator fills a
fast subclass, :class:`GeneratedBatch`. Behaviour observed from the reference:

* ``Batch.add_sequence_as_slice`` puts a sequence part into a new row (slice); ``max_num_frames_per_slice``
  is the per-key maximum length; ``try_sequence_as_slice(length)`` returns what these two would become.
* ``Batch.add_frames`` appends to row 0 after the frames already there (frame-wise training); with
  ``frame_dim_corresponds`` (default) all keys share one time axis: the offset is the largest length so far.
* ``start_seq``/``end_seq`` are the smallest and one past the largest ``seq_idx``; ``get_num_seqs()`` is
  ``end_seq - start_seq``.
* ``BatchSetGenerator`` reads batches lazily from ``generator``; with ``cache_whole_epoch`` it keeps them, and
  :meth:`BatchSetGenerator.reset` replays them (shuffled with ``shuffle_batches``) for another pass.
"""

from __future__ import annotations

import random
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.util.numbers_dict import NumbersDict
from returnn.datasets.chunking import iter_chunks, is_chunking_on


def _from_plain_dict(value: Any) -> Any:
    """A plain dict (data key -> frames) as a :class:`NumbersDict`; ints and NumbersDicts as they are."""
    return NumbersDict(value) if isinstance(value, dict) else value


class BatchSeqCopyPart:
    """Frames ``[seq_start_frame, seq_end_frame)`` (per key) of sequence ``seq_idx`` go to row ``batch_slice``
    of the batch, starting at time ``batch_frame_offset``. Frame values are ints or :class:`NumbersDict` s
    (the attributes are :class:`NumbersDict` s, built on access; the generator stores plain dicts for speed)."""

    __slots__ = ("seq_idx", "batch_slice", "_start", "_end", "_offset")

    def __init__(self, seq_idx: int, seq_start_frame: Any, seq_end_frame: Any, batch_slice: int,
                 batch_frame_offset: Any = 0):
        self.seq_idx = seq_idx
        self.batch_slice = batch_slice
        self._start = seq_start_frame if isinstance(seq_start_frame, dict) else NumbersDict(seq_start_frame)
        self._end = seq_end_frame if isinstance(seq_end_frame, dict) else NumbersDict(seq_end_frame)
        self._offset = batch_frame_offset

    @property
    def seq_start_frame(self) -> NumbersDict:
        return NumbersDict(self._start)

    @property
    def seq_end_frame(self) -> NumbersDict:
        return NumbersDict(self._end)

    @property
    def batch_frame_offset(self) -> NumbersDict:
        return NumbersDict(self._offset) if not isinstance(self._offset, NumbersDict) else self._offset

    def frame_range(self, key: str):
        """``(start, end, batch_frame_offset)`` ints of ``key`` (fast path for feeding)."""
        off = self._offset
        if isinstance(off, int):
            o = off
        else:
            o = off[key] or 0
        return int(self._start[key] or 0), int(self._end[key]), int(o)

    @property
    def frame_length(self) -> NumbersDict:
        """Per-key number of frames of this part."""
        return self.seq_end_frame - self.seq_start_frame

    def __repr__(self) -> str:
        return (f"<BatchSeqCopyPart seq_idx={self.seq_idx} seq_start_frame={self.seq_start_frame!r} "
                f"seq_end_frame={self.seq_end_frame!r} batch_slice={self.batch_slice} "
                f"batch_frame_offset={self.batch_frame_offset!r}>")


class Batch:
    """One mini-batch: ``seqs`` (:class:`BatchSeqCopyPart` s), ``num_slices`` (rows) and
    ``max_num_frames_per_slice`` (padded time length per key)."""

    def __init__(self):
        self.seqs: List[BatchSeqCopyPart] = []
        self.num_slices = 0
        self._max_frames = NumbersDict(0)

    @property
    def max_num_frames_per_slice(self) -> NumbersDict:
        """Padded time length per key."""
        return self._max_frames

    @max_num_frames_per_slice.setter
    def max_num_frames_per_slice(self, value: Any) -> None:
        self._max_frames = NumbersDict(value)

    def __repr__(self) -> str:
        return f"<Batch start_seq:{self.start_seq}, len(seqs):{len(self.seqs)}>"

    def try_sequence_as_slice(self, length: Union[int, NumbersDict]) -> List[Any]:
        """``[max_num_frames_per_slice, num_slices]`` as they would be after adding a part of ``length`` as a new
        row (nothing is changed)."""
        return [NumbersDict.max([self.max_num_frames_per_slice, length]), self.num_slices + 1]

    def add_sequence_as_slice(self, seq_idx: int, seq_start_frame: Any, length: Any) -> None:
        """Adds frames ``[seq_start_frame, seq_start_frame + length)`` of ``seq_idx`` as a new row (frame values:
        int, dict or :class:`NumbersDict`)."""
        seq_start_frame, length = _from_plain_dict(seq_start_frame), _from_plain_dict(length)
        self.max_num_frames_per_slice, self.num_slices = self.try_sequence_as_slice(length)
        self.seqs.append(BatchSeqCopyPart(seq_idx=seq_idx, seq_start_frame=seq_start_frame,
                                          seq_end_frame=length + seq_start_frame, batch_slice=self.num_slices - 1,
                                          batch_frame_offset=0))

    def add_frames(self, seq_idx: int, seq_start_frame: Any, length: Any, frame_dim_corresponds: bool = True
                   ) -> None:
        """Appends frames ``[seq_start_frame, seq_start_frame + length)`` of ``seq_idx`` to row 0, after the frames
        already there (frame values: int, dict or :class:`NumbersDict`).

        :param frame_dim_corresponds: all keys share the time axis: the offset is the largest length so far
            (for every key); otherwise each key has its own offset
        """
        seq_start_frame, length = _from_plain_dict(seq_start_frame), _from_plain_dict(length)
        current = self.max_num_frames_per_slice
        if frame_dim_corresponds:
            offset = NumbersDict(current.max_value() or 0)
        else:
            offset = NumbersDict(current)  # the frames per key so far (the reference aliases the updated value)
        self.seqs.append(BatchSeqCopyPart(seq_idx=seq_idx, seq_start_frame=seq_start_frame,
                                          seq_end_frame=length + seq_start_frame, batch_slice=0,
                                          batch_frame_offset=offset))
        self.max_num_frames_per_slice = offset + length
        self.num_slices = max(self.num_slices, 1)

    def init_with_one_full_sequence(self, seq_idx: int, dataset) -> None:
        """Makes this batch the whole sequence ``seq_idx`` of ``dataset`` (one row).

        :raises ValueError: the batch is not empty
        """
        if self.seqs:
            raise ValueError(f"init_with_one_full_sequence: {self!r} already has sequences")
        length = dataset.get_seq_length(seq_idx)
        self.add_frames(seq_idx=seq_idx, seq_start_frame=NumbersDict.constant_like(0, length), length=length)

    def get_num_seqs(self) -> int:
        """``end_seq - start_seq`` (0 for an empty batch), as the reference."""
        if not self.seqs:
            return 0
        return self.end_seq - self.start_seq

    def get_total_num_frames(self) -> NumbersDict:
        """Real (unpadded) frames per key."""
        return sum((s.frame_length for s in self.seqs), NumbersDict(0)) if self.seqs else NumbersDict(0)


    @property
    def start_seq(self) -> Optional[int]:
        """Smallest ``seq_idx`` in the batch (None if empty)."""
        return min(s.seq_idx for s in self.seqs) if self.seqs else None

    @property
    def end_seq(self) -> Optional[int]:
        """One past the largest ``seq_idx`` in the batch (None if empty)."""
        return max(s.seq_idx for s in self.seqs) + 1 if self.seqs else None

    def get_all_slices_num_frames(self) -> NumbersDict:
        """Padded frames: ``num_slices * max_num_frames_per_slice``."""
        return self.max_num_frames_per_slice * self.num_slices


class GeneratedBatch(Batch):
    """The batches :func:`generate_batches` builds: a :class:`Batch` whose parts keep their frames as plain
    dicts (data key -> int), filled through :meth:`append_slice` / :meth:`append_frames` (fast: no
    :class:`NumbersDict` arithmetic per sequence)."""

    def __init__(self):
        super().__init__()
        self._max: Dict[str, int] = {}

    @property
    def max_num_frames_per_slice(self) -> NumbersDict:
        """Padded time length per key (a :class:`NumbersDict` with broadcast value 0)."""
        return NumbersDict(numbers_dict=dict(self._max), broadcast_value=0)

    @max_num_frames_per_slice.setter
    def max_num_frames_per_slice(self, value: Any) -> None:
        value = NumbersDict(value)
        self._max = dict(value.dict)

    def append_slice(self, seq_idx: int, seq_start_frame: Dict[str, int], length: Dict[str, int]) -> None:
        """Adds a part as a new row."""
        end = {k: seq_start_frame[k] + v for k, v in length.items()}
        self.seqs.append(BatchSeqCopyPart(seq_idx, seq_start_frame, end, self.num_slices, 0))
        cur = self._max
        for k, v in length.items():
            if v > cur.get(k, 0):
                cur[k] = v
        self.num_slices += 1

    def append_frames(self, seq_idx: int, seq_start_frame: Dict[str, int], length: Dict[str, int]) -> None:
        """Appends a part to row 0 after the frames already there, per key (``recurrent_net=False``)."""
        offset = {k: self._max.get(k, 0) for k in length}
        end = {k: seq_start_frame[k] + v for k, v in length.items()}
        self.seqs.append(BatchSeqCopyPart(seq_idx, dict(seq_start_frame), end, 0,
                                          NumbersDict(offset)))
        for k, v in length.items():
            self._max[k] = self._max.get(k, 0) + v
        self.num_slices = 1


def _as_limit(value: Any, key: str) -> Optional[Dict[str, Any]]:
    """int / dict / NumbersDict -> ``{"__default__": v, key: v, ...}``; None/0 -> None (no limit)."""
    if value is None:
        return None
    if isinstance(value, NumbersDict):
        d = dict(value.dict)
        if value.value is not None:
            d["__default__"] = value.value
    elif isinstance(value, dict):
        d = dict(value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        d = {"__default__": value}
    else:
        raise ConfigValueError(key, expected="an int or a dict data key -> int", got=value)
    if not any(v for v in d.values()):
        return None
    return d


def _exceeds(length: Dict[str, int], limit: Optional[Dict[str, Any]]) -> bool:
    if limit is None:
        return False
    default = limit.get("__default__")
    for k, v in length.items():
        lim = limit.get(k, default)
        if lim and v > lim:
            return True
    return False


def _below(length: Dict[str, int], limit: Optional[Dict[str, Any]]) -> bool:
    if limit is None:
        return False
    default = limit.get("__default__")
    for k, v in length.items():
        lim = limit.get(k, default)
        if lim and v < lim:
            return True
    return False


def iterate_seq_parts(dataset, used_data_keys: Optional[Sequence[str]] = None,
                      max_seq_length: Any = None, min_seq_length: Any = None, seq_drop: float = 0.0,
                      rng: Optional[np.random.RandomState] = None) -> Iterator[tuple]:
    """Yields ``(seq_idx, start: dict, length: dict)`` per sequence (or chunk) of the current epoch, widened by
    the dataset's ``ctx_left`` / ``ctx_right`` (``context_window``)."""
    ctx_left = getattr(dataset, "ctx_left", None)
    ctx_right = getattr(dataset, "ctx_right", None)
    ctx_keys = [k for k in ctx_left.dict if ctx_left[k] or ctx_right[k]] if ctx_left is not None else []
    for seq_idx, start, length in _iterate_seq_parts(dataset, used_data_keys, max_seq_length, min_seq_length,
                                                     seq_drop, rng):
        if ctx_keys:
            start, length = dict(start), dict(length)
            for k in ctx_keys:
                if k in start:
                    start[k] -= ctx_left[k]
                    length[k] += ctx_left[k] + ctx_right[k]
        yield seq_idx, start, length


def _iterate_seq_parts(dataset, used_data_keys, max_seq_length, min_seq_length, seq_drop, rng) -> Iterator[tuple]:
    custom = getattr(dataset, "custom_chunking_func", None)
    if custom is not None:
        for seq_idx, start, end in custom(dataset=dataset, seq_idx_start=0, recurrent_net=True,
                                          used_data_keys=used_data_keys):
            start, end = NumbersDict(start), NumbersDict(end)
            keys = list(end.dict) if end.dict else list(dataset.get_seq_length(seq_idx).dict)
            yield seq_idx, {k: int(start[k]) for k in keys}, {k: int(end[k] - start[k]) for k in keys}
        return
    max_len = _as_limit(max_seq_length, "max_seq_length")
    min_len = _as_limit(min_seq_length, "min_seq_length")
    chunk_size, chunk_step = getattr(dataset, "chunk_size", None), getattr(dataset, "chunk_step", None)
    chunking = is_chunking_on(chunk_size)
    keys = list(used_data_keys) if used_data_keys is not None else None
    seq_idx = 0
    while dataset.is_less_than_num_seqs(seq_idx):
        seq_len_nd = dataset.get_seq_length(seq_idx)
        if keys is None:
            seq_len = dict(seq_len_nd.dict)
        else:
            seq_len = {k: int(v) for k, v in seq_len_nd.items() if k in keys}
        if seq_drop and rng is not None and rng.random_sample() < seq_drop:
            seq_idx += 1
            continue
        if _exceeds(seq_len, max_len) or _below(seq_len, min_len):
            print(f"{dataset.name}: skipping seq {seq_idx} with length {seq_len} (max_seq_length "
                  f"{max_seq_length!r}, min_seq_length {min_seq_length!r})", file=log.v5)
            seq_idx += 1
            continue
        if chunking:
            for start, end in iter_chunks(seq_len, chunk_size, chunk_step,
                                          min_chunk_size=getattr(dataset, "min_chunk_size", 0)):
                yield seq_idx, start, {k: end[k] - start[k] for k in seq_len}
        else:
            yield seq_idx, {k: 0 for k in seq_len}, seq_len
        seq_idx += 1


def generate_batches(dataset, *, recurrent_net: bool = True, batch_size: Any = 0, max_seqs: int = -1,
                     max_seq_length: Any = None, max_pad_size: Any = None, min_seq_length: Any = None,
                     seq_drop: float = 0.0, used_data_keys: Optional[Sequence[str]] = None, seed: int = 0,
                     shuffle_batches: bool = False) -> Iterator[Batch]:
    """Yields the :class:`Batch` es of the dataset's current epoch (see the module doc for the rules).

    :param batch_size: int or per-key dict; 0 or None means no frame limit
    :param max_seqs: max sequences per batch; -1 or 0 means no limit
    :param shuffle_batches: build all batches first, then shuffle their order (seeded with ``seed``)
    """
    limit = _as_limit(batch_size, "batch_size")
    pad_limit = _as_limit(max_pad_size, "max_pad_size")
    max_seqs = int(max_seqs or -1)
    rng = np.random.RandomState(seed) if (seq_drop or shuffle_batches) else None

    def _parts() -> Iterator[tuple]:
        return iterate_seq_parts(dataset, used_data_keys, max_seq_length, min_seq_length, seq_drop, rng)

    def _gen() -> Iterator[Batch]:
        batch = GeneratedBatch()
        cur_max: Dict[str, int] = {}
        cur_sum: Dict[str, int] = {}
        for seq_idx, start, length in _parts():
            if _exceeds(length, limit):
                print(f"warning: sequence length ({NumbersDict(length)!r}) larger than limit "
                      f"({NumbersDict(batch_size)!r})", file=log.v4)
            new_max = {k: max(cur_max.get(k, 0), v) for k, v in length.items()}
            num = batch.num_slices + 1
            padded = {k: v * num for k, v in new_max.items()}
            if batch.seqs:
                full = _exceeds(padded, limit) or (0 < max_seqs < num)
                if not full and pad_limit is not None:
                    pad = {k: padded[k] - cur_sum.get(k, 0) - length[k] for k in padded}
                    full = _exceeds(pad, pad_limit)
                if full:
                    yield batch
                    batch, cur_max, cur_sum = GeneratedBatch(), {}, {}
                    new_max = dict(length)
            batch.append_slice(seq_idx, start, length)
            cur_max = new_max
            for k, v in length.items():
                cur_sum[k] = cur_sum.get(k, 0) + v
        if batch.seqs:
            yield batch

    def _gen_framewise() -> Iterator[Batch]:
        # recurrent_net=False: one row; sequences are cut to fill each batch with exactly batch_size frames
        batch, frames = GeneratedBatch(), 0
        for seq_idx, start, length in _parts():
            lead = "data" if "data" in length else max(length, key=length.get)
            max_frames = (limit.get(lead, limit.get("__default__")) or 0) if limit else 0
            start, remaining = dict(start), dict(length)
            first = True
            while first or remaining[lead] > 0:
                first = False
                if batch.seqs and ((max_frames and frames >= max_frames) or 0 < max_seqs <= len(batch.seqs)):
                    yield batch
                    batch, frames = GeneratedBatch(), 0
                take = remaining[lead] if not max_frames else min(remaining[lead], max_frames - frames)
                part = {k: min(take, v) for k, v in remaining.items()}
                batch.append_frames(seq_idx, start, part)
                start = {k: start[k] + part[k] for k in start}
                remaining = {k: remaining[k] - part[k] for k in remaining}
                frames += take
        if batch.seqs:
            yield batch

    if not recurrent_net:
        _gen = _gen_framewise  # noqa: F811
    if shuffle_batches:
        batches = list(_gen())
        rng.shuffle(batches)
        return iter(batches)
    return _gen()


class BatchSetGenerator:
    """Reads batches from ``generator`` on demand (``peek_next_n``/``advance``), as the reference's.

    :param dataset: the dataset the batches refer to (for :meth:`completed_frac`)
    :param generator: iterator of :class:`Batch`
    :param shuffle_batches: shuffle the cached batches on each :meth:`reset`
    :param cache_whole_epoch: keep all batches read, so that :meth:`reset` can replay them
    """

    def __init__(self, dataset, generator: Iterator[Batch], shuffle_batches: bool = False,
                 cache_whole_epoch: bool = True):
        self.dataset = dataset
        self.generator = generator
        self.shuffle_batches = shuffle_batches
        self.cache_whole_epoch = cache_whole_epoch
        self.cache: List[Batch] = []
        self.buffer: List[Batch] = []
        self.last_batch: Optional[Batch] = None
        self.reached_end = False
        self.cache_active = False
        self.current_batch_idx = 0

    def _reset(self) -> None:
        self.buffer = []
        self.last_batch = None
        self.reached_end = False
        self.current_batch_idx = 0

    def reset(self) -> None:
        """Starts another pass over the cached batches (shuffled with ``shuffle_batches``); if the generator
        was not exhausted yet, its remaining batches follow.

        :raises ValueError: without ``cache_whole_epoch``
        """
        if not self.cache_whole_epoch:
            raise ValueError("BatchSetGenerator.reset() needs cache_whole_epoch=True (the batches are not kept)")
        reached_end = self.reached_end
        self._reset()
        self.cache_active = reached_end
        self.buffer = list(self.cache)
        if self.shuffle_batches:
            random.shuffle(self.buffer)

    def _read_next(self) -> bool:
        if self.cache_active or self.reached_end:
            return False
        try:
            batch = next(self.generator)
        except StopIteration:
            self.reached_end = True
            return False
        self.buffer.append(batch)
        if self.cache_whole_epoch:
            self.cache.append(batch)
        return True

    def _read_next_up_to_n(self, n: int) -> None:
        while len(self.buffer) < n:
            if not self._read_next():
                break

    def peek_next_n(self, n: int) -> List[Batch]:
        """Up to ``n`` next batches (fewer at the end), without consuming them."""
        self._read_next_up_to_n(n)
        return self.buffer[:n]

    def advance(self, n: int) -> None:
        """Consumes ``n`` batches (they must have been peeked).

        :raises ValueError: fewer than ``n`` batches are available
        """
        if n > len(self.buffer):
            raise ValueError(f"BatchSetGenerator.advance({n}): only {len(self.buffer)} batches available "
                             f"(peek_next_n first)")
        self.last_batch = self.buffer[n - 1] if n > 0 else self.last_batch
        self.buffer = self.buffer[n:]
        self.current_batch_idx += n

    def has_more(self) -> bool:
        """Whether another batch follows."""
        if self.buffer:
            return True
        return self._read_next()

    def get_current_batch_idx(self) -> int:
        """The number of batches consumed."""
        return self.current_batch_idx

    def completed_frac(self) -> float:
        """The dataset's completed fraction at the first sequence of the last consumed batch (1e-10 before any,
        as the reference)."""
        if self.last_batch is None or self.last_batch.start_seq is None:
            return 1e-10
        seq_idx = self.last_batch.start_seq
        get_complete_frac = getattr(self.dataset, "get_complete_frac", None)
        if get_complete_frac is not None:
            return get_complete_frac(seq_idx)
        num_seqs = self.dataset.num_seqs
        return min(float(seq_idx + 1) / num_seqs, 1.0) if num_seqs else 1e-10

    def __iter__(self) -> Iterator[Batch]:
        while self.has_more():
            batch = self.buffer[0]
            self.advance(1)
            yield batch
