"""``rf.audio``: speech features (``log_mel_filterbank_from_raw``, ``mel_filterbank``) and SpecAugment
(``specaugment``, ``random_mask``, ``mask``), at the reference's paths (``returnn.frontend.audio.mel``,
``returnn.frontend.audio.specaugment``)."""

# flake8: noqa: F401,F403
from returnn.frontend.audio.mel import *
from returnn.frontend.audio.specaugment import *
