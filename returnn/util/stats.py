"""``Stats``: running mean and standard deviation per feature dimension over many frames, collected in chunks."""

from __future__ import annotations

from typing import Optional, TextIO

import numpy


class Stats:
    """Collects frames of shape ``(time, dim)`` (or ``(dim,)``, one frame) and gives the mean and standard
    deviation per dimension over all frames seen, in float64 (chunks are merged exactly, Chan et al.).

    :param format_str: ``%``-format for the numbers of :meth:`dump` (default ``%.4f``)
    """

    def __init__(self, *, format_str: Optional[str] = None):
        self.format_str = format_str or "%.4f"
        self.num_frames = 0
        self.mean: Optional[numpy.ndarray] = None
        self.m2: Optional[numpy.ndarray] = None  # sum of squared deviations from the mean

    def collect(self, data: numpy.ndarray) -> None:
        """Adds the frames ``data`` (``(time, dim)``, or ``(dim,)`` for one frame).

        :raises ValueError: ``data`` has another rank, or another dim than earlier frames
        """
        data = numpy.asarray(data, dtype="float64")
        if data.ndim == 1:
            data = data[None, :]
        if data.ndim != 2:
            raise ValueError(f"Stats.collect: expected data of shape (time, dim), got shape {data.shape}")
        n = data.shape[0]
        if n == 0:
            return
        if self.mean is not None and data.shape[1] != self.mean.shape[0]:
            raise ValueError(f"Stats.collect: expected dim {self.mean.shape[0]}, got shape {data.shape}")
        chunk_mean = data.mean(axis=0)
        chunk_m2 = ((data - chunk_mean) ** 2).sum(axis=0)
        if self.mean is None:
            self.num_frames, self.mean, self.m2 = n, chunk_mean, chunk_m2
            return
        total = self.num_frames + n
        delta = chunk_mean - self.mean
        self.mean = self.mean + delta * (n / total)
        self.m2 = self.m2 + chunk_m2 + delta ** 2 * (self.num_frames * n / total)
        self.num_frames = total

    def _check(self) -> None:
        if self.mean is None:
            raise ValueError("Stats: no frames collected")

    def get_mean(self) -> numpy.ndarray:
        """Mean per dimension, shape ``(dim,)``. :raises ValueError: nothing collected"""
        self._check()
        return self.mean

    def get_std_dev(self) -> numpy.ndarray:
        """Population standard deviation per dimension (``numpy.std``), shape ``(dim,)``.
        :raises ValueError: nothing collected"""
        self._check()
        return numpy.sqrt(self.m2 / self.num_frames)

    def dump(self, output_file_prefix: Optional[str] = None, stream: Optional[TextIO] = None,
             stream_prefix: str = "") -> None:
        """Prints frame count, mean and std-dev to ``stream`` (default ``returnn.log.log.v1``); with
        ``output_file_prefix``, also writes ``<prefix>.mean.txt`` and ``<prefix>.std_dev.txt`` (one number a line)."""
        if stream is None:
            from returnn.log import log
            stream = log.v1
        if self.mean is None:
            print(f"{stream_prefix}Stats: no data collected", file=stream)
            return
        fmt = lambda arr: " ".join(self.format_str % x for x in arr)  # noqa: E731
        print(f"{stream_prefix}Stats: {self.num_frames} frames, dim {self.mean.shape[0]}", file=stream)
        print(f"{stream_prefix}  mean: {fmt(self.get_mean())}", file=stream)
        print(f"{stream_prefix}  std dev: {fmt(self.get_std_dev())}", file=stream)
        if output_file_prefix:
            numpy.savetxt(f"{output_file_prefix}.mean.txt", self.get_mean())
            numpy.savetxt(f"{output_file_prefix}.std_dev.txt", self.get_std_dev())
