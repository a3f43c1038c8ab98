"""Audio features: ``rf.audio.log_mel_filterbank_from_raw``, ``rf.audio.mel_filterbank``, ``rf.audio.specaugment``."""

from returnn.frontend.audio.mel import log_mel_filterbank_from_raw as log_mel_filterbank_from_raw
from returnn.frontend.audio.mel import mel_filterbank as mel_filterbank
from returnn.frontend.audio.specaugment import random_mask as random_mask
from returnn.frontend.audio.specaugment import specaugment as specaugment
