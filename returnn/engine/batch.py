"""Mini-batch descriptions with the reference's public API (``returnn.engine.batch``, legacy ``EngineBatch``):
:class:`BatchSeqCopyPart`, :class:`Batch` and :class:`BatchSetGenerator`.

They subclass the classes the datasets build internally (:mod:`returnn.datasets.batching`), so batches made
by user code with this API can be fed by the engine like the dataset's own. Behaviour observed from the
reference:

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
from typing import Any, Iterator, List, Optional, Union

from returnn.datasets import batching
from returnn.util.numbers_dict import NumbersDict


class BatchSeqCopyPart(batching.BatchSeqCopyPart):
    """Frames ``[seq_start_frame, seq_end_frame)`` (per key) of sequence ``seq_idx`` go to row ``batch_slice``
    of the batch, starting at time ``batch_frame_offset`` (frame values: int or :class:`NumbersDict`)."""

    __slots__ = ()

    def __init__(self, seq_idx: int, seq_start_frame: Any, seq_end_frame: Any, batch_slice: int,
                 batch_frame_offset: Any):
        super().__init__(seq_idx=seq_idx, seq_start_frame=NumbersDict(seq_start_frame),
                         seq_end_frame=NumbersDict(seq_end_frame), batch_slice=batch_slice,
                         batch_frame_offset=NumbersDict(batch_frame_offset))

    def __repr__(self) -> str:
        return (f"<BatchSeqCopyPart seq_idx={self.seq_idx} seq_start_frame={self.seq_start_frame!r} "
                f"seq_end_frame={self.seq_end_frame!r} batch_slice={self.batch_slice} "
                f"batch_frame_offset={self.batch_frame_offset!r}>")


class Batch(batching.Batch):
    """One mini-batch: ``seqs`` (:class:`BatchSeqCopyPart` s), ``num_slices`` (rows) and
    ``max_num_frames_per_slice`` (padded time length per key)."""

    def __init__(self):
        super().__init__()
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
        """Adds frames ``[seq_start_frame, seq_start_frame + length)`` of ``seq_idx`` as a new row."""
        self.max_num_frames_per_slice, self.num_slices = self.try_sequence_as_slice(length)
        self.seqs.append(BatchSeqCopyPart(seq_idx=seq_idx, seq_start_frame=seq_start_frame,
                                          seq_end_frame=length + seq_start_frame, batch_slice=self.num_slices - 1,
                                          batch_frame_offset=0))

    def add_frames(self, seq_idx: int, seq_start_frame: Any, length: Any, frame_dim_corresponds: bool = True
                   ) -> None:
        """Appends frames ``[seq_start_frame, seq_start_frame + length)`` of ``seq_idx`` to row 0, after the frames
        already there.

        :param frame_dim_corresponds: all keys share the time axis: the offset is the largest length so far
            (for every key); otherwise each key has its own offset
        """
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


class BatchSetGenerator(batching.BatchSetGenerator):
    """Reads batches from ``generator`` on demand (``peek_next_n``/``advance``), as the reference's.

    :param dataset: the dataset the batches refer to (for :meth:`completed_frac`)
    :param generator: iterator of :class:`Batch`
    :param shuffle_batches: shuffle the cached batches on each :meth:`reset`
    :param cache_whole_epoch: keep all batches read, so that :meth:`reset` can replay them
    """

    def __init__(self, dataset, generator: Iterator[Batch], shuffle_batches: bool = False,
                 cache_whole_epoch: bool = True):
        super().__init__(dataset, generator)
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
