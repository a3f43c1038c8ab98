"""``{"class": "mel_filterbank", "fft_size": 512, "nr_of_filters": 80, "n_out": 80}``: mel filterbank applied to
a power (or magnitude) spectrum.

Shape: ``{B, T, fft_size // 2 + 1} -> {B, T, n_out}`` (``n_out`` = ``nr_of_filters``, required, as by the
reference). Triangular filters with corners equally spaced on the HTK mel scale
(``2595 * log10(1 + f / 700)``) between ``f_min`` (default 0) and ``f_max`` (default ``sampling_rate / 2``), over
the FFT bin frequencies ``k * sampling_rate / fft_size``, peak 1, no area normalization: the matrix equals the
reference's (observed to float32 precision). No params.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.out_template import base_out_template
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.util.signal import mel_filterbank_matrix


@register_layer
class MelFilterbankLayer(ConcatInputLayer):
    """``spectrum @ mel_matrix`` over the feature axis."""

    layer_class = "mel_filterbank"

    def __init__(self, sampling_rate: int = 16000, fft_size: int = 1024, nr_of_filters: int = 80,
                 f_min: Optional[float] = None, f_max: Optional[float] = None, **kwargs: Any):
        """
        :param sampling_rate: sampling rate of the audio in Hz (default 16000)
        :param fft_size: FFT length of the spectrum (the input has ``fft_size // 2 + 1`` bins; default 1024)
        :param nr_of_filters: number of mel filters (default 80; equal to ``n_out``)
        :param f_min: lowest frequency in Hz (default 0)
        :param f_max: highest frequency in Hz (default half the sampling rate)
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_with_feature_dim_axis(-1)
        matrix = tf.constant(mel_filterbank_matrix(sampling_rate, fft_size, nr_of_filters, f_min, f_max))
        y = tf.tensordot(tf.cast(inp.placeholder, tf.float32), matrix, axes=[[inp.batch_ndim - 1], [0]])
        self.output.placeholder = tf.experimental.numpy.moveaxis(y, -1, self.output.feature_dim_axis)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, sources: Any = (), n_out: Any = NotSpecified,
                               out_dim: Any = None, fft_size: int = 1024, nr_of_filters: int = 80,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no ``n_out``/``out_dim`` (the reference needs it too)
        :raises LayerShapeError: the input's feature dim is not ``fft_size // 2 + 1``"""
        if n_out in (NotSpecified, None) and out_dim is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument",
                                hint=f"set n_out={nr_of_filters} (the number of filters), as the reference requires")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.dim != fft_size // 2 + 1:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"needs {fft_size // 2 + 1} frequency bins (fft_size={fft_size})",
                                  got=repr(inp))
        out = base_out_template(cls, name=name, network=network, sources=sources, n_out=n_out, out_dim=out_dim,
                                sources_template=inp)
        out.dtype = "float32"
        return out
