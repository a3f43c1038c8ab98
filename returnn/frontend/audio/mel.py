"""Mel filterbank features: triangular filters equally spaced on the HTK mel scale from ``f_min`` (0) to ``f_max``
(half the sampling rate), on the power spectrum; log with a floor of 1e-10 (as observed in the reference)."""

from __future__ import annotations

import math
from typing import Optional, Tuple, Union

import numpy as np

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["mel_filterbank", "log_mel_filterbank_from_raw", "mel_filterbank_matrix"]


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filterbank_matrix(*, num_bins: int, num_mels: int, sampling_rate: float, fft_length: int, f_min: float,
                          f_max: float) -> np.ndarray:
    """:return: float32 ``[num_bins, num_mels]``, column ``m``: the triangle from mel point ``m`` over ``m + 1`` to
    ``m + 2`` of ``num_mels + 2`` points, evaluated at the bin frequencies ``k * sampling_rate / fft_length``"""
    freqs = np.arange(num_bins) * sampling_rate / fft_length
    hz = _mel_to_hz(np.linspace(_hz_to_mel(np.asarray(f_min)), _hz_to_mel(np.asarray(f_max)), num_mels + 2))
    out = np.zeros((num_bins, num_mels), dtype="float64")
    for m in range(num_mels):
        left, center, right = hz[m], hz[m + 1], hz[m + 2]
        out[:, m] = np.maximum(0.0, np.minimum((freqs - left) / (center - left), (right - freqs) / (right - center)))
    return out.astype("float32")


def mel_filterbank(x: Tensor, *, in_dim: Dim, out_dim: Dim, sampling_rate: Union[int, float],
                   fft_length: Optional[int] = None, f_min: Optional[Union[int, float]] = None,
                   f_max: Optional[Union[int, float]] = None) -> Tensor:
    """:return: ``x`` (a power spectrum over ``in_dim``, ``fft_length // 2 + 1`` bins) mapped to ``out_dim`` mel
    bands"""
    from returnn.frontend.const import convert_to_tensor
    from returnn.frontend.matmul import matmul
    _utils.check_dims("audio.mel_filterbank", x, [in_dim])
    fft_length = fft_length or 2 * (in_dim.dimension - 1)
    mat = mel_filterbank_matrix(num_bins=in_dim.dimension, num_mels=out_dim.dimension, sampling_rate=sampling_rate,
                                fft_length=fft_length, f_min=f_min or 0.0,
                                f_max=sampling_rate / 2.0 if f_max is None else f_max)
    w = convert_to_tensor(mat.astype(x.dtype), dims=[in_dim, out_dim], _backend=_utils.backend_of(x))
    out = matmul(x, w, reduce=in_dim)
    return _utils.make_tensor("mel_filterbank", out.dims, out.dtype, out.raw_tensor, feature_dim=out_dim)


def log_mel_filterbank_from_raw(raw_audio: Tensor, *, in_spatial_dim: Dim, out_dim: Dim, sampling_rate: int = 16000,
                                window_len: float = 0.025, step_len: float = 0.01, n_fft: Optional[int] = None,
                                log_base: Union[int, float] = 10) -> Tuple[Tensor, Dim]:
    """Log mel features of raw audio: STFT (window ``window_len`` s, step ``step_len`` s, ``n_fft`` default the next
    power of two of the window) → power → :func:`mel_filterbank` → ``log(max(x, 1e-10))`` in ``log_base``.

    :return: (``[..., out_spatial_dim, out_dim]``, out_spatial_dim)
    """
    from returnn.frontend.math_ import abs as abs_, log, maximum, square
    from returnn.frontend.math_ import cast
    from returnn.frontend.signal import stft
    if raw_audio.feature_dim is not None and raw_audio.feature_dim.dimension == 1 and \
            raw_audio.feature_dim != in_spatial_dim:
        from returnn.frontend.array_ import squeeze
        raw_audio = squeeze(raw_audio, axis=raw_audio.feature_dim)
    frame_length, frame_step = int(window_len * sampling_rate), int(step_len * sampling_rate)
    if frame_length <= 0 or frame_step <= 0:
        raise FrontendError("audio.log_mel_filterbank_from_raw", "window_len and step_len must give >= 1 samples")
    n_fft = n_fft or 2 ** int(math.ceil(math.log2(frame_length)))
    spec, out_spatial, freq = stft(raw_audio, in_spatial_dim=in_spatial_dim, frame_step=frame_step,
                                   frame_length=frame_length, fft_length=n_fft)
    power = square(cast(abs_(spec), raw_audio.dtype))
    mel = mel_filterbank(power, in_dim=freq, out_dim=out_dim, sampling_rate=sampling_rate, fft_length=n_fft)
    out = log(maximum(mel, 1e-10))
    if log_base != math.e:
        out = out * (1.0 / math.log(log_base))
    return _utils.make_tensor("log_mel", out.dims, out.dtype, out.raw_tensor, feature_dim=out_dim), out_spatial
