"""``{"class": "conv", "n_out": C, "filter_size": (3,), "padding": "same"}``: N-d convolution.

Shape: ``{B, other.., S1.., F_in} -> {B, other.., S1'.., C}`` with one spatial axis per filter dim (``in_spatial_dims``,
default: all non-batch, non-feature axes of the input, in order; see :mod:`returnn.tf.layers.conv.spatial` for the
output dims and ``out_spatial_dims``). ``input_add_feature_dim`` treats the old feature axis as spatial and adds a
channel axis of 1 (e.g. 2-d conv over time x frequency); ``input_split_feature_dim`` ``n`` splits it into
``(F_in / n, n)``. Params (as the reference): ``W`` ``filter_size + (F_in / groups, C)``; ``bias`` ``(C,)`` with
``with_bias`` (default: True since behavior version 10, else False). ``filter`` / ``bias`` may instead be layers
(their outputs are used as they are; a filter whose dims include the input's feature dim and ``out_dim`` is
transposed to ``filter dims.. + (F_in, C)``, else taken in its axis order). Output feature dim:
``'<layer>:channel'``. ``strides`` together with ``dilation_rate`` (which TensorFlow's convolution refuses) is
computed with the filter dilated by zeros, giving TensorFlow's definition of both. ``auto_use_channel_first``
(default: True since behavior version 9, as the reference) puts the channels right after the batch axis, only when
a GPU is in use (``device`` of the config; on CPU the output stays channel-last).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.conv import spatial
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import mask_all_dynamic
from returnn.tf.ops.init import get_initializer
from returnn.util.behavior_version import BehaviorVersion


@register_layer
class ConvLayer(ConcatInputLayer):
    """Convolution with optional bias and activation."""

    layer_class = "conv"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, filter_size: Sequence[int], padding: str = "same", strides: Any = 1, dilation_rate: Any = 1,
                 groups: int = 1, input_expand_dims: int = 0, input_add_feature_dim: bool = False,
                 input_split_feature_dim: Optional[int] = None, in_dim: Optional[Dim] = None,
                 in_spatial_dims: Optional[Sequence[Any]] = None, out_spatial_dims: Optional[Sequence[Dim]] = None,
                 auto_use_channel_first: Any = NotSpecified, with_bias: Any = NotSpecified,
                 activation: Optional[str] = None, forward_weights_init: Any = "glorot_uniform", bias_init: Any = 0.0,
                 filter: Optional[LayerBase] = None, bias: Optional[LayerBase] = None,  # noqa: A002 (reference name)
                 use_time_mask: bool = False, **kwargs: Any):
        """
        :param filter_size: the filter's size per spatial axis, e.g. ``(3,)`` or ``(3, 3)``
        :param padding: ``"same"`` (output length = input length / stride) or ``"valid"`` (only full windows)
        :param strides: step per spatial axis (an int for all, or one per axis; default 1)
        :param dilation_rate: dilation per spatial axis (an int for all, or one per axis; default 1)
        :param groups: number of groups: the input channels are split into this many independent convolutions
        :param input_expand_dims: number of size-1 spatial axes to add to the input first
        :param input_add_feature_dim: treat the input's feature axis as a spatial axis and add a channel axis of size 1
        :param input_split_feature_dim: split the input's feature axis into ``(F / n, n)``, the second part the channels
        :param in_spatial_dims: the input axes to convolve over (default: all but batch and feature)
        :param out_spatial_dims: the Dims of the output's spatial axes (declared the same as the computed ones)
        :param auto_use_channel_first: put the channels right after the batch axis when running on GPU (default True
            from ``behavior_version`` 9)
        :param with_bias: add a trainable bias (default True from ``behavior_version`` 10, else False)
        :param activation: activation function applied after the bias (default none)
        :param forward_weights_init: initializer spec of the filter ``W`` (default ``glorot_uniform``)
        :param bias_init: initializer spec of the bias (default 0)
        :param filter: a layer whose output is used as the filter instead of the param ``W``
        :param bias: a layer whose output is used as the bias instead of the param
        :param use_time_mask: set padded frames to 0 before convolving
        """
        super().__init__(in_dim=in_dim, **kwargs)
        self.filter_layer, self.bias_layer = filter, bias
        n = len(filter_size)
        padding = spatial.check_padding(padding, self.name, self.layer_class)
        strides, dilation = spatial.as_tuple(strides, n), spatial.as_tuple(dilation_rate, n)
        inp = self.input_data
        if use_time_mask:
            inp = inp.copy()
            inp.placeholder = mask_all_dynamic(self.input_data, 0)
        if not (input_add_feature_dim or input_split_feature_dim or input_expand_dims):
            in_spatial_dims = spatial.default_in_spatial_dims(inp, self.network, in_spatial_dims)
        arranged = spatial.arrange_input(inp, name=self.name, layer_class=self.layer_class, n_spatial=n,
                                         in_spatial_dims=in_spatial_dims, input_add_feature_dim=input_add_feature_dim,
                                         input_expand_dims=input_expand_dims,
                                         input_split_feature_dim=input_split_feature_dim)
        n_in = arranged.data.dim
        n_out = self.output.dim
        w_shape = tuple(filter_size) + (n_in // groups, n_out)
        if filter is not None:
            weights = _filter_from_layer(filter, arranged.data.feature_dim, self.output.feature_dim, w_shape,
                                         self.name)
        else:
            seed = self.network.random.randint(2 ** 31)
            weights = self.create_param("W", w_shape, get_initializer(
                forward_weights_init, seed=seed, key=f"{self.name}/forward_weights_init"))
        if any(s > 1 for s in strides) and any(d > 1 for d in dilation):
            weights = _dilate_filter(weights, dilation)  # TF refuses strides with dilations: the same by zeros
            dilation = (1,) * n
        if with_bias is NotSpecified:
            with_bias = bias is not None or BehaviorVersion.get() >= 10
        b = None
        if bias is not None:
            b = bias.output.placeholder
        elif with_bias:
            b = self.create_param("bias", (n_out,), get_initializer(bias_init, key=f"{self.name}/bias_init"))

        def conv(x: tf.Tensor) -> tf.Tensor:
            y = self.network.amp.call(tf.nn.convolution, x, weights, strides=list(strides), padding=padding.upper(),
                                      dilations=list(dilation))  # tf_amp: bfloat16/float16 inside, float32 out
            if b is not None:  # tf_amp: added in the compute dtype before the cast of the result
                y = self.network.amp.pointwise(lambda t: t + tf.cast(b, t.dtype), y)
            return self.apply_activation(y, activation)

        channel_first = self.output.feature_dim_axis == 1 and self.output.batch_ndim > 2
        self.output.placeholder = spatial.apply_spatial_op(arranged.data.placeholder, arranged.n_other, conv,
                                                           channel_first=channel_first)

    def get_dep_layers(self) -> List[LayerBase]:
        """:return: the sources and the ``filter`` / ``bias`` layers"""
        return super().get_dep_layers() + [x for x in (self.filter_layer, self.bias_layer) if x is not None]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``filter`` / ``bias`` layer names to layers."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("filter", "bias"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @staticmethod
    def calc_out_dim(in_dim: Union[int, Dim, tf.Tensor], filter_size: int, stride: int, padding: str,
                     dilation_rate: int = 1) -> Union[int, Dim, tf.Tensor]:
        """:return: the output size along one axis (see :func:`returnn.tf.layers.conv.spatial.calc_out_dim`):
        ``same``: ``ceil(n / stride)``; ``valid``: ``ceil((n - (filter_size - 1) * dilation_rate) / stride)``, at
        least 0; a :class:`Dim` gives the computed dim"""
        return spatial.calc_out_dim(in_dim, filter_size, stride, padding, dilation_rate)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), n_out: Any = NotSpecified, out_dim: Any = None,
                               filter_size: Sequence[int] = (), padding: str = "same", strides: Any = 1,
                               dilation_rate: Any = 1, input_expand_dims: int = 0, input_add_feature_dim: bool = False,
                               input_split_feature_dim: Optional[int] = None, in_dim: Optional[Dim] = None,
                               in_spatial_dims: Optional[Sequence[Any]] = None,
                               out_spatial_dims: Optional[Sequence[Dim]] = None,
                               auto_use_channel_first: Any = NotSpecified, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing n_out/filter_size, bad padding, ``in_dim`` / ``out_spatial_dims`` mismatch
        :raises LayerShapeError: sparse input, spatial axes mismatch"""
        if n_out in (NotSpecified, None) and out_dim is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        if not filter_size:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="filter_size",
                                problem="missing required argument", hint="e.g. (3,) for 1-d over time")
        n = len(filter_size)
        padding = spatial.check_padding(padding, name, cls.layer_class)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if not (input_add_feature_dim or input_split_feature_dim or input_expand_dims):
            in_spatial_dims = spatial.default_in_spatial_dims(inp, kwargs.get("network"), in_spatial_dims)
        arranged = spatial.arrange_input(inp, name=name, layer_class=cls.layer_class, n_spatial=n,
                                         in_spatial_dims=in_spatial_dims, input_add_feature_dim=input_add_feature_dim,
                                         input_expand_dims=input_expand_dims,
                                         input_split_feature_dim=input_split_feature_dim, in_dim=in_dim)
        new_spatial = spatial.output_spatial_dims(arranged, name=name, sizes=filter_size,
                                                  strides=spatial.as_tuple(strides, n),
                                                  dilation=spatial.as_tuple(dilation_rate, n), padding=padding,
                                                  out_spatial_dims=out_spatial_dims)
        feature = out_dim if out_dim is not None else FeatureDim(f"{name}:channel", n_out)
        if out_dim is not None and n_out not in (NotSpecified, None) and out_dim.dimension != n_out:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out",
                                problem=f"does not match out_dim {out_dim!r}", got=n_out)
        channel_first = n >= 1 and spatial.use_channel_first(auto_use_channel_first)
        return spatial.build_output_template(arranged, new_spatial, feature, name, channel_first=channel_first)


def _filter_from_layer(layer: LayerBase, in_dim: Dim, out_dim: Dim, shape: Sequence[int], name: str) -> tf.Tensor:
    """:return: the raw filter ``filter dims.. + (F_in, C)`` from a layer's output
    :raises LayerShapeError: its shape is not ``shape``"""
    data = layer.output
    if in_dim in data.dims and out_dim in data.dims and in_dim != out_dim:
        rest = [d for d in data.dims if d != in_dim and d != out_dim]
        data = data.copy_transpose(rest + [in_dim, out_dim])
    got = tuple(data.batch_shape)
    if got != tuple(shape):
        raise LayerShapeError(layer=name, layer_class="conv", problem=f"filter layer {layer.name!r} has the wrong "
                              "shape", expected=f"filter_size + (in / groups, out) = {tuple(shape)}", got=repr(data))
    return data.placeholder


def _dilate_filter(weights: tf.Tensor, dilation: Sequence[int]) -> tf.Tensor:
    """:return: ``weights`` ``[k1.., in, out]`` with ``d - 1`` zeros between the taps along each spatial axis
    (size ``(k - 1) * d + 1``): the non-dilated convolution with it is the dilated one with ``weights``"""
    for axis, d in enumerate(dilation):
        if d <= 1:
            continue
        shape = tf.shape(weights)
        k = weights.shape[axis]
        w = tf.expand_dims(weights, axis + 1)  # [.., k, 1, ..]
        pad = [[0, 0]] * (weights.shape.rank + 1)
        pad[axis + 1] = [0, d - 1]
        w = tf.pad(w, pad)  # [.., k, d, ..]
        w = tf.reshape(w, tf.concat([shape[:axis], [k * d], shape[axis + 1:]], axis=0))
        weights = w[(slice(None),) * axis + (slice(0, (k - 1) * d + 1),)]
    return weights
