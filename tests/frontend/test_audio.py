"""rf.stft and rf.audio against values observed by running the reference's TF backend (``data/observed_audio.json``:
two sine mixtures of 1000 and 700 samples at 16 kHz, 10 mel bins), and specaugment's masks."""

import json
import os

import numpy as np
import tensorflow as tf

import returnn.frontend as rf
from returnn.tensor import Dim, Tensor, batch_dim

with open(os.path.join(os.path.dirname(__file__), "data", "observed_audio.json")) as f:
    OBSERVED = json.load(f)


def _audio(g):
    time = g.time_dim([1000, 700], "samples")
    t = np.arange(1000)
    audio = np.stack([np.sin(t * 0.05) * 0.3 + np.sin(t * 0.31) * 0.1, np.cos(t * 0.12) * 0.2]).astype("float32")
    audio[1, 700:] = 0
    return Tensor("x", [batch_dim, time], "float32", raw_tensor=tf.constant(audio)), time


def test_log_mel_and_stft_as_observed(g):
    x, time = _audio(g)
    mel_dim = Dim(10, name="mel")
    y, y_dim = rf.audio.log_mel_filterbank_from_raw(x, in_spatial_dim=time, out_dim=mel_dim)
    st, st_spatial, st_freq = rf.stft(x, in_spatial_dim=time, frame_step=160, frame_length=400)
    assert y.dims == (batch_dim, y_dim, mel_dim) and st.dims == (batch_dim, st_spatial, st_freq)
    assert st.dtype == OBSERVED["stft_dtype"] and st_freq.dimension == 201
    vy, vl, vst, vsl = g.run(y, y_dim.dyn_size_ext, st, st_spatial.dyn_size_ext)
    np.testing.assert_array_equal(vl, OBSERVED["mel_lens"])
    np.testing.assert_array_equal(vsl, OBSERVED["stft_lens"])
    expected = np.asarray(OBSERVED["mel"])
    for b, n in enumerate(vl):
        np.testing.assert_allclose(vy[b, :n], expected[b, :n], atol=2e-4)
    np.testing.assert_allclose(np.abs(vst[0, 0]), OBSERVED["stft_abs_00"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.abs(vst[1, 3]), OBSERVED["stft_abs_13"], rtol=1e-4, atol=1e-4)


def test_specaugment_masks_only_in_training(g):
    time, feat = Dim(50, name="t50"), Dim(20, name="f20")
    b = Dim(3, name="b3")
    x = g.const("x", [b, time, feat], np.ones((3, 50, 20), "float32"))
    rf.init_forward_step_run_ctx()
    assert rf.audio.specaugment(x, spatial_dim=time, feature_dim=feat) is x
    rf.init_train_step_run_ctx(train_flag=True, step=5000)
    y = rf.audio.specaugment(x, spatial_dim=time, feature_dim=feat)
    assert y.dims == x.dims
    v = g.run(y)
    assert set(np.unique(v)) <= {0.0, 1.0}
    assert (v == 0).any() and (v == 1).mean() > 0.3
    time_masked = (v == 0).all(axis=2)  # whole frames masked
    feat_masked = (v == 0).all(axis=1)  # whole feature bins masked
    assert time_masked.any() and feat_masked.any()
