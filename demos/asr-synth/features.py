"""Audio helpers of the synthesized-speech demo: WAV parsing, resampling, batched log-mel features (tf.signal).

Feature definition (fixed; the demo configs depend on the dim):

- input: mono waveform, float32 in [-1, 1], :data:`SAMPLE_RATE` = 16 kHz
- frames: 25 ms Hann window (400 samples), 10 ms shift (160 samples), no padding at the end, so
  ``num_frames(n) = 1 + (n - 400) // 160`` (0 when ``n < 400``); FFT size 512 → 257 bins
- :data:`NUM_MEL` = 40 mel bands (HTK mel scale as ``tf.signal.linear_to_mel_weight_matrix``, 20–7600 Hz)
  over the power spectrum, then ``log(mel + 1e-6)``

The mean/variance normalization is applied by the caller (``prepare.py``) with training-set statistics.
"""

from __future__ import annotations

import struct
from typing import Sequence

import numpy as np

SAMPLE_RATE = 16000
FRAME_LENGTH = 400
FRAME_STEP = 160
FFT_LENGTH = 512
NUM_MEL = 40
MEL_LOWER_HZ = 20.0
MEL_UPPER_HZ = 7600.0
LOG_OFFSET = 1e-6


class WavFormatError(ValueError):
    """Bytes that are not a 16-bit PCM mono RIFF/WAVE stream."""


def parse_wav_bytes(data: bytes) -> tuple[np.ndarray, int]:
    """
    Parse a 16-bit PCM mono WAV as written by ``espeak-ng --stdout`` (whose size fields may be placeholders,
    so the data chunk is taken to run to the end of the bytes).

    :param data: the whole file content
    :return: (samples float32 [N] scaled to [-1, 1), sample rate in Hz)
    :raises WavFormatError: not RIFF/WAVE, not PCM 16-bit mono, or no ``data`` chunk
    """
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise WavFormatError(f"not a RIFF/WAVE stream (starts with {data[:12]!r})")
    pos = 12
    sample_rate = None
    while pos + 8 <= len(data):
        chunk_id = data[pos : pos + 4]
        (size,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        if chunk_id == b"fmt ":
            fmt, channels, sample_rate, _, _, bits = struct.unpack("<HHIIHH", data[pos + 8 : pos + 24])
            if fmt != 1 or channels != 1 or bits != 16:
                raise WavFormatError(f"expected PCM 16-bit mono, found format {fmt}, {channels} ch, {bits} bit")
        elif chunk_id == b"data":
            if sample_rate is None:
                raise WavFormatError("'data' chunk before 'fmt ' chunk")
            raw = data[pos + 8 :]
            raw = raw[: len(raw) // 2 * 2]
            return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0, sample_rate
        pos += 8 + size + (size & 1)
    raise WavFormatError("no 'data' chunk found")


def resample(x: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    """
    Band-limited resampling of a whole signal by FFT (ideal low-pass at the lower Nyquist frequency).

    :param x: float32 [N]
    :return: float32 [round(N * rate_out / rate_in)]
    """
    if rate_in == rate_out or len(x) == 0:
        return x.astype(np.float32)
    n_out = int(round(len(x) * rate_out / rate_in))
    spec = np.fft.rfft(x.astype(np.float64))
    n_bins = n_out // 2 + 1
    if n_bins <= len(spec):
        spec = spec[:n_bins]
    else:
        spec = np.concatenate([spec, np.zeros(n_bins - len(spec), dtype=spec.dtype)])
    return (np.fft.irfft(spec, n_out) * (n_out / len(x))).astype(np.float32)


def num_frames(num_samples: int) -> int:
    """:return: number of feature frames for ``num_samples`` samples (see module docstring)"""
    return 0 if num_samples < FRAME_LENGTH else 1 + (num_samples - FRAME_LENGTH) // FRAME_STEP


class LogMelExtractor:
    """
    Batched log-mel computation in its own TF graph and session (works whether or not eager execution is
    enabled in the process).

    :param batch_size: utterances per ``session.run``; utterances are sorted by length into batches so
        padding stays small
    :param num_threads: TF intra-/inter-op threads (None: TF default)
    """

    def __init__(self, batch_size: int = 32, num_threads: int | None = None):
        import tensorflow as tf

        self.batch_size = batch_size
        self._graph = tf.Graph()
        with self._graph.as_default():
            self._wave = tf.compat.v1.placeholder(tf.float32, [None, None], name="wave")
            stft = tf.signal.stft(
                self._wave, FRAME_LENGTH, FRAME_STEP, FFT_LENGTH, window_fn=tf.signal.hann_window, pad_end=False
            )
            power = tf.math.real(stft * tf.math.conj(stft))  # [B, T, 257]
            mel_matrix = tf.signal.linear_to_mel_weight_matrix(
                NUM_MEL, FFT_LENGTH // 2 + 1, SAMPLE_RATE, MEL_LOWER_HZ, MEL_UPPER_HZ
            )
            self._log_mel = tf.math.log(tf.tensordot(power, mel_matrix, axes=1) + LOG_OFFSET)  # [B, T, 40]
        session_config = tf.compat.v1.ConfigProto()
        if num_threads:
            session_config.intra_op_parallelism_threads = num_threads
            session_config.inter_op_parallelism_threads = num_threads
        self._session = tf.compat.v1.Session(graph=self._graph, config=session_config)

    def __call__(self, waves: Sequence[np.ndarray]) -> list[np.ndarray]:
        """
        :param waves: float32 [N_i] each, 16 kHz
        :return: float32 [num_frames(N_i), NUM_MEL] each, in the input order
        """
        out: list[np.ndarray | None] = [None] * len(waves)
        order = sorted(range(len(waves)), key=lambda i: len(waves[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            max_len = max(FRAME_LENGTH, max(len(waves[i]) for i in idx))
            batch = np.zeros((len(idx), max_len), dtype=np.float32)
            for row, i in enumerate(idx):
                batch[row, : len(waves[i])] = waves[i]
            feats = self._session.run(self._log_mel, {self._wave: batch})
            for row, i in enumerate(idx):
                out[i] = np.ascontiguousarray(feats[row, : num_frames(len(waves[i]))], dtype=np.float32)
        return out  # type: ignore[return-value]

    def close(self):
        """Release the TF session."""
        self._session.close()
