"""``{"class": "stft", "frame_shift": 160, "frame_size": 400, "fft_size": 512}``: short-time Fourier transform.

Shape: ``{B, T, 1} -> {B, T', F'}`` complex64, ``tf.signal.stft`` (periodic Hann window, no end padding) over the
time axis (``in_spatial_dims``, default the time axis) of the one-channel input. ``T'`` frames:
``ceil((T - (frame_size - 1)) / frame_shift)``, written as the reference writes it
(``'⌈((-3+time)+-4)/4⌉'`` for size 8, shift 4), or ``out_spatial_dims[0]``; ``F' = fft_size // 2 + 1`` bins,
``'<layer>:channel'`` or ``out_dim``; ``fft_size`` defaults to ``frame_size``. ``use_time_mask`` sets padded
samples to 0 first. More than one input channel is not supported here (:class:`LayerShapeError`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_add, dim_add_left, dim_ceildiv
from returnn.tf.ops.dims import mask_all_dynamic


def frames_dim(time_dim: Dim, frame_size: int, frame_shift: int) -> Dim:
    """:return: the frames dim of a valid framing, as the reference derives it"""
    total = frame_size - 1
    left, right = total // 2, total - total // 2
    return dim_ceildiv(dim_add(dim_add_left(time_dim, -left), -right), frame_shift)


def signal_axis_and_input(inp: Tensor, in_spatial_dims: Optional[Sequence[Any]], use_time_mask: bool):
    """:return: (the axis of ``inp`` the signal runs along: ``in_spatial_dims[0]``, default the time axis, and the
    raw input, its padding frames zeroed with ``use_time_mask``) for stft/istft"""
    ax = inp.get_axis_from_description(in_spatial_dims[0] if in_spatial_dims else "T")
    return ax, (mask_all_dynamic(inp, 0) if use_time_mask else inp.placeholder)


@register_layer
class StftLayer(ConcatInputLayer):
    """STFT over the time axis."""

    layer_class = "stft"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, frame_shift: int, frame_size: int, fft_size: Optional[int] = None,
                 in_spatial_dims: Optional[Sequence[Any]] = None, out_spatial_dims: Optional[Sequence[Dim]] = None,
                 out_dim: Optional[Dim] = None, use_time_mask: bool = False, **kwargs: Any):
        """
        :param frame_shift: samples between the starts of consecutive frames
        :param frame_size: samples per frame (the window length)
        :param fft_size: FFT length (default ``frame_size``)
        :param in_spatial_dims: the sample axis of the input (default its time axis), one Dim
        :param out_spatial_dims: the Dim of the output's frame axis (declared the same as the computed one)
        :param use_time_mask: set padded samples to 0 first
        """
        super().__init__(out_dim=out_dim, **kwargs)
        inp = self.input_data
        ax, x = signal_axis_and_input(inp, in_spatial_dims, use_time_mask)
        order = [inp.batch_dim_axis, ax, inp.feature_dim_axis]
        x = tf.squeeze(tf.transpose(x, order), axis=-1)  # [B, T]
        self.output.placeholder = tf.signal.stft(x, frame_length=frame_size, frame_step=frame_shift,
                                                 fft_length=fft_size or frame_size)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), frame_shift: int = 0, frame_size: int = 0,
                               fft_size: Optional[int] = None, in_spatial_dims: Optional[Sequence[Any]] = None,
                               out_spatial_dims: Optional[Sequence[Dim]] = None, out_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing frame_size/frame_shift
        :raises LayerShapeError: not one channel"""
        if not frame_size or not frame_shift:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="frame_size" if not frame_size else
                                "frame_shift", problem="missing required argument")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.batch_dim_axis is None or inp.feature_dim_axis is None or inp.dim != 1 or inp.batch_ndim != 3:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs a one-channel audio input {B, T, 1}", got=repr(inp))
        ax = inp.get_axis_from_description(in_spatial_dims[0] if in_spatial_dims else "T")
        frames = frames_dim(inp.dims[ax], frame_size, frame_shift)
        if out_spatial_dims:
            out_spatial_dims[0].declare_same_as(frames)
        base = name.split("/")[-1]
        bins = out_dim if out_dim is not None else FeatureDim(f"{base}:channel", (fft_size or frame_size) // 2 + 1)
        return Tensor(name=f"{base}_output", dims=[inp.dims[inp.batch_dim_axis], frames, bins], dtype="complex64",
                      time_dim_axis=1, feature_dim_axis=2, available_for_inference=inp.available_for_inference)
