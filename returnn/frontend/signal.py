"""``rf.stft``: short-time Fourier transform over a spatial dim (framing, periodic Hann window, real FFT), as the
reference's TF backend computes it (``tf.signal.stft``)."""

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
    """STFT of the float signal ``x`` over ``in_spatial_dim``.

    Frames of ``frame_length`` samples start every ``frame_step`` samples; only whole frames are taken (no padding
    at the ends). Each frame is multiplied by a periodic Hann window of ``frame_length`` and zero-padded to
    ``fft_length`` (default ``frame_length``) for the real FFT.

    :param x: float32/float64, any dims including ``in_spatial_dim``
    :param window_use_frame_length: only True (the window spans the frame), as the reference's TF backend
    :param align_window_left: only True, as the reference's TF backend
    :param window_enforce_even: no effect with the window spanning the frame (as the reference's TF backend)
    :param out_spatial_dim: the frames dim; default derived from ``in_spatial_dim``: lengths
        ``max(0, ceil((T - (frame_length - 1)) / frame_step))``, named as the reference names it
        (``'⌈((-2+time)+-2)/3⌉'`` for frame_length 5, frame_step 3)
    :param out_dim: the frequency dim, ``fft_length // 2 + 1``; default ``Dim(.., name="stft-freq")``
    :param use_mask: no effect here: as the reference's TF backend, padding samples are not zeroed first (the
        valid frames do not reach them)
    :return: (complex64 for float32 input: the other dims of ``x``, ``out_spatial_dim``, ``out_dim``;
        ``out_spatial_dim``; ``out_dim``)
    :raises FrontendError: ``in_spatial_dim`` not in ``x``, a non-float ``x``, frame sizes < 1, the other window
        options, an ``out_dim`` of another size
    """
    call = "stft"
    _utils.check_dims(call, x, [in_spatial_dim])
    if not x.dtype.startswith("float"):
        raise FrontendError(call, f"needs a float signal, {x.name!r} is {x.dtype}")
    if int(frame_step) < 1 or int(frame_length) < 1 or (fft_length is not None and int(fft_length) < 1):
        raise FrontendError(call, "frame_step, frame_length and fft_length must be >= 1",
                            got=(frame_step, frame_length, fft_length))
    if not (window_use_frame_length and align_window_left):
        raise FrontendError(call, "only the window spanning the frame, aligned left, is supported (as the "
                                  "reference's TensorFlow backend)",
                            expected="window_use_frame_length=True, align_window_left=True",
                            got=f"window_use_frame_length={window_use_frame_length}, "
                                f"align_window_left={align_window_left}")
    fft_length = int(fft_length or frame_length)
    n_bins = fft_length // 2 + 1
    if out_dim is None:
        out_dim = Dim(n_bins, name="stft-freq")
    elif out_dim.dimension != n_bins:
        raise FrontendError(call, f"out_dim must have fft_length // 2 + 1 = {n_bins} entries", got=out_dim)
    frames = frames_dim(in_spatial_dim, frame_length=frame_length, frame_step=frame_step)
    if out_spatial_dim is None:
        out_spatial_dim = frames
    elif out_spatial_dim != frames:
        out_spatial_dim.declare_same_as(frames)
    others = [d for d in x.dims if d != in_spatial_dim]
    backend = _utils.backend_of(x)
    raw = _utils.aligned_raw(x, others + [in_spatial_dim], backend=backend)
    out_raw = backend.stft(raw, frame_length=int(frame_length), frame_step=int(frame_step), fft_length=fft_length)
    dtype = "complex128" if x.dtype == "float64" else "complex64"
    return (_utils.make_tensor(call, others + [out_spatial_dim, out_dim], dtype, out_raw, feature_dim=out_dim),
            out_spatial_dim, out_dim)


def frames_dim(in_spatial_dim: Dim, *, frame_length: int, frame_step: int) -> Dim:
    """:return: the dim of the whole frames over ``in_spatial_dim``: ``max(0, ceil((T - (frame_length - 1)) /
    frame_step))`` frames per sequence; the window's ``frame_length - 1`` samples are taken half from the left
    (rounded down), half from the right, as the reference writes the dim"""
    total = frame_length - 1
    left, right = total // 2, total - total // 2
    d = in_spatial_dim
    if left:
        d = d.sub_left(left)
    if right:
        d = d.sub_right(right)
    if frame_step != 1:
        d = d.ceildiv_right(frame_step)
    if d.dimension is not None:
        return d if d.dimension >= 0 else Dim(0, name=d.description)
    lens = d.dyn_size_ext
    if lens is not None and lens.raw_tensor is not None:
        from returnn.frontend.math_ import maximum
        d.dyn_size_ext = maximum(lens, 0)
    return d
