"""Signal-processing layers: stft, istft, multichannel_stft_layer, multichannel_multiresolution_stft_layer,
mel_filterbank, complex_linear_projection, dct (one file per layer)."""

from returnn.tf.layers.signal import complex_linear_projection as _complex_linear_projection  # noqa: F401
from returnn.tf.layers.signal import dct as _dct  # noqa: F401
from returnn.tf.layers.signal import istft as _istft  # noqa: F401
from returnn.tf.layers.signal import mel_filterbank as _mel_filterbank  # noqa: F401
from returnn.tf.layers.signal import multichannel_multires_stft as _multichannel_multires_stft  # noqa: F401
from returnn.tf.layers.signal import multichannel_stft as _multichannel_stft  # noqa: F401
from returnn.tf.layers.signal import stft as _stft  # noqa: F401
