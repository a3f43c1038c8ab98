"""Tests for demos/asr-synth/features.py: WAV parsing, resampling, log-mel against a numpy reference."""

import os
import struct

import numpy as np
import pytest

from tests.demos._demo_modules import ASR_DIR, load_module

features = load_module(os.path.join(ASR_DIR, "features.py"), "features")


def _wav_bytes(samples: np.ndarray, rate: int, data_size=None) -> bytes:
    raw = samples.astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    size = len(raw) if data_size is None else data_size
    return b"RIFF" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + \
        b"data" + struct.pack("<I", size) + raw


def test_parse_wav_bytes_streamed_size():
    samples = np.array([0, 16384, -32768, 32767], dtype=np.int16)
    x, rate = features.parse_wav_bytes(_wav_bytes(samples, 22050, data_size=0xFFFFFFFF))
    assert rate == 22050
    np.testing.assert_array_equal(x, np.array([0.0, 0.5, -1.0, 32767 / 32768], dtype=np.float32))
    with pytest.raises(features.WavFormatError):
        features.parse_wav_bytes(b"not a wav file at all")


def test_resample_keeps_frequency():
    t = np.arange(22050) / 22050.0
    x = np.sin(2 * np.pi * 440.0 * t).astype(np.float32)
    y = features.resample(x, 22050, 16000)
    assert y.shape == (16000,)
    spec = np.abs(np.fft.rfft(y))
    assert np.argmax(spec) == 440  # 1 Hz bins over one second
    assert abs(np.sqrt(np.mean(y ** 2)) - np.sqrt(0.5)) < 0.01


def test_num_frames():
    assert [features.num_frames(n) for n in (0, 399, 400, 559, 560, 16000)] == [0, 0, 1, 1, 2, 98]


def _numpy_log_mel(x: np.ndarray) -> np.ndarray:
    """Independent numpy version: periodic Hann, |rfft|^2, HTK-mel triangles (DC bin excluded), log(+1e-6)."""
    n = features.num_frames(len(x))
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)
    frames = np.stack([x[i * 160 : i * 160 + 400] * window for i in range(n)])
    power = np.abs(np.fft.rfft(frames, 512)) ** 2  # [T, 257]

    def mel(f):
        return 1127.0 * np.log(1.0 + f / 700.0)

    bin_mel = mel(np.linspace(0, 8000, 257))[1:]
    edges = np.linspace(mel(20.0), mel(7600.0), 42)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(0, np.minimum((bin_mel[:, None] - lower) / (center - lower),
                                       (upper - bin_mel[:, None]) / (upper - center)))
    weights = np.concatenate([np.zeros((1, 40)), weights])
    return np.log(power @ weights + 1e-6)


def test_log_mel_matches_numpy_and_batching():
    rnd = np.random.RandomState(0)
    waves = [rnd.uniform(-0.5, 0.5, size=n).astype(np.float32) for n in (1600, 400, 5000, 399)]
    extractor = features.LogMelExtractor(batch_size=2, num_threads=1)
    try:
        out = extractor(waves)
    finally:
        extractor.close()
    assert [o.shape for o in out] == [(8, 40), (1, 40), (29, 40), (0, 40)]
    for wave, feat in zip(waves[:3], out[:3]):
        np.testing.assert_allclose(feat, _numpy_log_mel(wave), rtol=1e-3, atol=1e-3)
