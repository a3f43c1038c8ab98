"""Signal-processing layers: stft, istft, multichannel_stft_layer, mel_filterbank, dct (one file per layer)."""

from returnn.tf.layers.signal import dct as _dct  # noqa: F401
from returnn.tf.layers.signal import istft as _istft  # noqa: F401
from returnn.tf.layers.signal import mel_filterbank as _mel_filterbank  # noqa: F401
from returnn.tf.layers.signal import multichannel_stft as _multichannel_stft  # noqa: F401
from returnn.tf.layers.signal import stft as _stft  # noqa: F401
