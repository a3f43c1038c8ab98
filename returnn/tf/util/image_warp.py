"""Random smooth 2D warping (time/frequency warping for data augmentation): ``create_random_warp_flow_2d`` makes
a flow field, ``dense_image_warp`` applies it. Numerics as the reference (observed on fixed inputs and noise).
"""

from __future__ import annotations

import math
from typing import Any, Sequence, Tuple, Union

import tensorflow as tf

from returnn.tf.util.errors import TFUtilValueError

FloatPair = Union[float, Sequence[float]]


def _pair(value: FloatPair) -> Tuple[Any, Any]:
    if isinstance(value, (list, tuple)):
        assert len(value) == 2, value
        return value[0], value[1]
    return value, value


def _gaussian_kernel_1d(std: float) -> tf.Tensor:
    """Normal density at the integers ``-h..h``, ``h = int(2 * std + 1)`` (float32, not normalized)."""
    half = int(std * 2 + 1)
    pos = tf.range(-half, half + 1, dtype=tf.float32)
    return tf.exp(-0.5 * tf.square(pos / std)) / (std * math.sqrt(2.0 * math.pi))


def create_random_warp_flow_2d(shape: Any, std: FloatPair = None, scale: FloatPair = 10.0, blur_std: float = 2.0
                               ) -> tf.Tensor:
    """A smooth random flow field for :func:`dense_image_warp`.

    Gaussian noise (per flow component ``k`` with stddev ``std[k]``) on a coarse grid of
    ``(h // int(scale[0]), w // int(scale[1]))`` points, blurred by a normalized 2D Gaussian kernel (stddev
    ``blur_std``, radius ``int(2 * blur_std + 1)``, zero padding at the borders), then resized bilinearly
    (``tf.compat.v1.image.resize_images``, no corner alignment) to ``(h, w)``.

    :param shape: (batch, h, w) int32 (e.g. ``tf.shape(image)[:-1]``)
    :param std: float or (std_h, std_w): scale of the flow per component (required)
    :param scale: float or (scale_h, scale_w): coarse grid spacing in pixels (truncated to int)
    :param blur_std: stddev of the Gaussian blur in coarse-grid points (> 0)
    :return: (batch, h, w, 2) float32; ``[..., 0]`` shifts along h, ``[..., 1]`` along w
    :raises TFUtilValueError: ``std`` missing, ``blur_std`` not positive
    """
    if std is None:
        raise TFUtilValueError("create_random_warp_flow_2d", "std", expected="a float or a pair (std_h, std_w)",
                               got=std)
    if not blur_std or blur_std <= 0:
        raise TFUtilValueError("create_random_warp_flow_2d", "blur_std", expected="a positive float", got=blur_std)
    std_h, std_w = _pair(std)
    scale_h, scale_w = _pair(scale)
    shape = tf.convert_to_tensor(shape)
    n_batch, height, width = shape[0], shape[1], shape[2]
    coarse_shape = tf.stack([n_batch, height // int(scale_h), width // int(scale_w)])
    noise_h = tf.random.normal(coarse_shape, stddev=std_h)
    noise_w = tf.random.normal(coarse_shape, stddev=std_w)
    flow = tf.stack([noise_h, noise_w], axis=0)  # (2, batch, h', w')
    kernel_1d = _gaussian_kernel_1d(blur_std)
    kernel = tf.einsum("i,j->ij", kernel_1d, kernel_1d)
    kernel = kernel / tf.reduce_sum(kernel)
    coarse_hw = tf.shape(flow)[2:]
    flow = tf.reshape(flow, tf.concat([[-1], coarse_hw, [1]], axis=0))  # (2*batch, h', w', 1)
    flow = tf.nn.conv2d(flow, kernel[:, :, None, None], strides=[1, 1, 1, 1], padding="SAME")
    flow = tf.reshape(flow, tf.concat([[2, n_batch], coarse_hw], axis=0))
    flow = tf.transpose(flow, [1, 2, 3, 0])  # (batch, h', w', 2)
    return tf.compat.v1.image.resize_images(flow, tf.stack([height, width]),
                                            method=tf.compat.v1.image.ResizeMethod.BILINEAR)


def dense_image_warp(image: Any, flow: Any, name: str = "dense_image_warp") -> tf.Tensor:
    """Warps ``image`` by ``flow``: ``out[b, y, x] = image[b, y - flow[b, y, x, 0], x - flow[b, y, x, 1]]``, read
    by bilinear interpolation; query points outside the image use the nearest border cell pair (the
    interpolation weight clipped to [0, 1]). The algorithm of ``tfa.image.dense_image_warp``, as the reference.

    :param image: (batch, h, w, channels) float, h >= 2 and w >= 2
    :param flow: (batch, h, w, 2) of the same dtype
    :return: (batch, h, w, channels)
    """
    with tf.name_scope(name):
        image = tf.convert_to_tensor(image)
        flow = tf.convert_to_tensor(flow, dtype=image.dtype)
        shape = tf.shape(image)
        n_batch, height, width, channels = shape[0], shape[1], shape[2], shape[3]
        grid_y, grid_x = tf.meshgrid(tf.range(height), tf.range(width), indexing="ij")
        grid = tf.cast(tf.stack([grid_y, grid_x], axis=-1), flow.dtype)  # (h, w, 2)
        query = tf.reshape(grid[None] - flow, [n_batch, height * width, 2])
        out = _interpolate_bilinear(image, query)
        out = tf.reshape(out, [n_batch, height, width, channels])
        out.set_shape(image.shape)
        return out


def _interpolate_bilinear(grid: tf.Tensor, query: tf.Tensor) -> tf.Tensor:
    """:param grid: (batch, h, w, c); :param query: (batch, n, 2) float (y, x); :return: (batch, n, c)"""
    shape = tf.shape(grid)
    n_batch, height, width, channels = shape[0], shape[1], shape[2], shape[3]
    n_queries = tf.shape(query)[1]
    floors, alphas = [], []
    for dim, size in ((0, height), (1, width)):
        q = query[:, :, dim]
        max_floor = tf.cast(size - 2, q.dtype)
        floor = tf.minimum(tf.maximum(tf.zeros([], q.dtype), tf.floor(q)), max_floor)
        alpha = tf.minimum(tf.maximum(q - floor, tf.zeros([], q.dtype)), tf.ones([], q.dtype))
        floors.append(tf.cast(floor, tf.int32))
        alphas.append(tf.expand_dims(alpha, 2))  # (batch, n, 1)
    flat = tf.reshape(grid, [n_batch * height * width, channels])
    batch_offsets = tf.reshape(tf.range(n_batch) * height * width, [n_batch, 1])

    def gather(y: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        idx = batch_offsets + y * width + x
        return tf.reshape(tf.gather(flat, idx), [n_batch, n_queries, channels])

    top_left = gather(floors[0], floors[1])
    top_right = gather(floors[0], floors[1] + 1)
    bottom_left = gather(floors[0] + 1, floors[1])
    bottom_right = gather(floors[0] + 1, floors[1] + 1)
    top = alphas[1] * (top_right - top_left) + top_left
    bottom = alphas[1] * (bottom_right - bottom_left) + bottom_left
    return alphas[0] * (bottom - top) + top


def interpolate_bilinear(grid: Any, query_points: Any, name: str = "interpolate_bilinear",
                         indexing: str = "ij") -> tf.Tensor:
    """Bilinear interpolation of a batch of images at float positions (``tfa.image.interpolate_bilinear``).

    :param grid: (batch, h, w, channels) float, h >= 2 and w >= 2
    :param query_points: (batch, n, 2) float positions, (y, x) for ``indexing="ij"``, (x, y) for ``"xy"``; outside
        the image the nearest border cell pair is used (the weight clipped to [0, 1])
    :param name: name scope
    :param indexing: "ij" or "xy"
    :return: (batch, n, channels)
    :raises TFUtilValueError: another ``indexing``
    """
    if indexing not in ("ij", "xy"):
        from returnn.tf.util.errors import TFUtilValueError  # noqa: PLC0415

        raise TFUtilValueError("interpolate_bilinear", "indexing", expected="'ij' or 'xy'", got=indexing)
    with tf.name_scope(name):
        grid = tf.convert_to_tensor(grid)
        query_points = tf.convert_to_tensor(query_points, dtype=grid.dtype)
        if indexing == "xy":
            query_points = tf.reverse(query_points, axis=[2])
        return _interpolate_bilinear(grid, query_points)
