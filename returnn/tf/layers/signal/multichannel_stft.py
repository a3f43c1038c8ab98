"""``{"class": "multichannel_stft_layer", "frame_shift": 160, "frame_size": 400, "fft_size": 512,
"nr_of_channels": 2}``: short-time Fourier transform of each channel of a multi-channel signal.

Shape: ``{B, T, C} -> {B, T', C * (fft_size // 2 + 1)}`` complex64, ``C = nr_of_channels`` (the input's feature
dim). Per channel ``tf.signal.stft`` over the time axis, the channels' bins concatenated along the feature axis
(all bins of channel 0 first). As observed from the reference:

- ``window``: ``"hanning"`` (default: ``tf.signal.hann_window``, periodic for even ``frame_size``) or ``"None"``
  (the string: no window). The reference's ``"blackman"`` needs scipy and is not supported here.
- ``pad_last_frame=False``: only complete frames, ``floor((T - frame_size) / frame_shift) + 1`` of them;
  ``True``: the signal is zero-padded at the end to ``ceil(T / frame_shift)`` frames (the raw tensor), and the
  sequence lengths are ``ceil((T - frame_size) / frame_shift) + 1``.
- ``T'`` is a new dim ``'<layer>:MultiChannelMultiResolutionStft'``; the feature dim ``'<layer>:feature-dense'``.
- ``use_rfft=False`` (a complex FFT) fails to build in the reference; here it raises :class:`LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template

WINDOWS = ("hanning", "None")


def stft_output_template(name: str, layer_class: str, sources: Any, required: Dict[str, Any], *, window: Any,
                         use_rfft: bool, nr_of_channels: int, out_dim: Optional[Dim], bins_per_channel: int,
                         bins_text: str) -> Tensor:
    """The output template of the multi-channel STFT layers: ``{B, T', C * bins_per_channel}`` complex64, ``T'`` a
    new dim ``'<layer>:MultiChannelMultiResolutionStft'``, the feature dim ``'<layer>:feature-dense'`` (or
    ``out_dim``).

    :param required: the frame arguments that must be given (name -> value)
    :param bins_text: how the feature dim is computed, for the error of an ``out_dim`` of another size
    :raises LayerArgError: a missing required argument, an unknown window, ``use_rfft=False``, ``out_dim`` of
        another size
    :raises LayerShapeError: the input is not ``{B, T, C=nr_of_channels}``
    """
    for arg, value in required.items():
        if not value:
            raise LayerArgError(layer=name, layer_class=layer_class, arg=arg, problem="missing required argument")
    if window not in WINDOWS:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="window", problem="unsupported value",
                            got=window, expected=" or ".join(repr(w) for w in WINDOWS))
    if not use_rfft:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="use_rfft", problem="not supported",
                            got=use_rfft, expected="True (the reference fails to build use_rfft=False)")
    inp = concat_sources_template(sources, name=name, layer_class=layer_class)
    if (inp.batch_dim_axis is None or inp.time_dim_axis is None or inp.feature_dim_axis is None
            or inp.batch_ndim != 3 or inp.dim != nr_of_channels):
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"needs a signal {{B, T, C={nr_of_channels}}} (C = nr_of_channels)",
                              got=repr(inp))
    base = name.split("/")[-1]
    frames = SpatialDim(f"{base}:MultiChannelMultiResolutionStft", None)
    bins = nr_of_channels * bins_per_channel
    feat = out_dim if out_dim is not None else FeatureDim(f"{base}:feature-dense", bins)
    if feat.dimension != bins:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="out_dim", problem="wrong size",
                            got=feat, expected=f"{bins} = {bins_text}")
    return Tensor(name=f"{base}_output", dims=[inp.dims[inp.batch_dim_axis], frames, feat], dtype="complex64",
                  time_dim_axis=1, feature_dim_axis=2, available_for_inference=inp.available_for_inference)


def num_frames(length: tf.Tensor, frame_size: int, frame_shift: int, pad_last_frame: bool) -> tf.Tensor:
    """:return: the sequence lengths in frames for ``length`` samples (as the reference counts them)"""
    rest = length - frame_size
    if pad_last_frame:
        return -(-rest // frame_shift) + 1  # ceildiv
    return rest // frame_shift + 1


@register_layer
class MultiChannelStftLayer(ConcatInputLayer):
    """STFT of each input channel over the time axis; the channels' bins concatenated."""

    layer_class = "multichannel_stft_layer"
    recurrent = True  # depends on other frames

    def __init__(self, frame_shift: int, frame_size: int, fft_size: int, window: str = "hanning",
                 use_rfft: bool = True, nr_of_channels: int = 1, pad_last_frame: bool = False, **kwargs: Any):
        """
        :param frame_shift: samples between the starts of consecutive frames
        :param frame_size: samples per frame (the window length)
        :param fft_size: FFT length
        :param window: ``"hanning"`` (default) or ``"None"`` (no window)
        :param use_rfft: real FFT; only True is supported (as the reference builds)
        :param nr_of_channels: number of input channels (the input's feature dim; default 1)
        :param pad_last_frame: zero-pad the end so that the last samples form a frame too
        """
        super().__init__(**kwargs)
        inp = self.input_data
        x = tf.transpose(inp.placeholder, [inp.batch_dim_axis, inp.feature_dim_axis, inp.time_dim_axis])  # B,C,T
        window_fn = tf.signal.hann_window if window == "hanning" else None
        y = tf.signal.stft(x, frame_length=frame_size, frame_step=frame_shift, fft_length=fft_size,
                           window_fn=window_fn, pad_end=pad_last_frame)  # [B, C, T', F']
        y = tf.transpose(y, [0, 2, 1, 3])
        shape = tf.shape(y)
        self.output.placeholder = tf.reshape(y, [shape[0], shape[1], nr_of_channels * (fft_size // 2 + 1)])
        time = inp.dims[inp.time_dim_axis]
        if time.dyn_size is not None:
            self.output.dims[1].dyn_size = num_frames(time.dyn_size, frame_size, frame_shift, pad_last_frame)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), frame_shift: int = 0, frame_size: int = 0,
                               fft_size: int = 0, window: Any = "hanning", use_rfft: bool = True,
                               nr_of_channels: int = 1, out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing frame_shift/frame_size/fft_size, an unknown window, ``use_rfft=False``;
        :raises LayerShapeError: the input is not ``{B, T, C=nr_of_channels}``"""
        return stft_output_template(
            name, cls.layer_class, sources, {"frame_shift": frame_shift, "frame_size": frame_size, "fft_size": fft_size},
            window=window, use_rfft=use_rfft, nr_of_channels=nr_of_channels, out_dim=out_dim,
            bins_per_channel=fft_size // 2 + 1, bins_text="nr_of_channels * (fft_size // 2 + 1)")
