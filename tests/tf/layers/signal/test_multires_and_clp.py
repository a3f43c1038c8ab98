"""multichannel_multiresolution_stft_layer and complex_linear_projection: numpy references; frame counts, dims,
params and the log epsilon as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError, LayerShapeError
from tf_net_helpers import build_net, make_feed

from test_stft_variants import np_hann, np_stft  # noqa: E402  (same folder)


def _multires(session, frame_sizes, fft_sizes, pad_last_frame=False, window="hanning"):
    x = np.random.RandomState(5).randn(3, 11, 2).astype("float32")
    net = build_net({"output": {"class": "multichannel_multiresolution_stft_layer", "from": "data",
                                "frame_shift": 2, "frame_sizes": frame_sizes, "fft_sizes": fft_sizes,
                                "window": window, "nr_of_channels": 2, "pad_last_frame": pad_last_frame}},
                    {"data": {"dim": 2}})
    out = net.get_layer("output").output
    y, lens = session.run([out.placeholder, out.dims[1].dyn_size],
                          feed_dict=make_feed(net, {"data": x}, {"data": [11, 7, 6]}))
    return x, out, y, lens


@pytest.mark.parametrize("frame_sizes, fft_sizes, pad_last_frame, n_frames, lens", [
    # observed from the reference (T = 11, 7, 6; shift 2): frame count and lengths of the first resolution
    ([4, 6], [4, 8], False, 4, [4, 2, 2]),
    ([6, 4], [8, 4], False, 3, [3, 1, 1]),
    ([4, 6], [4, 8], True, 6, [5, 3, 2]),
    ([6, 4], [8, 4], True, 6, [4, 2, 1]),
])
def test_multires_stft(session, frame_sizes, fft_sizes, pad_last_frame, n_frames, lens):
    x, out, y, got_lens = _multires(session, frame_sizes, fft_sizes, pad_last_frame)
    assert [d.description for d in out.dims[1:]] == ["output:MultiChannelMultiResolutionStft", "output:feature-dense"]
    assert out.dims[2].dimension == 16 and out.dtype == "complex64"
    assert y.shape == (3, n_frames, 16) and got_lens.tolist() == lens
    for b in range(3):
        expected = []
        for size, fft in zip(frame_sizes, fft_sizes):
            for c in range(2):  # the raw signal, zero-padded where a longer frame reads past its end
                padded = np.concatenate([x[b, :, c], np.zeros(16)])
                expected.append(np_stft(padded, size, 2, fft, np_hann(size), False)[:n_frames])
        np.testing.assert_allclose(y[b], np.concatenate(expected, axis=-1), rtol=1e-4, atol=1e-4)


def test_multires_stft_single_equals_multichannel_stft(session):
    x, _, y, lens = _multires(session, [5], [8], window="None")
    net = build_net({"output": {"class": "multichannel_stft_layer", "from": "data", "frame_shift": 2,
                                "frame_size": 5, "fft_size": 8, "window": "None", "nr_of_channels": 2}},
                    {"data": {"dim": 2}})
    out = net.get_layer("output").output
    y1, lens1 = session.run([out.placeholder, out.dims[1].dyn_size],
                            feed_dict=make_feed(net, {"data": x}, {"data": [11, 7, 6]}))
    np.testing.assert_allclose(y, y1, rtol=1e-5, atol=1e-5)
    assert lens.tolist() == lens1.tolist() == [4, 2, 1]


def test_multires_stft_zip_and_errors():
    # fft_sizes shorter than frame_sizes: pairs as zip (observed: feature dim 2 * 3 for one resolution)
    net = build_net({"output": {"class": "multichannel_multiresolution_stft_layer", "from": "data",
                                "frame_shift": 2, "frame_sizes": [4, 6], "fft_sizes": [4], "nr_of_channels": 2}},
                    {"data": {"dim": 2}})
    assert net.get_layer("output").output.dim == 6
    base = {"class": "multichannel_multiresolution_stft_layer", "from": "data", "frame_shift": 2,
            "frame_sizes": [4], "fft_sizes": [4], "nr_of_channels": 2}
    for opts, error in [({"window": "blackman"}, LayerArgError), ({"use_rfft": False}, LayerArgError),
                        ({"fft_sizes": []}, LayerArgError), ({"nr_of_channels": 1}, LayerShapeError)]:
        with pytest.raises(error):
            build_net({"output": {**base, **opts}}, {"data": {"dim": 2}})


def np_clp(x, kernel):
    z = x[..., 0::2] + 1j * x[..., 1::2]
    return np.log(np.abs(z @ (kernel[0] + 1j * kernel[1])) + 1e-20)


def test_complex_linear_projection(session):
    net = build_net({"output": {"class": "complex_linear_projection", "from": "data", "nr_of_filters": 4}},
                    {"data": {"dim": 6}})
    layer = net.get_layer("output")
    assert layer.output.dim == 4 and layer.output.dtype == "float32"
    assert layer.output.dims[2].description == "output:feature-dense"
    assert list(layer.params) == ["clp_kernel"] and layer.params["clp_kernel"].shape.as_list() == [2, 3, 4]
    kernel = np.random.RandomState(2).randn(2, 3, 4).astype("float32")
    layer.params["clp_kernel"].load(kernel, session=session)
    x = np.random.RandomState(1).randn(2, 3, 6).astype("float32")
    x[1, 2] = 0.0
    y = session.run(layer.output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [3, 3]}))
    np.testing.assert_allclose(y[:, :2], np_clp(x, kernel)[:, :2], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y[1, 2], np.log(1e-20), rtol=1e-6)  # observed: zero input -> -46.0517


def test_complex_linear_projection_reference_value(session):
    # the reference's example: 257 bins of 1 + 0.5i through an all-ones kernel -> log|257 * (1 + 0.5i) * (1 + i)|
    net = build_net({"output": {"class": "complex_linear_projection", "from": "data", "nr_of_filters": 2,
                                "n_out": 2}}, {"data": {"dim": 514}})
    layer = net.get_layer("output")
    layer.params["clp_kernel"].load(np.ones((2, 257, 2), "float32"), session=session)
    x = np.tile(np.array([1.0, 0.5], "float32"), 257)[None, None]
    y = session.run(layer.output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [1]}))
    np.testing.assert_allclose(y, np.full((1, 1, 2), 6.00722122), rtol=1e-6)


@pytest.mark.parametrize("opts, dim, error, arg", [
    ({"nr_of_filters": 4, "n_out": 5}, 6, LayerArgError, "n_out"),
    ({"n_out": 4}, 6, LayerArgError, "nr_of_filters"),
    ({"nr_of_filters": 4}, 7, LayerShapeError, None),
])
def test_complex_linear_projection_errors(opts, dim, error, arg):
    with pytest.raises(error) as info:
        build_net({"output": {"class": "complex_linear_projection", "from": "data", **opts}}, {"data": {"dim": dim}})
    if arg:
        assert info.value.arg == arg
