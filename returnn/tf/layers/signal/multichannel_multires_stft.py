"""``{"class": "multichannel_multiresolution_stft_layer", "frame_shift": 160, "frame_sizes": [400, 200],
"fft_sizes": [400, 200], "nr_of_channels": 2}``: short-time Fourier transforms of each channel of a multi-channel
signal at several resolutions (frame size / FFT length pairs) with one frame shift.

Shape: ``{B, T, C} -> {B, T', C * sum(fft_size // 2 + 1)}`` complex64, ``C = nr_of_channels`` (the input's feature
dim). Along the feature axis: resolution by resolution (in the order given; ``zip(frame_sizes, fft_sizes)``, so a
longer list is cut to the shorter), within a resolution channel by channel (all bins of channel 0 first). As
observed from the reference:

- The frames start at ``k * frame_shift`` for every resolution. Their number ``T'`` and the sequence lengths are
  those of the first resolution (as for ``multichannel_stft_layer`` with ``frame_sizes[0]``); a resolution with
  longer frames reads zeros past the end of the signal for its last frames.
- The raw signal is transformed (frames past a sequence's length are computed from the padding too).
- ``window``: ``"hanning"`` (default, ``tf.signal.hann_window``) or ``"None"`` (the string: no window).
- ``pad_last_frame``: see ``multichannel_stft_layer``.
- ``T'`` is a new dim ``'<layer>:MultiChannelMultiResolutionStft'``; the feature dim ``'<layer>:feature-dense'``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.signal.multichannel_stft import num_frames, stft_output_template


def resolutions(frame_sizes: Sequence[int], fft_sizes: Sequence[int]) -> List[Tuple[int, int]]:
    """:return: the (frame size, FFT length) pairs, as ``zip`` pairs them"""
    return list(zip(frame_sizes, fft_sizes))


def multires_stft(x_bct: tf.Tensor, frame_shift: int, res: Sequence[Tuple[int, int]], window: str,
                  pad_last_frame: bool) -> tf.Tensor:
    """:param x_bct: float [B, C, T] signal
    :return: complex64 [B, T', C * sum(fft // 2 + 1)], ``T'`` as the first resolution frames it"""
    total = tf.shape(x_bct)[2]
    n = num_frames(total, res[0][0], frame_shift, False) if not pad_last_frame else -(-total // frame_shift)
    n = tf.maximum(n, 0)
    window_fn = tf.signal.hann_window if window == "hanning" else None
    parts = []
    for frame_size, fft_size in res:
        y = tf.signal.stft(x_bct, frame_length=frame_size, frame_step=frame_shift, fft_length=fft_size,
                           window_fn=window_fn, pad_end=True)  # [B, C, ceil(T / shift), F]
        y = tf.transpose(y[:, :, :n], [0, 2, 1, 3])  # [B, T', C, F]
        shape = tf.shape(y)
        parts.append(tf.reshape(y, [shape[0], shape[1], shape[2] * (fft_size // 2 + 1)]))
    return parts[0] if len(parts) == 1 else tf.concat(parts, axis=-1)


@register_layer
class MultiChannelMultiResolutionStftLayer(ConcatInputLayer):
    """STFTs of each input channel at several resolutions; see the module doc."""

    layer_class = "multichannel_multiresolution_stft_layer"
    recurrent = True  # depends on other frames

    def __init__(self, frame_shift: int, frame_sizes: Sequence[int], fft_sizes: Sequence[int],
                 window: str = "hanning", use_rfft: bool = True, nr_of_channels: int = 1,
                 pad_last_frame: bool = False, **kwargs: Any):
        """
        :param frame_shift: samples between the starts of consecutive frames (all resolutions)
        :param frame_sizes: samples per frame (window length), one per resolution
        :param fft_sizes: FFT length, one per resolution
        :param window: ``"hanning"`` (default) or ``"None"`` (no window)
        :param use_rfft: real FFT; only True is supported (the reference fails to build False)
        :param nr_of_channels: number of input channels (the input's feature dim; default 1)
        :param pad_last_frame: zero-pad the end so that the last samples form a frame too
        """
        super().__init__(**kwargs)
        inp = self.input_data
        x = tf.transpose(inp.placeholder, [inp.batch_dim_axis, inp.feature_dim_axis, inp.time_dim_axis])  # B,C,T
        self.output.placeholder = multires_stft(x, frame_shift, resolutions(frame_sizes, fft_sizes), window,
                                                pad_last_frame)
        time = inp.dims[inp.time_dim_axis]
        if time.dyn_size is not None:
            self.output.dims[1].dyn_size = num_frames(time.dyn_size, frame_sizes[0], frame_shift, pad_last_frame)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), frame_shift: int = 0,
                               frame_sizes: Sequence[int] = (), fft_sizes: Sequence[int] = (),
                               window: Any = "hanning", use_rfft: bool = True, nr_of_channels: int = 1,
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing frame_shift/frame_sizes/fft_sizes, an unknown window, ``use_rfft=False``;
        :raises LayerShapeError: the input is not ``{B, T, C=nr_of_channels}``"""
        return stft_output_template(
            name, cls.layer_class, sources,
            {"frame_shift": frame_shift, "frame_sizes": frame_sizes, "fft_sizes": fft_sizes},
            window=window, use_rfft=use_rfft, nr_of_channels=nr_of_channels, out_dim=out_dim,
            bins_per_channel=sum(fft // 2 + 1 for _, fft in resolutions(frame_sizes, fft_sizes)),
            bins_text="nr_of_channels * sum(fft_size // 2 + 1)")
