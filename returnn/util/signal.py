"""Signal-processing helpers in numpy, shared by the layer engine (``mel_filterbank`` layer) and
``returnn.frontend.audio``: the mel filterbank matrix."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["mel_filterbank_matrix"]


def mel_filterbank_matrix(sampling_rate: float, fft_size: int, nr_of_filters: int, f_min: Optional[float] = None,
                          f_max: Optional[float] = None) -> np.ndarray:
    """:return: float32 ``[fft_size // 2 + 1, nr_of_filters]``"""
    def to_mel(f: Any) -> Any:
        return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)

    f_min = 0.0 if f_min is None else f_min
    f_max = sampling_rate / 2.0 if f_max is None else f_max
    corners = 700.0 * (10 ** (np.linspace(to_mel(f_min), to_mel(f_max), nr_of_filters + 2) / 2595.0) - 1.0)
    bins = np.arange(fft_size // 2 + 1) * sampling_rate / fft_size
    lower, center, upper = corners[:-2], corners[1:-1], corners[2:]
    rising = (bins[:, None] - lower) / (center - lower)
    falling = (upper - bins[:, None]) / (upper - center)
    return np.maximum(0.0, np.minimum(rising, falling)).astype("float32")
