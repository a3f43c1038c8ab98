"""``rf.audio.mel_filterbank`` (a power spectrum to mel bands) and ``rf.audio.log_mel_filterbank_from_raw`` (raw
audio to log mel features: STFT, power, mel filterbank, log)."""

from __future__ import annotations

from typing import Optional, Tuple, Union

import math

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor
from returnn.util.math import next_power_of_two
from returnn.util.signal import mel_filterbank_matrix

__all__ = ["mel_filterbank", "log_mel_filterbank_from_raw"]


def mel_filterbank(x: Tensor, *, in_dim: Dim, out_dim: Dim, sampling_rate: Union[int, float],
                   fft_length: Optional[int] = None, f_min: Optional[Union[int, float]] = None,
                   f_max: Optional[Union[int, float]] = None) -> Tensor:
    """Applies triangular mel filters (HTK mel scale, peak 1, corners equally spaced in mel between ``f_min`` and
    ``f_max``; the same matrix as the ``mel_filterbank`` layer) to a spectrum over ``in_dim``.

    :param x: float, a power (or magnitude) spectrum with ``in_dim`` = ``fft_length // 2 + 1`` frequency bins
    :param out_dim: the mel bands (its size is the number of filters)
    :param sampling_rate: of the signal, in Hz
    :param fft_length: default ``2 * (in_dim - 1)``
    :param f_min: default 0
    :param f_max: default ``sampling_rate / 2``
    :return: float32 (x's float dtype): x's dims without ``in_dim``, then ``out_dim``
    :raises FrontendError: ``in_dim`` not in ``x``, ``in_dim`` not ``fft_length // 2 + 1``, ``out_dim`` not static
    """
    from returnn.frontend.matmul import matmul
    call = "audio.mel_filterbank"
    _utils.check_dims(call, x, [in_dim])
    if in_dim.dimension is None or out_dim.dimension is None:
        raise FrontendError(call, "in_dim and out_dim need static sizes", got=(in_dim, out_dim))
    if fft_length is None:
        fft_length = 2 * (in_dim.dimension - 1)
    if fft_length // 2 + 1 != in_dim.dimension:
        raise FrontendError(call, f"in_dim must have fft_length // 2 + 1 = {fft_length // 2 + 1} bins "
                                  f"(fft_length={fft_length})", got=in_dim)
    matrix = mel_filterbank_matrix(sampling_rate, fft_length, out_dim.dimension, f_min, f_max)
    backend = _utils.backend_of(x)
    dtype = x.dtype if x.dtype.startswith("float") else "float32"
    filters = _utils.make_tensor("mel_filterbank_matrix", [in_dim, out_dim], dtype,
                                 backend.convert(matrix.astype(dtype), dtype))
    if x.dtype != dtype:
        from returnn.frontend.math_ import cast
        x = cast(x, dtype)
    return matmul(x, filters, reduce=in_dim)


def log_mel_filterbank_from_raw(raw_audio: Tensor, *, in_spatial_dim: Dim, out_dim: Dim, sampling_rate: int = 16_000,
                                window_len: float = 0.025, step_len: float = 0.010, n_fft: Optional[int] = None,
                                log_base: Union[int, float] = 10) -> Tuple[Tensor, Dim]:
    """Log mel filterbank features of raw audio, as the reference computes them: :func:`rf.stft` with frames of
    ``int(window_len * sampling_rate)`` samples every ``int(step_len * sampling_rate)`` samples, FFT size ``n_fft``
    (default the next power of two of the frame length), the power ``|X|^2``, :func:`mel_filterbank` with
    ``out_dim`` filters, then ``log(max(mel, 1e-10)) / log(log_base)``.

    :param raw_audio: float ``[..., in_spatial_dim]`` (samples), or with a size-1 feature dim (dropped)
    :return: (float32 ``[..., out_spatial_dim, out_dim]``, the frames dim ``out_spatial_dim``: lengths
        ``max(0, ceil((T - (frame_len - 1)) / frame_step))``)
    :raises FrontendError: ``in_spatial_dim`` not in ``raw_audio``, a window shorter than one sample
    """
    from returnn.frontend.array_ import squeeze
    from returnn.frontend.math_ import abs as abs_, log, maximum, square
    from returnn.frontend.signal import stft
    call = "audio.log_mel_filterbank_from_raw"
    _utils.check_dims(call, raw_audio, [in_spatial_dim])
    if raw_audio.feature_dim is not None and raw_audio.feature_dim.dimension == 1 \
            and raw_audio.feature_dim != in_spatial_dim:
        raw_audio = squeeze(raw_audio, axis=raw_audio.feature_dim)
    frame_length = int(window_len * sampling_rate)
    frame_step = int(step_len * sampling_rate)
    if frame_length < 1 or frame_step < 1:
        raise FrontendError(call, "window_len and step_len must cover at least one sample each",
                            got=f"window_len={window_len}, step_len={step_len}, sampling_rate={sampling_rate}")
    if n_fft is None:
        n_fft = next_power_of_two(frame_length)
    spec, out_spatial_dim, freq_dim = stft(raw_audio, in_spatial_dim=in_spatial_dim, frame_step=frame_step,
                                           frame_length=frame_length, fft_length=n_fft)
    power = square(abs_(spec))
    mel = mel_filterbank(power, in_dim=freq_dim, out_dim=out_dim, sampling_rate=sampling_rate, fft_length=n_fft)
    out = log(maximum(mel, 1e-10))
    if log_base != math.e:
        out = out * (1.0 / math.log(log_base))
    return _utils.make_tensor(call, out.dims, out.dtype, out.raw_tensor, feature_dim=out_dim), out_spatial_dim
