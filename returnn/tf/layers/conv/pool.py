"""``{"class": "pool", "mode": "max"|"avg", "pool_size": (2,), "padding": "valid"}``: N-d pooling.

Shape: ``{B, other.., S.., F} -> {B, other.., S'.., F}``; ``strides`` default to ``pool_size`` (as the reference);
spatial axes, output dims and ``out_spatial_dims`` as ``conv`` (:mod:`returnn.tf.layers.conv.spatial`).
``use_channel_first`` (default: True since behavior version 9) puts the channels right after the batch axis, only when
a GPU is in use, as the reference. Padded frames are pooled as they are, as in the reference.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, NotSpecified, Tensor
from returnn.tf.layers.conv import spatial
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class PoolLayer(ConcatInputLayer):
    """Max/average pooling."""

    layer_class = "pool"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, mode: str, pool_size: Sequence[int], padding: str = "valid", dilation_rate: Any = 1,
                 strides: Optional[Any] = None, in_dim: Optional[Dim] = None,
                 in_spatial_dims: Optional[Sequence[Any]] = None, out_dim: Optional[Dim] = None,
                 out_spatial_dims: Optional[Sequence[Dim]] = None, use_channel_first: Any = NotSpecified,
                 **kwargs: Any):
        """
        :param pool_size: the window size per spatial axis, e.g. ``(2,)``
        :param padding: ``"valid"`` (only full windows, default) or ``"same"``
        :param dilation_rate: dilation per spatial axis (an int for all, or one per axis; default 1)
        :param strides: step per spatial axis (default ``pool_size``)
        :param in_spatial_dims: the input axes to pool over (default: all but batch and feature)
        :param out_spatial_dims: the Dims of the output's spatial axes (declared the same as the computed ones)
        :param use_channel_first: put the channels right after the batch axis when running on GPU (default True from
            ``behavior_version`` 9)
        """
        super().__init__(in_dim=in_dim, out_dim=out_dim, **kwargs)
        _check_mode(mode, self.name)
        n = len(pool_size)
        padding = spatial.check_padding(padding, self.name, self.layer_class)
        strides = spatial.as_tuple(strides if strides is not None else pool_size, n)
        dilation = spatial.as_tuple(dilation_rate, n)
        in_spatial_dims = spatial.default_in_spatial_dims(self.input_data, self.network, in_spatial_dims)
        arranged = spatial.arrange_input(self.input_data, name=self.name, layer_class=self.layer_class, n_spatial=n,
                                         in_spatial_dims=in_spatial_dims)

        def pool(x: tf.Tensor) -> tf.Tensor:
            return tf.nn.pool(x, window_shape=list(pool_size), pooling_type=mode.upper(), padding=padding.upper(),
                              strides=list(strides), dilations=list(dilation))

        channel_first = self.output.feature_dim_axis == 1 and self.output.batch_ndim > 2
        self.output.placeholder = spatial.apply_spatial_op(arranged.data.placeholder, arranged.n_other, pool,
                                                           channel_first=channel_first)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mode: Optional[str] = None,
                               pool_size: Sequence[int] = (),
                               padding: str = "valid", dilation_rate: Any = 1, strides: Optional[Any] = None,
                               in_dim: Optional[Dim] = None, in_spatial_dims: Optional[Sequence[Any]] = None,
                               out_dim: Optional[Dim] = None, out_spatial_dims: Optional[Sequence[Dim]] = None,
                               use_channel_first: Any = NotSpecified, **kwargs: Any) -> Tensor:
        """:param mode: checked if given (the reference's signature has none: callers may leave it out)
        :raises LayerArgError: bad mode/padding, ``in_dim``/``out_dim`` not the input's feature dim"""
        if mode is not None:
            _check_mode(mode, name)
        n = len(pool_size)
        padding = spatial.check_padding(padding, name, cls.layer_class)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        in_spatial_dims = spatial.default_in_spatial_dims(inp, kwargs.get("network"), in_spatial_dims)
        arranged = spatial.arrange_input(inp, name=name, layer_class=cls.layer_class, n_spatial=n,
                                         in_spatial_dims=in_spatial_dims, in_dim=in_dim)
        feature = arranged.data.feature_dim
        if out_dim is not None and out_dim != feature:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_dim",
                                problem="must be the input's feature dim (pooling keeps the channels)", got=out_dim,
                                expected=repr(feature))
        new_spatial = spatial.output_spatial_dims(
            arranged, name=name, sizes=pool_size, strides=spatial.as_tuple(strides if strides is not None else pool_size, n),
            dilation=spatial.as_tuple(dilation_rate, n), padding=padding, out_spatial_dims=out_spatial_dims)
        return spatial.build_output_template(arranged, new_spatial, feature, name,
                                             channel_first=spatial.use_channel_first(use_channel_first))


def _check_mode(mode: Any, name: str) -> None:
    """:raises LayerArgError: ``mode`` is not ``max`` / ``avg``"""
    if not isinstance(mode, str) or mode.lower() not in ("max", "avg"):
        raise LayerArgError(layer=name, layer_class=PoolLayer.layer_class, arg="mode", problem="invalid value",
                            got=mode, expected="'max' | 'avg'")
