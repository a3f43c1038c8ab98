"""``Stats``: mean, standard deviation, min and max over the frames of many sequences, collected one sequence at a
time (as the reference's ``returnn.util.basic.Stats``, used by ``tools/dump-forward-stats.py``)."""

from __future__ import annotations

from typing import Callable, Optional, TextIO

import numpy


class Stats:
    """Collects sequences of frames: ``collect(data)`` with ``data`` of shape ``(time, ...)`` adds one sequence of
    ``time`` frames, each frame of shape ``data.shape[1:]`` (a 1-D ``data`` is ``time`` scalar frames). Sums are
    kept in float64 (chunks merged exactly, Chan et al.); the statistics come back in the dtype of the first
    collected data.

    :param format_str: function array -> text for the numbers of :meth:`dump` (default ``str``)
    """

    def __init__(self, *, format_str: Optional[Callable[[numpy.ndarray], str]] = None):
        self.format_str = format_str or str
        self.num_seqs = 0
        self.total_data_len = 0
        self._dtype = None
        self._mean: Optional[numpy.ndarray] = None
        self._m2: Optional[numpy.ndarray] = None  # sum of squared deviations from the mean
        self._min: Optional[numpy.ndarray] = None
        self._max: Optional[numpy.ndarray] = None

    @property
    def num_frames(self) -> int:
        """Frames collected so far (same as :attr:`total_data_len`)."""
        return self.total_data_len

    def collect(self, data: numpy.ndarray) -> None:
        """Adds one sequence: ``data`` of shape ``(time, ...)``; a sequence of 0 frames is not counted.

        :raises ValueError: a scalar, or frames of another shape than the earlier ones
        """
        data = numpy.asarray(data)
        if data.ndim == 0:
            raise ValueError("Stats.collect: expected data of shape (time, ...), got a scalar")
        n = data.shape[0]
        if n == 0:
            return
        if self._mean is not None and data.shape[1:] != self._mean.shape:
            raise ValueError(f"Stats.collect: expected frames of shape {self._mean.shape}, got data of shape "
                             f"{data.shape}")
        if self._dtype is None:
            self._dtype = data.dtype if numpy.issubdtype(data.dtype, numpy.floating) else numpy.dtype("float64")
        data64 = data.astype("float64")
        chunk_mean = data64.mean(axis=0)
        chunk_m2 = ((data64 - chunk_mean) ** 2).sum(axis=0)
        chunk_min, chunk_max = data64.min(axis=0), data64.max(axis=0)
        self.num_seqs += 1
        if self._mean is None:
            self.total_data_len, self._mean, self._m2 = n, chunk_mean, chunk_m2
            self._min, self._max = chunk_min, chunk_max
            return
        total = self.total_data_len + n
        delta = chunk_mean - self._mean
        self._mean = self._mean + delta * (n / total)
        self._m2 = self._m2 + chunk_m2 + delta ** 2 * (self.total_data_len * n / total)
        self._min = numpy.minimum(self._min, chunk_min)
        self._max = numpy.maximum(self._max, chunk_max)
        self.total_data_len = total

    def _check(self) -> None:
        if self._mean is None:
            raise ValueError("Stats: no frames collected")

    def _out(self, value: numpy.ndarray) -> numpy.ndarray:
        return numpy.asarray(value, dtype=self._dtype)

    def get_mean(self) -> numpy.ndarray:
        """Mean per frame position, shape of one frame. :raises ValueError: nothing collected"""
        self._check()
        return self._out(self._mean)

    def get_std_dev(self) -> numpy.ndarray:
        """Population standard deviation (``numpy.std``), shape of one frame. :raises ValueError: nothing
        collected"""
        self._check()
        return self._out(numpy.sqrt(self._m2 / self.total_data_len))

    def get_min(self) -> numpy.ndarray:
        """Minimum per frame position. :raises ValueError: nothing collected"""
        self._check()
        return self._out(self._min)

    def get_max(self) -> numpy.ndarray:
        """Maximum per frame position. :raises ValueError: nothing collected"""
        self._check()
        return self._out(self._max)

    def dump(self, output_file_prefix: Optional[str] = None, stream: Optional[TextIO] = None,
             stream_prefix: str = "") -> None:
        """Prints, as the reference (``stream_prefix`` before the first line only)::

            <prefix>Stats:
              20 seqs, 1016 total frames, 50.800000 average frames
              Mean: [...]
              Std dev: [...]
              Min/max: [...] / [...]

        (``  0 seqs`` and ``  (No data)`` when nothing was collected). With ``output_file_prefix`` it also writes
        ``<prefix>.mean.txt``, ``.std_dev.txt``, ``.min.txt``, ``.max.txt`` (``numpy.savetxt``, one number a line)
        and ``<prefix>.info.txt`` (``num_seqs``, ``total_data_len``), and says so in three lines.

        :param stream: default ``returnn.log.log.v1``
        """
        if stream is None:
            from returnn.log import log
            stream = log.v1
        print(f"{stream_prefix}Stats:", file=stream)
        if self._mean is None:
            print("  0 seqs", file=stream)
            print("  (No data)", file=stream)
            return
        print("  %i seqs, %i total frames, %f average frames" % (
            self.num_seqs, self.total_data_len, self.total_data_len / self.num_seqs), file=stream)
        fmt = self.format_str
        print(f"  Mean: {fmt(self.get_mean())}", file=stream)
        print(f"  Std dev: {fmt(self.get_std_dev())}", file=stream)
        print(f"  Min/max: {fmt(self.get_min())} / {fmt(self.get_max())}", file=stream)
        if output_file_prefix:
            print(f"  Write mean/std-dev to {output_file_prefix}.(mean|std_dev).txt.", file=stream)
            numpy.savetxt(f"{output_file_prefix}.mean.txt", numpy.atleast_1d(self.get_mean()))
            numpy.savetxt(f"{output_file_prefix}.std_dev.txt", numpy.atleast_1d(self.get_std_dev()))
            print(f"  Write min/max to {output_file_prefix}.(min|max).txt.", file=stream)
            numpy.savetxt(f"{output_file_prefix}.min.txt", numpy.atleast_1d(self.get_min()))
            numpy.savetxt(f"{output_file_prefix}.max.txt", numpy.atleast_1d(self.get_max()))
            print(f"  Write extra info to {output_file_prefix}.info.txt.", file=stream)
            with open(f"{output_file_prefix}.info.txt", "w") as f:
                f.write('{\n"num_seqs": %i,\n"total_data_len": %i,\n}\n' % (self.num_seqs, self.total_data_len))
