"""ExtractAudioFeatures (``returnn.datasets.util.feature_extraction``): every feature type and option against
values observed from the reference on the same fixed audio (``speech_corpus.fixed_audio``), to <= 1e-4."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets.util.feature_extraction import ExtractAudioFeatures  # noqa: E402
from returnn.errors import DataFileError, DatasetArgError, UnknownNameError  # noqa: E402

#: (features, options, shape, frame 5 dims 0:6, last frame last 3 dims, sum over all), observed from the
#: reference (ExtractAudioFeatures(features=..., **options).get_audio_features(fixed_audio(), 16000))
REFERENCE_FEATURES = [
    ('mfcc', {}, [31, 40],
     [0.53737, 24.53558, 0.78895, -18.49246, -2.20556, 7.41768], [-0.89828, -5.63537, 3.78572], -2083.344),
    ('mfcc', {'num_feature_filters': 13, 'with_delta': True}, [31, 26],
     [0.53737, 24.53558, 0.78895, -18.49246, -2.20556, 7.41768], [0.76279, -0.64771, -0.85948], -2070.491),
    ('mfcc', {'feature_options': {'fmin': 100, 'n_mels': 64, 'fmax': 6000}}, [31, 40],
     [0.53737, 33.82401, 5.78074, -7.2518, 12.43769, 12.54338], [-0.85934, -1.96853, 3.15145], -613.752),
    ('log_mel_filterbank', {}, [31, 40],
     [-6.73692, -5.98994, -6.00255, -6.34068, 2.42266, 4.45027], [-6.48883, -6.90776, -6.90776], -6189.32),
    ('log_mel_filterbank', {'num_feature_filters': 80, 'window_len': 0.05, 'step_len': 0.02}, [16, 80],
     [-5.99309, -6.15764, -6.44952, -5.25598, -5.67592, -6.2099], [-5.77909, -5.62461, -5.75319], -5206.946),
    ('log_mel_filterbank', {'with_delta': 2, 'num_feature_filters': 20}, [31, 60],
     [-6.14927, 0.66342, 3.85193, 1.69178, -6.55388, -6.30104], [-0.03925, -0.01624, -0.0619], -2588.12),
    ('log_mel_filterbank', {'preemphasis': 0.97}, [31, 40],
     [-6.90776, -6.90776, -6.90776, -6.90776, 1.17849, 3.20591], [-2.95956, -3.1202, -3.75366], -4578.664),
    ('log_mel_filterbank', {'peak_normalization': False}, [31, 40],
     [-6.90776, -6.90776, -6.90776, -6.90776, 0.66141, 2.68902], [-6.90776, -6.90776, -6.90776], -7280.243),
    ('log_mel_filterbank', {'num_feature_filters': 3, 'join_frames': 3, 'with_delta': True}, [11, 18],
     [1.78509, -1.17188, -6.40154, 0.00065, 0.00102, -0.00729], [-0.05074, -0.04258, -0.01956], -188.82),
    ('log_log_mel_filterbank', {}, [31, 40],
     [16.56923, 15.54845, 15.56672, 16.04271, 7.68584, 12.96772], [16.24333, 16.78674, 16.78674], 17705.048),
    ('db_mel_filterbank', {}, [31, 40],
     [-58.51616, -52.02798, -52.13752, -55.07441, 21.04294, 38.65454], [-56.36128, -63.77491, -60.34169], -54305.035),
    ('db_mel_filterbank', {'num_feature_filters': 30, 'feature_options': {'fmin': 60, 'min_amp': 0.001}}, [31, 30],
     [-52.42715, -52.16293, 16.57898, 36.86337, 14.93037, -54.31908], [-57.58603, -59.57455, -60.0], -37509.584),
    ('linear_spectrogram', {'num_feature_filters': 200}, [31, 200],
     [0.16864, 0.16149, 0.36077, 0.32752, 0.20005, 0.39263], [0.20518, 0.14049, 0.10593], 7681.64),
    ('linear_spectrogram', {'num_feature_filters': 256, 'feature_options': {'center': False}}, [27, 256],
     [0.20658, 0.23563, 0.32253, 0.04823, 0.23535, 0.45692], [0.16032, 0.262, 0.41176], 8616.306),
    ('raw', {}, [4800, 1],
     [0.67979], [-0.24592], -2.389),
    ('raw', {'with_delta': True, 'preemphasis': 0.5}, [4800, 2],
     [0.53892, -0.01912], [-0.01756, 0.04924], -3.016),
]


@pytest.mark.parametrize("feat,opts,shape,frame5,last,total", REFERENCE_FEATURES,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(REFERENCE_FEATURES)])
def test_features_equal_reference(feat, opts, shape, frame5, last, total):
    extractor = ExtractAudioFeatures(features=feat, **opts)
    out = extractor.get_audio_features(speech_corpus.fixed_audio(), speech_corpus.SAMPLE_RATE)
    assert out.dtype == np.float32
    assert list(out.shape) == shape
    assert extractor.get_feature_dimension() == shape[1]
    np.testing.assert_allclose(out[5, :6], frame5, atol=1e-4, rtol=0)
    np.testing.assert_allclose(out[-1, -3:], last, atol=1e-4, rtol=0)
    # the rounded reference sum: 1e-3 absolute rounding, plus float32 accumulation over up to 6200 values
    assert abs(float(out.astype(np.float64).sum()) - total) <= 1e-3 + 1e-6 * np.abs(out).sum()


def test_peak_normalization_and_input_not_modified():
    audio = speech_corpus.fixed_audio()
    orig = audio.copy()
    raw = ExtractAudioFeatures(features="raw").get_audio_features(audio, 16000)
    np.testing.assert_array_equal(audio, orig)
    np.testing.assert_allclose(raw[:, 0], orig / np.abs(orig).max(), rtol=1e-6)
    zeros = ExtractAudioFeatures(features="log_mel_filterbank").get_audio_features(np.zeros(4800, np.float32), 16000)
    np.testing.assert_allclose(zeros, np.log(1e-3), rtol=1e-6)  # all-zero audio stays zero (reference)


def test_norm_mean_std_dev_files_arrays_numbers(tmp_path):
    audio = speech_corpus.fixed_audio()
    plain = ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=3).get_audio_features(audio, 16000)
    mean_file = tmp_path / "mean.txt"
    mean_file.write_text("1\n2\n3\n")
    std_file = tmp_path / "std.txt"
    std_file.write_text("2 3 4\n")  # numpy.loadtxt: one line works as well
    for mean, std in [(str(mean_file), str(std_file)), (np.array([1.0, 2, 3]), np.array([2.0, 3, 4]))]:
        out = ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=3, norm_mean=mean,
                                   norm_std_dev=std).get_audio_features(audio, 16000)
        np.testing.assert_allclose(out, (plain - [1, 2, 3]) / [2, 3, 4], rtol=1e-6)
    out = ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=3, norm_mean=1.0,
                               norm_std_dev=2.0).get_audio_features(audio, 16000)
    np.testing.assert_allclose(out, (plain - 1) / 2, rtol=1e-6)
    # observed from the reference: frame 3 of plain / normalized
    np.testing.assert_allclose(plain[3], [1.7884634, -1.1039853, -6.121014], atol=1e-5)
    with pytest.raises(DatasetArgError, match="6 values"):  # with deltas the vector covers the whole dim
        ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=3, with_delta=True,
                             norm_mean=np.array([1.0, 2, 3]))
    with pytest.raises(DataFileError, match="missing.txt"):
        ExtractAudioFeatures(norm_mean=str(tmp_path / "missing.txt"))


def test_pre_and_post_process_order():
    audio = speech_corpus.fixed_audio()
    calls = []

    def pre(audio, sample_rate, random_state):
        calls.append(("pre", float(np.abs(audio).max()), sample_rate))
        return audio * 0.5

    def post(feature_data, seq_name):
        calls.append(("post", seq_name))
        return feature_data * 2

    out = ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=3, pre_process=pre,
                               post_process=post).get_audio_features(audio, 16000, seq_name="s1")
    assert calls == [("pre", 1.0, 16000), ("post", "s1")]  # pre_process sees the peak-normalized audio
    # reference: pre_process x0.5 then post_process x2, frame 3
    np.testing.assert_allclose(out[3], 2 * np.array([0.40216905, -2.4902797, -6.9077554]), atol=1e-5)


def test_random_permute_is_seeded_augmentation():
    audio = speech_corpus.fixed_audio()

    def run(seed, opts):
        ex = ExtractAudioFeatures(features="raw", random_permute=opts, random_state=np.random.RandomState(seed))
        return ex.get_audio_features(audio, 16000)

    a, b = run(3, {"rnd_scale_lower": 0.5, "rnd_scale_upper": 0.5}), run(4, {"rnd_scale_lower": 0.5,
                                                                              "rnd_scale_upper": 0.5})
    np.testing.assert_allclose(a, b)  # a fixed gain, no zoom: the same for every seed
    zoomed = run(0, {"rnd_scale_lower": 1, "rnd_scale_upper": 1, "rnd_zoom_switch": 1.0, "rnd_zoom_lower": 0.9,
                     "rnd_zoom_upper": 0.9})
    assert zoomed.shape == (4320, 1)  # the reference gives 4320 samples for a 0.9 zoom as well
    np.testing.assert_array_equal(run(7, True), run(7, True))
    assert not np.array_equal(run(7, True), run(7, None))  # True: the default options (a gain in [0.8, 1)), not off
    with pytest.raises(DatasetArgError, match="rnd_scale_lowr"):
        run(0, {"rnd_scale_lowr": 1})


def test_errors():
    audio = speech_corpus.fixed_audio()
    with pytest.raises(UnknownNameError, match="log_mel_filterbank"):
        ExtractAudioFeatures(features="log_mel_filterbanks")
    with pytest.raises(DatasetArgError, match="num_feature_filters"):
        ExtractAudioFeatures(features="linear_spectrogram")
    with pytest.raises(DatasetArgError, match="n_fft=26"):
        ExtractAudioFeatures(features="linear_spectrogram", num_feature_filters=13).get_audio_features(audio, 16000)
    with pytest.raises(DataFileError, match="sample rate 16000"):
        ExtractAudioFeatures(sample_rate=8000).get_audio_features(audio, 16000, seq_name="s")
    with pytest.raises(DataFileError, match="2 channels"):
        ExtractAudioFeatures().get_audio_features(np.stack([audio, audio], 1), 16000, seq_name="s")
    with pytest.raises(DatasetArgError, match="feature_options"):
        ExtractAudioFeatures(features="log_mel_filterbank", feature_options={"fmin": 100}).get_audio_features(
            audio, 16000)
    with pytest.raises(DataFileError, match="seq-x"):
        ExtractAudioFeatures().get_audio_features_from_raw_bytes(b"not audio at all", seq_name="seq-x")


def test_raw_channels_and_callable_features():
    audio = speech_corpus.fixed_audio()
    stereo = ExtractAudioFeatures(features="raw", num_channels=2).get_audio_features(
        np.stack([audio, 0.5 * audio], 1), 16000)
    assert stereo.shape == (4800, 2, 1)  # as the reference
    np.testing.assert_allclose(stereo[3, :, 0], [0.65271217, 0.32635608], atol=1e-6)
    ex = ExtractAudioFeatures(features=lambda audio, sample_rate, **kw: np.ones((5, 2)), num_feature_filters=2)
    assert ex.get_audio_features(audio, 16000).shape == (5, 2)


def test_decoding_formats():
    audio = speech_corpus.tone(440, 0.5)
    ex = ExtractAudioFeatures(features="log_mel_filterbank")
    flac = ex.get_audio_features_from_raw_bytes(speech_corpus.encode(audio, "FLAC"))
    wav = ex.get_audio_features_from_raw_bytes(speech_corpus.encode(audio, "WAV"))
    ogg = ex.get_audio_features_from_raw_bytes(speech_corpus.encode(audio, "OGG"))
    assert flac.shape == wav.shape == ogg.shape == (51, 40)
    # 16-bit quantization only (FLAC and WAV round differently, by one step of 2^-15)
    np.testing.assert_allclose(flac, ex.get_audio_features(audio, 16000), atol=0.005)
    np.testing.assert_allclose(wav, ex.get_audio_features(audio, 16000), atol=0.005)
