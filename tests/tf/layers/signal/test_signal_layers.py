"""stft, mel_filterbank, dct: numpy references; dims and filterbank values as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from returnn.tf.layers.signal.mel_filterbank import mel_filterbank_matrix
from tf_net_helpers import build_net, make_feed

AUDIO = np.random.RandomState(0).randn(2, 30, 1).astype("float32")


def test_stft(session):
    net = build_net({"output": {"class": "stft", "from": "data", "frame_shift": 4, "frame_size": 8, "fft_size": 8}},
                    {"data": {"dim": 1}})
    out = net.get_layer("output").output
    assert repr(out) == ("Tensor{'output_output', [B,T|'⌈((-3+time:var:extern_data:data)+-4)/4⌉'[B],"
                         "F|F'output:channel'(5)], dtype='complex64'}")  # observed from the reference
    y, lens = session.run([out.placeholder, out.dims[1].dyn_size],
                          feed_dict=make_feed(net, {"data": AUDIO}, {"data": [30, 21]}))
    assert lens.tolist() == [6, 4]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)  # periodic Hann
    frames = np.stack([AUDIO[:, 4 * t:4 * t + 8, 0] for t in range(6)], axis=1)
    np.testing.assert_allclose(y, np.fft.rfft(frames * window, n=8), rtol=1e-4, atol=1e-5)


def test_mel_filterbank_matrix_observed():
    # columns observed from the reference for fft_size=8, 3 filters, 16 kHz
    np.testing.assert_allclose(mel_filterbank_matrix(16000, 8, 3),
                               [[0, 0, 0], [0, 0.89278, 0.10722], [0, 0, 0.98366], [0, 0, 0.49183], [0, 0, 0]],
                               atol=1e-5)


def test_mel_filterbank_layer(session):
    x = np.abs(np.random.RandomState(1).randn(2, 3, 5)).astype("float32")
    net = build_net({"output": {"class": "mel_filterbank", "from": "data", "fft_size": 8, "nr_of_filters": 3,
                                "n_out": 3}}, {"data": {"dim": 5}})
    y = session.run(net.get_layer("output").output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [3, 2]}))
    np.testing.assert_allclose(y, x @ mel_filterbank_matrix(16000, 8, 3), rtol=1e-5)
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "mel_filterbank", "from": "data", "fft_size": 8, "nr_of_filters": 3}},
                  {"data": {"dim": 5}})
    assert info.value.arg == "n_out"


def np_dct(x, dct_type, norm):
    """DCT-II (unnormalized) and DCT-III (orthonormal) over the last axis, by their definitions"""
    n = x.shape[-1]
    k, i = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")  # output index k, input index i
    if dct_type == 2:
        return x @ (2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))).T
    basis = np.cos(np.pi * i * (2 * k + 1) / (2 * n)) * np.where(i == 0, np.sqrt(1 / n), np.sqrt(2 / n))
    return x @ basis.T


@pytest.mark.parametrize("dct_type, norm", [(2, None), (3, "ortho")])
def test_dct(session, dct_type, norm):
    x = np.random.RandomState(2).randn(2, 3, 6).astype("float32")
    net = build_net({"output": {"class": "dct", "from": "data", "type": dct_type, "norm": norm}}, {"data": {"dim": 6}})
    y = session.run(net.get_layer("output").output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [3, 2]}))
    np.testing.assert_allclose(y, np_dct(x, dct_type, norm), rtol=1e-4, atol=1e-4)
