"""What ``tools/analyze-dataset-batches.py`` does: builds the mini-batches of one epoch of a dataset, as training
would with the config's batching options, and reports how full they are.

Per batch (printed at verbosity 5)::

    4/20 (20.00%) (0:00:00), batch 4, num seqs 2, frames NumbersDict({'data': 90, ...}), used NumbersDict(
    {'data': 71, ...}) (NumbersDict({'data': 0.788..., ...}))

that is: the batch's first sequence index / the number of sequences, the dataset's completed fraction at the
previous batch's first sequence (0 for the first batch) and the estimated remaining time, the batch index,
the number of rows, the padded frames (rows * longest row) and the real frames per data key, and their ratio.
The summary (verbosity 3) gives the number of batches and rows, the rows per batch (:class:`ValueStats`) and the
padded / real frames per key. ``endseq`` stops before the first batch that starts after that sequence.
"""

from __future__ import annotations

import time
from typing import Any, Dict, Optional, TextIO

from returnn.datasets.tool_util import ValueStats
from returnn.util.numbers_dict import NumbersDict
from returnn.util.timefmt import hms


def _plain(frames: Any) -> Dict[str, Any]:
    """``{key: value}`` of a :class:`NumbersDict` (its broadcast value dropped)."""
    return dict(NumbersDict(frames).dict)


class BatchAnalysis:
    """The totals of :func:`analyze_batches`."""

    def __init__(self):
        self.num_batches = 0
        self.num_seqs = 0
        self.more_seqs = False
        self.batch_num_seqs = ValueStats()
        self.frames: Dict[str, Any] = {}
        self.used: Dict[str, Any] = {}

    def add(self, num_seqs: int, frames: Dict[str, Any], used: Dict[str, Any]) -> None:
        """Adds one batch of ``num_seqs`` rows with padded ``frames`` and real ``used`` frames per key."""
        self.num_batches += 1
        self.num_seqs += num_seqs
        self.batch_num_seqs.collect(num_seqs)
        for key, value in frames.items():
            self.frames[key] = self.frames.get(key, 0) + value
        for key, value in used.items():
            self.used[key] = self.used.get(key, 0) + value

    def dump(self, stream: TextIO) -> None:
        """Prints the summary lines."""
        print(f"Num batches (steps): {self.num_batches}", file=stream)
        print(f"Num seqs: {self.num_seqs}", file=stream)
        self.batch_num_seqs.dump(stream, prefix="Batch num seqs ")
        for key, total in self.frames.items():
            used = self.used.get(key, 0)
            print(f"Data key {key!r}:", file=stream)
            print(f"  Num frames: {total}", file=stream)
            print(f"  Num used frames: {used}", file=stream)
            print(f"  Fraction used frames: {used / total if total else 0.0}", file=stream)


def analyze_batches(dataset, batch_kwargs: Dict[str, Any], *, epoch: int = 1, endseq: int = -1,
                    stream: TextIO, batch_stream: Optional[TextIO] = None) -> BatchAnalysis:
    """Builds the batches of ``epoch`` of ``dataset`` and prints each to ``batch_stream`` (if given), then the
    end line and the summary to ``stream``.

    :param batch_kwargs: keyword args of ``Dataset.generate_batches`` (``batch_size``, ``max_seqs``, ...)
    :param endseq: the last sequence index whose batch is analysed (-1: all)
    :return: the totals
    """
    dataset.init_seq_order(epoch=epoch)
    batches = dataset.generate_batches(**batch_kwargs)
    result = BatchAnalysis()
    start_time = time.time()
    while batches.has_more():
        batch = batches.peek_next_n(1)[0]
        start_seq = batch.start_seq
        if 0 <= endseq < start_seq:
            result.more_seqs = True
            break
        frames = _plain(batch.get_all_slices_num_frames())
        used = _plain(batch.get_total_num_frames())
        if batch_stream is not None:
            frac = batches.completed_frac()  # at the previous batch's first sequence; 1e-10 before any
            remaining = (time.time() - start_time) / frac * (1.0 - frac)
            ratio = {k: used.get(k, 0) / v if v else 0.0 for k, v in frames.items()}
            num_seqs = dataset.num_seqs if dataset.num_seqs is not None else "?"
            print(f"{start_seq}/{num_seqs} ({frac * 100:.2f}%) ({hms(remaining)}), batch {result.num_batches}, "
                  f"num seqs {batch.num_slices}, frames {NumbersDict(frames)!r}, used {NumbersDict(used)!r} "
                  f"({NumbersDict(ratio)!r})", file=batch_stream)
        result.add(batch.num_slices, frames, used)
        batches.advance(1)
    print(f"Done. Total time {hms(time.time() - start_time)}. More seqs which we did not dumped: "
          f"{result.more_seqs}", file=stream)
    print(f"Dataset epoch {epoch}, order {dataset.seq_ordering!r}.", file=stream)
    result.dump(stream)
    return result
