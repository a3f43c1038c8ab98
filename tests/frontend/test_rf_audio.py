"""rf.stft, rf.audio.mel_filterbank, rf.audio.log_mel_filterbank_from_raw, rf.audio.specaugment / random_mask /
mask: against numpy and values observed by running the reference's TF backend (``data/observed_audio.json``: two sine
mixtures of 1000 and 700 samples at 16 kHz, 10 mel bins; others inline)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.errors import FrontendError
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
    # the reference keeps 26% of the entries on average here (10-44% over 20 draws, observed): at step 5000, 2..8
    # time masks of up to 20 frames on 50 frames and 2..6 feature masks of up to 4 bins
    assert (v == 0).any() and (v == 1).any()
    time_masked = (v == 0).all(axis=2)  # whole frames masked
    feat_masked = (v == 0).all(axis=1)  # whole feature bins masked
    assert time_masked.any() and feat_masked.any()


RND = np.random.RandomState(3)


def _stft_np(x, frame_length, frame_step, fft_length):
    """float64 reference: whole frames, periodic Hann window, real FFT."""
    n = max(0, 1 + (x.shape[-1] - frame_length) // frame_step)
    # "periodic" Hann as tf.signal.hann_window: period = the length for even lengths, length - 1 for odd ones
    period = frame_length if frame_length % 2 == 0 else frame_length - 1
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame_length) / period)
    frames = np.stack([x[..., i * frame_step:i * frame_step + frame_length] for i in range(n)], axis=-2)
    return np.fft.rfft(frames * window, n=fft_length, axis=-1)


@pytest.mark.parametrize("frame_step, frame_length, fft_length, n_bins", [(3, 5, 6, 4), (3, 5, None, 3), (4, 8, 16, 9)])
def test_stft_values_and_dims(g, frame_step, frame_length, fft_length, n_bins):
    lens = np.array([20, 13], "int32")
    time = g.time_dim(lens)
    xv = RND.randn(2, 20).astype("float32")
    out, out_spatial, out_dim = rf.stft(g.const("x", [batch_dim, time], xv), in_spatial_dim=time,
                                        frame_step=frame_step, frame_length=frame_length, fft_length=fft_length)
    assert out.dims == (batch_dim, out_spatial, out_dim) and out.dtype == "complex64"
    assert out_dim.dimension == n_bins and out_dim.name == "stft-freq"  # observed
    res, res_lens = g.run(out, out_spatial.dyn_size_ext)
    expected_lens = np.maximum(0, -((-(lens - (frame_length - 1))) // frame_step))
    np.testing.assert_array_equal(res_lens, expected_lens)
    expected = _stft_np(xv.astype("float64"), frame_length, frame_step, fft_length or frame_length)
    assert res.shape == expected.shape
    for b in range(2):
        np.testing.assert_allclose(res[b, :res_lens[b]], expected[b, :res_lens[b]], atol=1e-4)


def test_stft_dim_name_and_lengths_observed(g):
    time = g.time_dim([20, 13])
    x = g.const("x", [batch_dim, time], RND.randn(2, 20).astype("float32"))
    _, out_spatial, _ = rf.stft(x, in_spatial_dim=time, frame_step=3, frame_length=5, fft_length=6)
    assert out_spatial.name == "⌈((-2+time)+-2)/3⌉"  # as the reference writes it
    np.testing.assert_array_equal(g.run(out_spatial.dyn_size_ext), [6, 3])  # observed
    # a frame longer than every sequence: no frames (observed lengths [0, 0], not negative)
    out, out_spatial, _ = rf.stft(x, in_spatial_dim=time, frame_step=3, frame_length=32)
    res, res_lens = g.run(out, out_spatial.dyn_size_ext)
    np.testing.assert_array_equal(res_lens, [0, 0])
    assert res.shape == (2, 0, 17)


def test_stft_numpy_backend_equals_tf(g):
    xv = RND.randn(2, 30).astype("float32")
    time = Dim(30, name="time")
    out_np, _, _ = rf.stft(Tensor("x", [batch_dim, time], "float32", raw_tensor=xv), in_spatial_dim=time,
                           frame_step=4, frame_length=7, fft_length=8)
    assert isinstance(out_np.raw_tensor, np.ndarray) and out_np.raw_tensor.dtype == np.complex64
    out_tf, out_spatial, _ = rf.stft(g.const("x", [batch_dim, time], xv), in_spatial_dim=time, frame_step=4,
                                     frame_length=7, fft_length=8)
    assert out_spatial.dimension == 6  # ceil((30 - 6) / 4)
    np.testing.assert_allclose(out_np.raw_tensor, g.run(out_tf), atol=1e-4)


def test_stft_errors(g):
    time = Dim(10, name="time")
    x = g.const("x", [batch_dim, time], np.zeros([2, 10], "float32"))
    with pytest.raises(FrontendError, match="window_use_frame_length=True"):
        rf.stft(x, in_spatial_dim=time, frame_step=2, frame_length=4, fft_length=8, window_use_frame_length=False)
    with pytest.raises(FrontendError, match="is not a dim of"):
        rf.stft(x, in_spatial_dim=Dim(10, name="other"), frame_step=2, frame_length=4)
    with pytest.raises(FrontendError, match="float signal"):
        rf.stft(g.const("i", [batch_dim, time], np.zeros([2, 10], "int32")), in_spatial_dim=time, frame_step=2,
                frame_length=4)


def test_abs_of_complex_is_float(g):
    time = Dim(10, name="time")
    out, _, _ = rf.stft(g.const("x", [batch_dim, time], RND.randn(2, 10).astype("float32")), in_spatial_dim=time,
                        frame_step=2, frame_length=4)
    mag = rf.abs(out)
    assert mag.dtype == "float32"
    np.testing.assert_allclose(g.run(mag), np.abs(g.run(out)), rtol=1e-6)


# observed: rf.audio.mel_filterbank(eye(5), in_dim=5, out_dim=6, sampling_rate=16, fft_length=9), [mel, in]
_MEL_5_6_16_FFT9 = np.array([
    [0., 0.4377554, 0., 0., 0.],
    [0., 0.5622446, 0., 0., 0.],
    [0., 0., 0.8791505, 0., 0.],
    [0., 0., 0.1208495, 0.3246841, 0.],
    [0., 0., 0., 0.6753159, 0.],
    [0., 0., 0., 0., 0.7740031]], "float32")


def test_mel_filterbank_observed(g):
    in_dim, out_dim, other = Dim(5, name="in"), Dim(6, name="mel"), Dim(5, name="r")
    y = rf.audio.mel_filterbank(g.const("x", [in_dim, other], np.eye(5, dtype="float32")), in_dim=in_dim,
                                out_dim=out_dim, sampling_rate=16, fft_length=9)
    assert y.dims == (other, out_dim) and y.dtype == "float32"  # as observed: in_dim replaced, out_dim last
    np.testing.assert_allclose(g.run(y).T, _MEL_5_6_16_FFT9, atol=1e-6)


def test_mel_filterbank_default_fft_length_and_errors(g):
    from returnn.util.signal import mel_filterbank_matrix
    time, in_dim, out_dim = Dim(3, name="t"), Dim(257, name="in"), Dim(80, name="mel")
    xv = np.abs(RND.randn(3, 257)).astype("float32")
    y = rf.audio.mel_filterbank(g.const("x", [time, in_dim], xv), in_dim=in_dim, out_dim=out_dim,
                                sampling_rate=16000, f_min=60, f_max=7600)
    np.testing.assert_allclose(g.run(y), xv @ mel_filterbank_matrix(16000, 512, 80, 60, 7600), rtol=1e-5)
    with pytest.raises(FrontendError, match="fft_length // 2 \\+ 1 = 129"):
        rf.audio.mel_filterbank(g.const("x", [time, in_dim], xv), in_dim=in_dim, out_dim=out_dim,
                                sampling_rate=16000, fft_length=256)


def _sine_batch():
    t = np.arange(8000) / 16000.0
    x = np.stack([np.sin(2 * np.pi * 440 * t), 0.5 * np.sin(2 * np.pi * 1000 * t)]).astype("float32")
    x[1, 5000:] = 0.0
    return x, np.array([8000, 5000], "int32")


def test_log_mel_filterbank_from_raw_sine(g):
    from returnn.util.signal import mel_filterbank_matrix
    xv, lens = _sine_batch()
    time = g.time_dim(lens)
    out_dim = Dim(80, name="logmel")
    y, out_spatial = rf.audio.log_mel_filterbank_from_raw(g.const("x", [batch_dim, time], xv), in_spatial_dim=time,
                                                          out_dim=out_dim)
    assert y.dims == (batch_dim, out_spatial, out_dim) and y.feature_dim == out_dim
    assert out_spatial.name == "⌈((-199+time)+-200)/160⌉"  # observed
    res, res_lens = g.run(y, out_spatial.dyn_size_ext)
    np.testing.assert_array_equal(res_lens, [48, 29])  # observed
    # observed values (reference, TF backend)
    np.testing.assert_allclose(res[0, 2, :6], [-4.0907955, -3.6351385, -3.282774, -2.9303575, -3.4010837,
                                               -3.3532314], atol=1e-4)
    np.testing.assert_allclose(res[1, 28, :6], [-5.9918365, -5.757979, -5.5042224, -5.461632, -6.1734796,
                                                -6.345746], atol=1e-4)
    np.testing.assert_allclose(res[1, 40:], -10.0, atol=1e-4)  # silence: log10(1e-10)
    # numpy float64, where float32 rounding does not dominate (bands with some energy)
    mel = np.abs(_stft_np(xv.astype("float64"), 400, 160, 512)) ** 2 @ mel_filterbank_matrix(16000, 512, 80)
    expected = np.log10(np.maximum(mel, 1e-10))
    strong = mel > 1e-3
    strong[1, 29:] = False
    np.testing.assert_allclose(res[strong], expected[strong], atol=1e-4)


def test_log_mel_filterbank_from_raw_log_base_and_options(g):
    xv, lens = _sine_batch()
    time = g.time_dim(lens, name="time2")
    out_dim = Dim(80, name="logmel")
    x = g.const("x", [batch_dim, time], xv)
    y_e, _ = rf.audio.log_mel_filterbank_from_raw(x, in_spatial_dim=time, out_dim=out_dim, log_base=np.e)
    np.testing.assert_allclose(g.run(y_e)[0, 2, :4], [-9.419405, -8.370215, -7.558866, -6.7473974], atol=1e-4)
    _, sd = rf.audio.log_mel_filterbank_from_raw(x, in_spatial_dim=time, out_dim=out_dim, n_fft=1024,
                                                 window_len=0.03, step_len=0.015)
    assert sd.name == "⌈((-239+time2)+-240)/240⌉"
    np.testing.assert_array_equal(g.run(sd.dyn_size_ext), [32, 19])  # observed


class _Batch:
    """A [B, T, F] batch of ones in its own graph (SpecAugment draws over the batch)."""

    def __init__(self, lens, n_feat=40):
        self.graph = tf.Graph()
        self.lens = np.asarray(lens, "int32")
        with self.graph.as_default():
            self.session = tf.compat.v1.Session()
            self.time = Dim(None, name="time")
            self.time.dyn_size_ext = Tensor("lens", [batch_dim], "int32", raw_tensor=tf.constant(self.lens))
            self.feat = Dim(n_feat, name="feat")
            n_b, n_t = len(lens), int(self.lens.max())
            self.x = Tensor("x", [batch_dim, self.time, self.feat], "float32", feature_dim=self.feat,
                            raw_tensor=tf.ones([n_b, n_t, n_feat]))

    def masks(self, feed=None, **kwargs):
        """:return: (masked frames per seq, masked features per seq, the output) with width-1 masks"""
        with self.graph.as_default():
            y = rf.audio.specaugment(self.x, spatial_dim=self.time, max_consecutive_spatial_dims=1,
                                     max_consecutive_feature_dims=1, **kwargs)
            assert y.dims == self.x.dims
            yv = self.session.run(y.raw_tensor, feed)
        n_frames = np.array([(yv[b, :n] == 0).all(axis=1).sum() for b, n in enumerate(self.lens)])
        n_feats = np.array([(yv[b, :n] == 0).all(axis=0).sum() for b, n in enumerate(self.lens)])
        return n_frames, n_feats, yv


def test_specaugment_only_in_training():
    batch = _Batch([50, 30])
    rf.init_forward_step_run_ctx()
    assert rf.audio.specaugment(batch.x, spatial_dim=batch.time) is batch.x
    rf.init_train_step_run_ctx(train_flag=False, step=5000)
    assert rf.audio.specaugment(batch.x, spatial_dim=batch.time) is batch.x
    with batch.graph.as_default():
        flag = tf.compat.v1.placeholder(tf.bool, [])
    rf.init_train_step_run_ctx(train_flag=flag, step=5000)
    _, _, off = batch.masks({flag: False})
    assert (off == 1).all()
    frames, feats, on = batch.masks({flag: True})
    assert (on == 0).any() and (frames >= 2).all() and (feats >= 2).all()
    rf.reset_run_ctx()


def test_specaugment_mask_counts_follow_steps():
    # observed with the reference (B=256, lengths 300 and 100, width-1 masks): step 2500: 2..12 frames for both
    # (the longest length sets the count), 2..8 for the short ones with num_masks_per_seq=True
    lens = [300] * 32 + [100] * 32
    batch = _Batch(lens)
    long_, short = slice(0, 32), slice(32, 64)
    for step, (t_lo, t_hi), (f_lo, f_hi) in [(0, (0, 3), (0, 2)), (1500, (1, 6), (1, 3)), (2500, (2, 12), (2, 5))]:
        rf.init_train_step_run_ctx(train_flag=True, step=step)
        frames, feats, _ = batch.masks()
        assert t_lo <= frames.min() and frames.max() <= t_hi, (step, frames)
        assert f_lo <= feats.min() and feats.max() <= f_hi, (step, feats)
        assert frames[short].max() > 0 or step == 0
    rf.init_train_step_run_ctx(train_flag=True, step=2500)
    frames, _, _ = batch.masks(num_masks_per_seq=True)
    assert 2 <= frames[short].min() and frames[short].max() <= 8
    assert frames[long_].max() <= 12
    rf.init_train_step_run_ctx(train_flag=True, step=0)
    frames, feats, _ = batch.masks(global_train_step_dependent=False)
    assert frames.min() >= 2 and feats.min() >= 2  # as from steps[2] on
    frames, feats, _ = batch.masks(steps=(100, 1000, 2000))  # before steps[0]: nothing
    assert frames.max() == 0 and feats.max() == 0
    rf.reset_run_ctx()


def test_specaugment_mask_widths():
    batch = _Batch([120, 80], n_feat=20)
    rf.init_train_step_run_ctx(train_flag=True, step=0)
    with batch.graph.as_default():
        y = rf.audio.specaugment(batch.x, spatial_dim=batch.time, global_train_step_dependent=False,
                                 max_consecutive_spatial_dims=3, max_consecutive_feature_dims=2)
        yv = batch.session.run(y.raw_tensor)
    for b, n in enumerate(batch.lens):
        zero = yv[b, :n] == 0
        rows, cols = zero.all(axis=1), zero.all(axis=0)
        # every masked entry lies in a masked frame or a masked feature
        assert (zero == (rows[:, None] | cols[None, :])).all()
        assert 2 <= _runs(cols).sum() <= 5 * 2 and max(_runs(cols)) <= 5 * 2
    rf.reset_run_ctx()


def _runs(v):
    out, c = [], 0
    for b in list(v) + [False]:
        if b:
            c += 1
        elif c:
            out.append(c)
            c = 0
    return np.array(out or [0])


def test_random_mask_and_mask():
    batch = _Batch([10, 10], n_feat=6)
    with batch.graph.as_default():
        y = rf.audio.random_mask(batch.x, mask_axis=batch.feat, broadcast_axis=batch.time, min_num=2, max_num=2,
                                 max_dims=1, mask_value=-1.0)
        pos = Tensor("pos", [batch_dim], "int32", raw_tensor=tf.constant([1, 7]), sparse_dim=batch.time)
        z = rf.audio.mask(batch.x, mask_axis=batch.time, pos=pos, max_amount=1)
        yv, zv = batch.session.run((y.raw_tensor, z.raw_tensor))
    assert ((yv == -1).all(axis=1).sum(axis=1) == 2).all()  # two distinct features per sequence, whole frames
    assert set(np.unique(yv)) <= {-1.0, 1.0}
    assert (zv[0, 1] == 0).all() and (zv[1, 7] == 0).all() and (zv == 0).sum() == 2 * 6
    with pytest.raises(FrontendError, match="is not a dim of"):
        rf.audio.random_mask(batch.x, mask_axis=Dim(3, name="other"), broadcast_axis=batch.time, min_num=1,
                             max_num=1, max_dims=1)
