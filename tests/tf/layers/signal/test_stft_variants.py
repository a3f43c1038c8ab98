"""istft and multichannel_stft_layer: numpy references (framing, windows, FFT, overlap-add); frame counts and dim
layout as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError, LayerShapeError
from tf_net_helpers import build_net, make_feed


def np_hann(n):
    """tf.signal.hann_window (periodic=True): periodic for even ``n``, symmetric for odd ``n``"""
    denom = n if n % 2 == 0 else n - 1
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / denom)


def np_stft(signal, size, shift, fft, window, pad_end):
    """:return: [frames, fft // 2 + 1] of the 1-d ``signal``"""
    n = len(signal)
    n_frames = -(-n // shift) if pad_end else (n - size) // shift + 1
    signal = np.concatenate([signal, np.zeros(max(0, (n_frames - 1) * shift + size - n))])
    return np.stack([np.fft.rfft(signal[i * shift:i * shift + size] * window, fft) for i in range(n_frames)])


def test_np_hann_as_observed():
    # windows recovered from the reference's multichannel_stft_layer output (irfft of a constant signal)
    np.testing.assert_allclose(np_hann(3), [0, 1, 0])
    np.testing.assert_allclose(np_hann(4), [0, 0.5, 1, 0.5])
    np.testing.assert_allclose(np_hann(5), [0, 0.5, 1, 0.5, 0])


@pytest.mark.parametrize("window", ["hanning", "None"])
@pytest.mark.parametrize("pad_last_frame", [False, True])
def test_multichannel_stft(session, window, pad_last_frame):
    x = np.random.RandomState(3).randn(2, 11, 2).astype("float32")
    net = build_net({"output": {"class": "multichannel_stft_layer", "from": "data", "frame_shift": 2,
                                "frame_size": 5, "fft_size": 8, "window": window, "nr_of_channels": 2,
                                "pad_last_frame": pad_last_frame}}, {"data": {"dim": 2}})
    out = net.get_layer("output").output
    assert [d.description for d in out.dims[1:]] == ["output:MultiChannelMultiResolutionStft", "output:feature-dense"]
    assert out.dims[2].dimension == 10 and out.dtype == "complex64"
    y, lens = session.run([out.placeholder, out.dims[1].dyn_size],
                          feed_dict=make_feed(net, {"data": x}, {"data": [11, 7]}))
    # observed from the reference: [4, 2] frames without padding; with it 6 raw frames, lengths still [4, 2]
    assert lens.tolist() == [4, 2] and y.shape == (2, 6 if pad_last_frame else 4, 10)
    win = np_hann(5) if window == "hanning" else np.ones(5)
    for b in range(2):
        expected = np.concatenate([np_stft(x[b, :, c], 5, 2, 8, win, pad_last_frame) for c in range(2)], axis=-1)
        np.testing.assert_allclose(y[b], expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pad_last_frame, lens", [(False, [4, 2, 1]), (True, [5, 3, 1])])
def test_multichannel_stft_frame_counts(session, pad_last_frame, lens):
    # observed from the reference (frame_size 4, shift 2): T=11 -> 4 / 5 (padded), T=7 -> 2 / 3, T=4 -> 1 / 1
    net = build_net({"output": {"class": "multichannel_stft_layer", "from": "data", "frame_shift": 2,
                                "frame_size": 4, "fft_size": 4, "pad_last_frame": pad_last_frame}}, {"data": {"dim": 1}})
    out = net.get_layer("output").output
    got = session.run(out.dims[1].dyn_size, feed_dict=make_feed(net, {"data": np.zeros((3, 11, 1), "float32")},
                                                                 {"data": [11, 7, 4]}))
    assert got.tolist() == lens


@pytest.mark.parametrize("opts, error, arg", [
    ({"window": "blackman"}, LayerArgError, "window"),
    ({"use_rfft": False}, LayerArgError, "use_rfft"),
    ({"nr_of_channels": 1}, LayerShapeError, None),  # the input has 2 channels
])
def test_multichannel_stft_errors(opts, error, arg):
    d = {"class": "multichannel_stft_layer", "from": "data", "frame_shift": 2, "frame_size": 4, "fft_size": 4,
         "nr_of_channels": 2, **opts}
    with pytest.raises(error) as info:
        build_net({"output": d}, {"data": {"dim": 2}})
    if arg:
        assert info.value.arg == arg


def test_istft_inverts_stft(session):
    x = np.random.RandomState(4).randn(2, 40, 1).astype("float32")
    net = build_net({"stft": {"class": "stft", "frame_size": 8, "frame_shift": 2, "from": "data"},
                     "output": {"class": "istft", "frame_size": 8, "frame_shift": 2, "from": "stft"}},
                    {"data": {"dim": 1}})
    out = net.get_layer("output").output
    assert out.dtype == "float32" and out.dims[2].dimension == 1
    y, lens = session.run([out.placeholder, out.dims[1].dyn_size],
                          feed_dict=make_feed(net, {"data": x}, {"data": [40, 30]}))
    assert lens.tolist() == [40, 30]  # 17 and 12 frames: frames * 2 + 6 (the reference: 3 frames of 4 -> 16)
    np.testing.assert_allclose(y[0, 8:-8], x[0, 8:-8], rtol=1e-4, atol=1e-4)


def test_istft_overlap_add(session):
    # independent numpy overlap-add of irfft frames with the window tf.signal.inverse_stft_window_fn(3) builds
    # for a periodic Hann window of 6: w / sum over the overlapping shifts of w**2
    c = np.random.RandomState(5).randn(1, 4, 5) + 1j * np.random.RandomState(6).randn(1, 4, 5)
    net = build_net({"output": {"class": "istft", "frame_size": 6, "frame_shift": 3, "fft_size": 8, "from": "data"}},
                    {"data": {"dim": 5, "dtype": "complex64"}})
    out = net.get_layer("output").output
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": c.astype("complex64")}, {"data": [4]}))
    w = np_hann(6)
    denom = w ** 2 + np.roll(w ** 2, 3)
    inv_w = w / denom
    expected = np.zeros(4 * 3 + 3)
    for t in range(4):
        expected[t * 3:t * 3 + 6] += np.fft.irfft(c[0, t], 8)[:6] * inv_w
    np.testing.assert_allclose(y[0, :, 0], expected, rtol=1e-4, atol=1e-5)


def test_istft_needs_complex_bins():
    with pytest.raises(LayerShapeError):
        build_net({"output": {"class": "istft", "frame_size": 8, "frame_shift": 4, "from": "data"}},
                  {"data": {"dim": 5}})
