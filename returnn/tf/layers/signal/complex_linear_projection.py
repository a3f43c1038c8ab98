"""``{"class": "complex_linear_projection", "nr_of_filters": 128}``: a complex-valued linear projection of a
spectrum, then the log magnitude.

Shape: ``{B, T, 2 * K} -> {B, T, nr_of_filters}`` float32. The input holds ``K`` complex values per frame with
real and imaginary parts interleaved (``re_0, im_0, re_1, im_1, ...``). Param (as the reference) ``clp_kernel``
``[2, K, nr_of_filters]``: ``W = clp_kernel[0] + i * clp_kernel[1]``, initialized ``glorot_uniform``. Output
``log(|x W| + 1e-20)`` (observed from the reference: a zero input gives ``log(1e-20)``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.out_template import base_out_template
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.init import get_initializer

#: added to the magnitude before the log
LOG_EPSILON = 1e-20


def complex_projection_log_magnitude(x: tf.Tensor, kernel: tf.Tensor) -> tf.Tensor:
    """:param x: float [..., 2 * K], real and imaginary parts interleaved
    :param kernel: float [2, K, N] (real part, imaginary part)
    :return: float [..., N], ``log(|x W| + 1e-20)``"""
    shape = tf.shape(x)
    pairs = tf.reshape(x, tf.concat([shape[:-1], [-1, 2]], axis=0))  # [..., K, 2]
    x_re, x_im = pairs[..., 0], pairs[..., 1]
    w_re, w_im = kernel[0], kernel[1]
    axes = [[x.shape.rank - 1], [0]]
    re = tf.tensordot(x_re, w_re, axes=axes) - tf.tensordot(x_im, w_im, axes=axes)
    im = tf.tensordot(x_re, w_im, axes=axes) + tf.tensordot(x_im, w_re, axes=axes)
    return tf.math.log(tf.sqrt(re * re + im * im) + LOG_EPSILON)


@register_layer
class ComplexLinearProjectionLayer(ConcatInputLayer):
    """``log|x W|`` with a complex ``W``; see the module doc."""

    layer_class = "complex_linear_projection"

    def __init__(self, nr_of_filters: int, clp_weights_init: Any = "glorot_uniform", **kwargs: Any):
        """
        :param nr_of_filters: number of outputs (``n_out``, if given, must equal it)
        :param clp_weights_init: initializer spec for ``clp_kernel`` (default ``glorot_uniform``)
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_with_feature_dim_axis(-1)
        seed = self.network.random.randint(2 ** 31)
        init = get_initializer(clp_weights_init, seed=seed, key=f"{self.name}/clp_weights_init")
        self._clp_kernel = self.create_param("clp_kernel", (2, inp.dim // 2, nr_of_filters), init)
        y = complex_projection_log_magnitude(tf.cast(inp.placeholder, tf.float32), self._clp_kernel)
        self.output.placeholder = tf.experimental.numpy.moveaxis(y, -1, self.output.feature_dim_axis)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, sources: Any = (), nr_of_filters: Any = None,
                               n_out: Any = NotSpecified, out_dim: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no ``nr_of_filters``, or ``n_out`` differs from it
        :raises LayerShapeError: the input's feature dim is odd (not real/imaginary pairs)"""
        if not nr_of_filters:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="nr_of_filters",
                                problem="missing required argument")
        if n_out not in (NotSpecified, None) and n_out != nr_of_filters:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="differs from",
                                got=n_out, expected=f"nr_of_filters={nr_of_filters}")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.dim is None or inp.dim % 2:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an even feature dim (interleaved real/imaginary parts)",
                                  got=repr(inp))
        if out_dim is None:
            n_out = nr_of_filters
        out = base_out_template(cls, name=name, network=network, sources=sources, n_out=n_out, out_dim=out_dim,
                                sources_template=inp)
        out.dtype = "float32"
        return out
