"""Public import path ``returnn.tf.layers.signal_processing``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it."""

from returnn.tf.layers.signal.complex_linear_projection import (
    ComplexLinearProjectionLayer as ComplexLinearProjectionLayer)
from returnn.tf.layers.signal.istft import IstftLayer as IstftLayer
from returnn.tf.layers.signal.mel_filterbank import MelFilterbankLayer as MelFilterbankLayer
from returnn.tf.layers.signal.multichannel_multires_stft import (
    MultiChannelMultiResolutionStftLayer as MultiChannelMultiResolutionStftLayer)
from returnn.tf.layers.signal.multichannel_stft import MultiChannelStftLayer as MultiChannelStftLayer
from returnn.tf.layers.signal.stft import StftLayer as StftLayer
