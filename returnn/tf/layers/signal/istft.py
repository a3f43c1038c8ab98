"""``{"class": "istft", "frame_shift": 160, "frame_size": 400, "fft_size": 512}``: inverse short-time Fourier
transform, the inverse of :mod:`returnn.tf.layers.signal.stft` with the same arguments.

Shape: ``{B, T', F'} -> {B, T, 1}`` float32, from complex64 frames of ``F' = fft_size // 2 + 1`` bins over the
time axis (``in_spatial_dims``, default the time axis). ``tf.signal.inverse_stft`` with the window that inverts
the stft's periodic Hann window by overlap-add (``tf.signal.inverse_stft_window_fn(frame_shift)``), so that
``istft(stft(x)) == x`` away from the first and last ``frame_size`` samples. ``T = T' * frame_shift +
(frame_size - frame_shift)`` samples (a dim derived from ``T'``, e.g. ``'frames*4+4'``, or ``out_spatial_dims[0]``);
the one output channel is ``'<layer>:channel'`` or ``out_dim``. ``fft_size`` defaults to ``frame_size``.
``use_time_mask`` sets padded frames to 0 first.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_add, dim_mul
from returnn.tf.layers.signal.stft import signal_axis_and_input


def samples_dim(frames: Dim, frame_size: int, frame_shift: int) -> Dim:
    """:return: the number of samples the overlap-add of ``frames`` frames gives"""
    return dim_add(dim_mul(frames, frame_shift), frame_size - frame_shift)


@register_layer
class IstftLayer(ConcatInputLayer):
    """Inverse STFT over the time axis: complex frames to one-channel audio."""

    layer_class = "istft"
    recurrent = True  # depends on other frames

    def __init__(self, frame_shift: int, frame_size: int, fft_size: Optional[int] = None,
                 in_spatial_dims: Optional[Sequence[Any]] = None, out_spatial_dims: Optional[Sequence[Dim]] = None,
                 out_dim: Optional[Dim] = None, use_time_mask: bool = False, **kwargs: Any):
        """
        :param frame_shift: samples between the starts of consecutive frames
        :param frame_size: samples per frame (the window length)
        :param fft_size: FFT length (default ``frame_size``)
        :param in_spatial_dims: the frame axis of the input (default its time axis), one Dim
        :param out_spatial_dims: the Dim of the output's sample axis (declared the same as the computed one)
        :param use_time_mask: set padded frames to 0 first
        """
        super().__init__(out_dim=out_dim, **kwargs)
        inp = self.input_data
        ax, x = signal_axis_and_input(inp, in_spatial_dims, use_time_mask)
        x = tf.transpose(x, [inp.batch_dim_axis, ax, inp.feature_dim_axis])  # [B, T', F']
        y = tf.signal.inverse_stft(x, frame_length=frame_size, frame_step=frame_shift,
                                   fft_length=fft_size or frame_size,
                                   window_fn=tf.signal.inverse_stft_window_fn(frame_shift))
        self.output.placeholder = tf.expand_dims(y, axis=-1)  # [B, T, 1]

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), frame_shift: int = 0, frame_size: int = 0,
                               fft_size: Optional[int] = None, in_spatial_dims: Optional[Sequence[Any]] = None,
                               out_spatial_dims: Optional[Sequence[Dim]] = None, out_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing frame_size/frame_shift
        :raises LayerShapeError: not complex frames
            ``{B, T', F'}`` with ``F' = fft_size // 2 + 1``"""
        if not frame_size or not frame_shift:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="frame_size" if not frame_size else
                                "frame_shift", problem="missing required argument")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        bins = (fft_size or frame_size) // 2 + 1
        if (inp.batch_dim_axis is None or inp.feature_dim_axis is None or inp.batch_ndim != 3
                or not inp.dtype.startswith("complex") or inp.dim != bins):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"needs complex STFT frames {{B, T, F={bins}}} (fft_size // 2 + 1 bins)",
                                  got=repr(inp))
        ax = inp.get_axis_from_description(in_spatial_dims[0] if in_spatial_dims else "T")
        samples = samples_dim(inp.dims[ax], frame_size, frame_shift)
        if out_spatial_dims:
            out_spatial_dims[0].declare_same_as(samples)
        base = name.split("/")[-1]
        channel = out_dim if out_dim is not None else FeatureDim(f"{base}:channel", 1)
        return Tensor(name=f"{base}_output", dims=[inp.dims[inp.batch_dim_axis], samples, channel], dtype="float32",
                      time_dim_axis=1, feature_dim_axis=2, available_for_inference=inp.available_for_inference)
