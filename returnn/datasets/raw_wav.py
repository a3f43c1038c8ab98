"""``RawWavDataset``: WAV files cut into frames of raw samples, at the reference's path
``returnn.datasets.raw_wav``.

``listFile``: one WAV path per line. Each sequence is one file: ``"data"`` ``float32 [frames, frameLength]``,
the 16-bit sample values as they are (not scaled), frame ``i`` = samples ``[i * frameShift, i * frameShift +
frameLength)``, ``ceil((N - frameLength) / frameShift) + 1`` frames, the last ones zero-padded (observed from
the reference). Tags ``seq-<i>``. As the reference, ``num_outputs`` must be given when there are no targets.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from returnn.errors import DataFileError, DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset


@register_dataset
class RawWavDataset(Dataset):
    """Raw sample frames of WAV files (see the module doc).

    :param listFile: text file with one WAV path per line
    :param frameLength: samples per frame
    :param frameShift: samples between frame starts
    :param num_outputs: the reference's required placeholder for the (absent) targets: int or ``(dim, ndim)``
    :raises DatasetArgError: no ``num_outputs``
    :raises DataFileError: an unreadable list or WAV file (naming it)
    """

    def __init__(self, listFile: str, frameLength: int, frameShift: int, num_outputs: Any = None, **kwargs):
        super().__init__(**kwargs)
        if num_outputs is None:
            raise DatasetArgError("If no output data is used, num_outputs needs to be set for RawWavDataset")
        try:
            with open(listFile, encoding="utf8") as f:
                self._files = [line.strip() for line in f if line.strip()]
        except OSError as exc:
            raise DataFileError(listFile, f"RawWavDataset option 'listFile': cannot read: {exc}") from None
        self.frame_length, self.frame_shift = int(frameLength), int(frameShift)
        self.num_inputs = self.frame_length
        self.num_outputs = {"data": (self.frame_length, 2)}
        self._declared_outputs = num_outputs

    def get_total_num_seqs(self) -> int:
        return len(self._files)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return "seq-%i" % corpus_idx

    def _frames(self, num_samples: int) -> int:
        if num_samples <= self.frame_length:
            return 1
        return int(math.ceil((num_samples - self.frame_length) / self.frame_shift)) + 1

    def _read(self, corpus_idx: int) -> np.ndarray:
        import soundfile

        path = self._files[corpus_idx]
        try:
            samples, _ = soundfile.read(path, dtype="int16", always_2d=False)
        except (RuntimeError, OSError, soundfile.LibsndfileError) as exc:
            raise DataFileError(path, f"RawWavDataset: sequence 'seq-{corpus_idx}': cannot read the audio: {exc}") \
                from None
        if samples.ndim > 1:
            samples = samples[:, 0]
        return samples.astype(np.float32)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        import soundfile

        return self._frames(soundfile.info(self._files[corpus_idx]).frames)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        samples = self._read(corpus_idx)
        num = self._frames(len(samples))
        padded = np.zeros((num - 1) * self.frame_shift + self.frame_length, dtype=np.float32)
        padded[:min(len(samples), len(padded))] = samples[:len(padded)]
        idx = np.arange(num)[:, None] * self.frame_shift + np.arange(self.frame_length)[None, :]
        return DatasetSeq(corpus_idx, {"data": padded[idx]}, seq_tag="seq-%i" % corpus_idx)
