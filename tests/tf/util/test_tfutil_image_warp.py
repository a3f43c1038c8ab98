"""create_random_warp_flow_2d / dense_image_warp against numpy references and values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util


def _np_dense_image_warp(image, flow):
    """Bilinear read at (y - flow_y, x - flow_x), cells clamped to the image, weights clipped to [0, 1]."""
    n_batch, height, width, _ = image.shape
    out = np.zeros_like(image)
    for b in range(n_batch):
        for y in range(height):
            for x in range(width):
                floors, alphas = [], []
                for q, size in ((y - flow[b, y, x, 0], height), (x - flow[b, y, x, 1], width)):
                    f = min(max(0.0, np.floor(q)), size - 2)
                    floors.append(int(f))
                    alphas.append(min(max(q - f, 0.0), 1.0))
                (y0, x0), (ay, ax) = floors, alphas
                top = image[b, y0, x0] + ax * (image[b, y0, x0 + 1] - image[b, y0, x0])
                bottom = image[b, y0 + 1, x0] + ax * (image[b, y0 + 1, x0 + 1] - image[b, y0 + 1, x0])
                out[b, y, x] = top + ay * (bottom - top)
    return out


def test_dense_image_warp_numpy_and_observed(session):
    rng = np.random.RandomState(0)
    image = rng.randn(2, 5, 4, 3).astype(np.float32)
    flow = (rng.randn(2, 5, 4, 2) * 2).astype(np.float32)
    out = session.run(tf_util.dense_image_warp(image, flow))
    np.testing.assert_allclose(out, _np_dense_image_warp(image, flow), rtol=1e-5, atol=1e-6)
    # observed from the reference on the same inputs (batch 0, channel 0)
    np.testing.assert_allclose(out[0, :, :, 0], [
        [0.84283704, 1.7640524, 0.06507367, 0.8911216], [1.7640524, 1.7086186, -0.47701782, -0.30405727],
        [0.79434454, 0.10569555, 0.33658734, 0.14791472], [1.7640524, -1.6138978, 0.27706742, 0.8421067],
        [0.11590314, 0.07992733, -1.3135735, 0.30247188]], rtol=1e-6)


def test_dense_image_warp_zero_flow_is_identity(session):
    image = np.random.RandomState(1).randn(1, 3, 6, 2).astype(np.float32)
    np.testing.assert_allclose(session.run(tf_util.dense_image_warp(image, np.zeros((1, 3, 6, 2), np.float32))),
                               image, rtol=1e-6, atol=1e-6)  # last row/col: a + 1 * (b - a)


def _np_flow(noises, stds, shape, blur_std):
    """Noise * std per component, blurred by a normalized Gaussian (radius int(2 std + 1), zero padding), resized
    bilinearly (no corner alignment, no half-pixel offset)."""
    half = int(2 * blur_std + 1)
    k1 = np.exp(-0.5 * (np.arange(-half, half + 1) / blur_std) ** 2)
    kernel = np.outer(k1, k1) / np.outer(k1, k1).sum()
    _, height, width = shape
    comps = []
    for noise, std in zip(noises, stds):
        x = noise.astype(np.float64) * std  # (batch, h', w')
        n_batch, hc, wc = x.shape
        padded = np.zeros((n_batch, hc + 2 * half, wc + 2 * half))
        padded[:, half:half + hc, half:half + wc] = x
        blurred = np.zeros_like(x)
        for i in range(hc):
            for j in range(wc):
                blurred[:, i, j] = np.sum(padded[:, i:i + 2 * half + 1, j:j + 2 * half + 1] * kernel, axis=(1, 2))
        sy, sx = np.arange(height) * hc / height, np.arange(width) * wc / width
        y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
        y1, x1 = np.minimum(y0 + 1, hc - 1), np.minimum(x0 + 1, wc - 1)
        dy, dx = (sy - y0)[:, None], (sx - x0)[None, :]
        top = blurred[:, y0][:, :, x0] * (1 - dx) + blurred[:, y0][:, :, x1] * dx
        bottom = blurred[:, y1][:, :, x0] * (1 - dx) + blurred[:, y1][:, :, x1] * dx
        comps.append(top * (1 - dy) + bottom * dy)
    return np.stack(comps, axis=-1)


def _flow_with_fed_noise(session, shape, noises, **kwargs):
    graph = tf.compat.v1.get_default_graph()
    n_ops = len(graph.get_operations())
    flow = tf_util.create_random_warp_flow_2d(tf.constant(shape), **kwargs)
    random_ops = [op.outputs[0] for op in graph.get_operations()[n_ops:] if op.type == "RandomStandardNormal"]
    assert len(random_ops) == 2
    return session.run(flow, dict(zip(random_ops, noises)))


@pytest.mark.parametrize("shape,std,scale,blur_std", [((2, 23, 17), (1.5, 0.0), (3.0, 4.0), 2.0),
                                                      ((1, 30, 12), 2.0, 5.0, 1.3), ((2, 20, 20), (0.0, 1.0), 2.5, 0.7)])
def test_random_warp_flow_against_numpy(session, shape, std, scale, blur_std):
    scale_h, scale_w = scale if isinstance(scale, tuple) else (scale, scale)
    coarse = (shape[0], shape[1] // int(scale_h), shape[2] // int(scale_w))  # scale truncated to int, as observed
    rng = np.random.RandomState(5)
    noises = [rng.randn(*coarse).astype(np.float32) for _ in range(2)]
    out = _flow_with_fed_noise(session, shape, noises, std=std, scale=scale, blur_std=blur_std)
    assert out.shape == shape + (2,)
    stds = std if isinstance(std, tuple) else (std, std)
    np.testing.assert_allclose(out, _np_flow(noises, stds, shape, blur_std), rtol=1e-4, atol=1e-6)


def test_random_warp_flow_observed(session):
    rng = np.random.RandomState(42)
    noises = [rng.randn(2, 7, 4).astype(np.float32) for _ in range(2)]
    out = _flow_with_fed_noise(session, (2, 23, 17), noises, std=(1.5, 0.0), scale=(3.0, 4.0))
    # observed from the reference with the same noise fed into its two random ops
    for idx, value in [((0, 0, 0, 0), 0.03705493), ((1, 11, 8, 0), -0.22028327), ((0, 22, 16, 0), -0.24852371),
                       ((1, 5, 3, 0), -0.26233023), ((0, 13, 9, 0), -0.38009873)]:
        assert out[idx] == pytest.approx(value, rel=1e-5)
    assert np.all(out[..., 1] == 0.0)


def test_random_warp_flow_requires_std(session):
    with pytest.raises(ValueError):
        tf_util.create_random_warp_flow_2d(tf.constant([1, 10, 10]))


def test_interpolate_bilinear_against_numpy(session):
    grid = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)
    query = np.array([[[0.5, 1.25], [2.0, 3.0]], [[1.0, 0.0], [0.25, 2.5]]], np.float32)  # (y, x)

    def ref(b, y, x):
        y0, x0 = int(min(np.floor(y), 1)), int(min(np.floor(x), 2))
        ay, ax = y - y0, x - x0
        g = grid[b, :, :, 0]
        top = g[y0, x0] + ax * (g[y0, x0 + 1] - g[y0, x0])
        bottom = g[y0 + 1, x0] + ax * (g[y0 + 1, x0 + 1] - g[y0 + 1, x0])
        return top + ay * (bottom - top)

    got = session.run(tf_util.interpolate_bilinear(grid, query))
    expected = [[[ref(b, y, x)] for y, x in query[b]] for b in range(2)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    got_xy = session.run(tf_util.interpolate_bilinear(grid, query[:, :, ::-1].copy(), indexing="xy"))
    np.testing.assert_allclose(got_xy, expected, rtol=1e-6)
