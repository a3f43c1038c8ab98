"""Signal processing: ``rf.stft``."""

from __future__ import annotations

from typing import Optional, Tuple

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["stft"]


def stft(x: Tensor, *, in_spatial_dim: Dim, frame_step: int, frame_length: int, fft_length: Optional[int] = None,
         window_use_frame_length: bool = True, align_window_left: bool = True, window_enforce_even: bool = True,
         out_spatial_dim: Optional[Dim] = None, out_dim: Optional[Dim] = None, use_mask: Optional[bool] = None
         ) -> Tuple[Tensor, Dim, Dim]:
    """Short-time Fourier transform over ``in_spatial_dim`` with a periodic Hann window of ``frame_length``
    (``fft_length`` default: ``frame_length``); only full frames (``ceil((T - frame_length + 1) / frame_step)``).

    :return: (complex64 ``[..., out_spatial_dim, out_dim]``, out_spatial_dim, out_dim (``fft_length // 2 + 1``))
    """
    from returnn.frontend.dims import mask_value
    _utils.check_dims("stft", x, [in_spatial_dim])
    if not (window_use_frame_length and align_window_left):
        raise FrontendError("stft", "only window_use_frame_length=True, align_window_left=True are supported here")
    fft_length = fft_length or frame_length
    if out_spatial_dim is None:
        out_spatial_dim = in_spatial_dim.sub_right(frame_length - 1) if frame_length > 1 else in_spatial_dim
        if frame_step != 1:
            out_spatial_dim = out_spatial_dim.ceildiv_right(frame_step)
    out_dim = out_dim or Dim(fft_length // 2 + 1, name="stft-freq")
    if use_mask is not False:
        x = mask_value(x, in_spatial_dim, 0.0)
    rest = [d for d in x.dims if d != in_spatial_dim]
    backend = _utils.backend_of(x)
    raw = backend.stft(_utils.aligned_raw(x, rest + [in_spatial_dim], backend=backend), frame_length=frame_length,
                       frame_step=frame_step, fft_length=fft_length)
    return (_utils.make_tensor("stft", rest + [out_spatial_dim, out_dim], "complex64", raw, feature_dim=out_dim),
            out_spatial_dim, out_dim)
