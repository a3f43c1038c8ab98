"""``{"class": "transposed_conv", "filter_size": [3], "strides": [3], "n_out": 512}``: transposed convolution
(deconvolution, upsampling).

Shape: ``{B, other.., S1.., F_in} -> {B, other.., S1'.., C}``. The spatial axes are ``in_spatial_dims`` (default:
all axes except batch and feature; with more than one, the reference's deprecation warning is printed), one per
filter dim; other non-feature axes are kept in front of them (as the reference orders the output). Per spatial
axis of size ``n`` with stride ``s`` (default: the filter size), filter size ``k`` (as Keras'
``deconv_output_length``, which the reference follows):

- without ``output_padding``: ``same``: ``n*s``; ``valid``: ``n*s + max(k - s, 0)``; ``full``: ``n*s - (s + k - 2)``
- with ``output_padding`` ``p``: ``(n - 1)*s + k - 2*pad + p`` with ``pad`` = ``k//2`` / ``0`` / ``k - 1``
- ``remove_padding`` ``r`` cuts ``r`` frames at both ends: ``-r + ... + -r``.

The new dims are derived from the input dims (``'time:var:extern_data:data*3'``), as the reference; a given
``out_spatial_dims`` / ``out_dim`` is declared the same, unless it is a dim of another size whose size is already known
(e.g. the time dim a pooling layer before divided): then the output is cut to it or padded with zeros at the end
(before the bias), as the reference. Padded input frames are used as they are unless
``use_time_mask`` (as the reference). Params (as the reference): ``W_native_transposed_conv`` of shape
``filter_size (+ (1,) for 1-d) + (C, F_in)``; ``bias`` ``(C,)`` if ``with_bias`` (default True).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.log import log
from returnn.tensor import Dim, FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.conv.spatial import as_tuple, default_in_spatial_dims
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_add, dim_add_left, dim_mul
from returnn.tf.ops.dims import mask_all_dynamic
from returnn.tf.ops.init import get_initializer

_PADDINGS = ("same", "valid", "full")
_SPATIAL_WARNING = ("DEPRECATION WARNING: Explicitly specify in_spatial_dims when there is more than one spatial dim "
                    "in the input.\nThis will be disallowed with behavior_version 8.")


def _size_offset(padding: str, size: int, stride: int, output_padding: Optional[int]) -> int:
    """:return: ``c`` in ``out = n * stride + c``"""
    if output_padding is None:
        return {"same": 0, "valid": max(size - stride, 0), "full": -(stride + size - 2)}[padding]
    pad = {"same": size // 2, "valid": 0, "full": size - 1}[padding]
    return size - stride - 2 * pad + output_padding


@register_layer
class TransposedConvLayer(ConcatInputLayer):
    """Transposed convolution over the ``in_spatial_dims`` (``tf.nn.conv2d_transpose`` / ``conv3d_transpose``)."""

    layer_class = "transposed_conv"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, filter_size: Sequence[int], strides: Optional[Sequence[int]] = None, padding: str = "same",
                 remove_padding: Any = 0, output_padding: Any = None, in_dim: Optional[Dim] = None,
                 in_spatial_dims: Optional[Sequence[Any]] = None, out_dim: Optional[Dim] = None,
                 out_spatial_dims: Optional[Sequence[Dim]] = None, with_bias: bool = True,
                 activation: Optional[str] = None, forward_weights_init: Any = "glorot_uniform", bias_init: Any = 0.0,
                 filter: Any = None, filter_perm: Any = None, bias: Any = None,  # noqa: A002 (reference name)
                 use_time_mask: bool = False, **kwargs: Any):
        """
        :param filter_size: the filter's size per spatial axis
        :param strides: step per spatial axis (default ``filter_size``)
        :param padding: ``"same"`` (default), ``"valid"`` or ``"full"``
        :param remove_padding: frames cut at both ends of each spatial axis (default 0)
        :param output_padding: extra frames per spatial axis, as Keras' ``output_padding``
        :param in_spatial_dims: the input axes to convolve over (default: all but batch and feature)
        :param out_spatial_dims: the Dims of the output's spatial axes
        :param with_bias: add a trainable bias (default True)
        :param activation: activation function applied after the bias (default none)
        :param forward_weights_init: initializer spec of the filter (default ``glorot_uniform``)
        :param bias_init: initializer spec of the bias (default 0)
        :param filter: a layer whose output is used as the filter instead of the param
        :param filter_perm: accepted for compatibility with the reference; no effect here
        :param bias: a layer whose output is used as the bias instead of the param
        :param use_time_mask: set padded frames to 0 before convolving
        """
        super().__init__(in_dim=in_dim, out_dim=out_dim, **kwargs)
        n = len(filter_size)
        padding = padding.lower()
        strides = as_tuple(strides if strides is not None else filter_size, n)
        remove = as_tuple(remove_padding, n)
        out_pad = as_tuple(output_padding, n) if output_padding is not None else (None,) * n
        inp = self.input_data
        if use_time_mask:
            inp = inp.copy()
            inp.placeholder = mask_all_dynamic(self.input_data, 0)
        in_spatial_dims = default_in_spatial_dims(inp, self.network, in_spatial_dims)
        spatial_axes, other_axes = _axes(inp, in_spatial_dims, n, self.name, self.layer_class, warn=False)
        perm = [inp.batch_dim_axis] + other_axes + spatial_axes + [inp.feature_dim_axis]
        x_data = inp.copy_transpose(perm)
        x = x_data.placeholder
        shape = tf.shape(x)
        n_other = len(other_axes)
        x = tf.reshape(x, tf.concat([[-1], shape[1 + n_other:]], axis=0))  # [B', spatial.., F_in]
        n_in, n_out = inp.dim, self.output.dim
        seed = self.network.random.randint(2 ** 31)
        w_shape = tuple(filter_size) + ((1,) if n == 1 else ()) + (n_out, n_in)
        weights = self.create_param("W_native_transposed_conv", w_shape,
                                    get_initializer(forward_weights_init, seed=seed,
                                                    key=f"{self.name}/forward_weights_init"))
        if n <= 2 and strides == tuple(filter_size) and padding in ("same", "valid") and output_padding is None:
            # Stride = filter size: the filter taps of two input frames never overlap, so the transposed conv is one
            # matmul ``[frames, F_in] x [F_in, k.. * C]`` and an interleaving of the taps (the same products and
            # sums; about twice as fast as conv2d_transpose's kernel on CPU for the conformer's upsampling)
            y = _transposed_conv_as_matmul(self.network.amp, x, weights, tuple(filter_size), n_out)
        else:
            y = self._transposed_conv(x, weights, filter_size, strides, padding, out_pad, n_out)
        if any(remove):
            y = y[(slice(None),) + tuple(slice(r, -r if r else None) for r in remove)]
        computed = _new_spatial_dims([inp.dims[a] for a in spatial_axes], filter_size, strides, padding, out_pad,
                                     remove)
        out_spatial = self.output.dims[1 + n_other:1 + n_other + n]
        for i, (want, got) in enumerate(zip(out_spatial, computed)):
            if want != got:  # out_spatial_dims of another size: cut or zero-pad at the end, as the reference
                y = _resize_axis(y, 1 + i, want.get_dim_value())
        y = tf.reshape(y, tf.concat([shape[:1 + n_other], tf.shape(y)[1:]], axis=0))
        if with_bias:
            b = self.create_param("bias", (n_out,), get_initializer(bias_init, key=f"{self.name}/bias_init"))
            y = y + b
        self.output.placeholder = self.apply_activation(y, activation)

    def _transposed_conv(self, x: tf.Tensor, weights: tf.Tensor, filter_size: Sequence[int], strides: Sequence[int],
                         padding: str, out_pad: Sequence[Optional[int]], n_out: int) -> tf.Tensor:
        """:return: ``[B', spatial'.., C]`` by TensorFlow's ``conv2d_transpose`` / ``conv3d_transpose``"""
        n = len(filter_size)
        out_sizes = []
        for i in range(n):
            in_size = tf.shape(x)[1 + i]
            out_sizes.append(in_size * strides[i] + _size_offset(padding, filter_size[i], strides[i], out_pad[i]))
        if n == 1:
            x = tf.expand_dims(x, 2)
            out_sizes.append(tf.constant(1))
            conv_strides = [1, strides[0], 1, 1]
        else:
            conv_strides = [1] + list(strides) + [1]
        output_shape = tf.stack([tf.shape(x)[0]] + out_sizes + [n_out])
        tf_padding = "VALID" if padding in ("valid", "full") else "SAME"
        if n <= 2:
            y = self.network.amp.call(tf.nn.conv2d_transpose, x, weights, output_shape=output_shape,
                                      strides=conv_strides, padding=tf_padding)  # tf_amp: float32 out
        else:
            y = self.network.amp.call(tf.nn.conv3d_transpose, x, weights, output_shape=output_shape,
                                      strides=conv_strides, padding=tf_padding)
        if n == 1:
            y = tf.squeeze(y, axis=2)
        if padding == "full":
            y = y[(slice(None),) + tuple(slice(k - 1, -(k - 1) or None) for k in filter_size)]
        return y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), network: Any = None, filter_size: Sequence[int] = (),
                               strides: Optional[Sequence[int]] = None, padding: str = "same", remove_padding: Any = 0,
                               output_padding: Any = None, in_dim: Optional[Dim] = None,
                               in_spatial_dims: Optional[Sequence[Any]] = None, out_dim: Optional[Dim] = None,
                               out_spatial_dims: Optional[Sequence[Dim]] = None, n_out: Any = NotSpecified,
                               filter: Any = None, bias: Any = None, **kwargs: Any) -> Tensor:  # noqa: A002
        """:raises LayerArgError: missing ``n_out``/``filter_size``, bad ``padding``, ``filter``/``bias`` layers
        :raises LayerShapeError: sparse input, no feature axis, wrong number of spatial axes"""
        if filter is not None or bias is not None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="filter" if filter is not None else "bias",
                                problem="is not supported (yet) in this implementation:",
                                hint="let the layer create its own W_native_transposed_conv/bias params")
        if not filter_size:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="filter_size",
                                problem="missing required argument", hint="e.g. [3] for 1-d over time")
        if out_dim is None and n_out in (NotSpecified, None):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument",
                                hint="set n_out or out_dim (the number of output channels)")
        if padding.lower() not in _PADDINGS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="padding", problem="invalid value",
                                got=padding, expected=" | ".join(repr(p) for p in _PADDINGS))
        padding = padding.lower()
        n = len(filter_size)
        strides = as_tuple(strides if strides is not None else filter_size, n)
        remove = as_tuple(remove_padding, n)
        out_pad = as_tuple(output_padding, n) if output_padding is not None else (None,) * n
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.sparse or inp.feature_dim_axis is None or inp.dim is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs a dense input with a static feature (channel) axis", got=repr(inp))
        if in_dim is not None and in_dim != inp.feature_dim:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem=f"in_dim {in_dim!r} is not the "
                                  "input's feature dim", got=repr(inp))
        in_spatial_dims = default_in_spatial_dims(inp, network, in_spatial_dims)
        spatial_axes, other_axes = _axes(inp, in_spatial_dims, n, name, cls.layer_class, warn=True)
        new_spatial = _new_spatial_dims([inp.dims[a] for a in spatial_axes], filter_size, strides, padding, out_pad,
                                        remove)
        if out_spatial_dims:
            for i, given in enumerate(out_spatial_dims):
                new = new_spatial[i]
                if given != new and (given.dimension == new.dimension if given.dimension is not None
                                     else not given.is_dim_known()):
                    given.declare_same_as(new)
                new_spatial[i] = given  # a known dim of another size: the output is cut or zero-padded to it (see
                # __init__), as the reference (observed)
        feature = FeatureDim(f"{name}:channel", n_out) if out_dim is None else out_dim
        dims = [inp.dims[inp.batch_dim_axis]] + [inp.dims[a] for a in other_axes] + new_spatial + [feature]
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, feature_dim_axis=len(dims) - 1)


def _new_spatial_dims(dims: Sequence[Dim], filter_size: Sequence[int], strides: Sequence[int], padding: str,
                      out_pad: Sequence[Optional[int]], remove: Sequence[int]) -> List[Dim]:
    """:return: the output dims computed from the input's spatial ``dims`` (see the module doc)"""
    new_spatial: List[Dim] = []
    for i, d in enumerate(dims):
        new = dim_mul(d, strides[i])
        new = dim_add(new, _size_offset(padding, filter_size[i], strides[i], out_pad[i]))
        if remove[i]:
            new = dim_add(dim_add_left(new, -remove[i]), -remove[i])
        new_spatial.append(new)
    return new_spatial


def _resize_axis(x: tf.Tensor, axis: int, size: Any) -> tf.Tensor:
    """:return: ``x`` cut to ``size`` along ``axis``, or padded with zeros at the end up to it"""
    x = x[(slice(None),) * axis + (slice(0, size),)]
    pad = [[0, 0] for _ in range(x.shape.rank)]
    pad[axis] = [0, tf.maximum(size - tf.shape(x)[axis], 0)]
    return tf.pad(x, pad)


def _transposed_conv_as_matmul(amp: Any, x: tf.Tensor, weights: tf.Tensor, filter_size: Tuple[int, ...],
                                n_out: int) -> tf.Tensor:
    """The transposed conv with strides = ``filter_size`` (padding ``same``/``valid``: no overlap, no cut).

    :param x: ``[B', S1.., F_in]`` (one or two spatial axes)
    :param weights: ``W_native_transposed_conv``: ``filter_size (+ (1,) for 1-d) + (C, F_in)``
    :return: ``[B', S1*k1.., C]``: output frame ``t*k + j`` is ``x[t] W[j]^T``
    """
    n = len(filter_size)
    n_in = weights.shape[-1]
    taps = 1
    for k in filter_size:
        taps *= k
    # [F_in, k1.. * C]: column (j.., c) is weights[j.., c, :]
    w = tf.reshape(tf.transpose(tf.reshape(weights, [taps, n_out, n_in]), [2, 0, 1]), [n_in, taps * n_out])
    shape = tf.shape(x)
    y = amp.matmul(tf.reshape(x, [-1, n_in]), w)  # [B' * S1.., k1.. * C]
    if n == 1:
        return tf.reshape(y, tf.stack([shape[0], shape[1] * filter_size[0], n_out]))
    y = tf.reshape(y, tf.stack([shape[0], shape[1], shape[2], filter_size[0], filter_size[1], n_out]))
    y = tf.transpose(y, [0, 1, 3, 2, 4, 5])  # [B', S1, k1, S2, k2, C]
    return tf.reshape(y, tf.stack([shape[0], shape[1] * filter_size[0], shape[2] * filter_size[1], n_out]))


def _axes(inp: Tensor, in_spatial_dims: Optional[Sequence[Any]], n: int, name: str, layer_class: str,
          warn: bool) -> Tuple[List[int], List[int]]:
    """:return: (spatial axes, other non-batch non-feature axes) of ``inp``"""
    candidates = [i for i in range(inp.batch_ndim) if i not in (inp.batch_dim_axis, inp.feature_dim_axis)]
    if inp.batch_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs an input with a batch axis",
                              got=repr(inp))
    if in_spatial_dims is not None:
        spatial = [inp.get_axis_from_description(d) for d in in_spatial_dims]
    else:
        spatial = candidates
        if warn and len(spatial) > 1:
            print(_SPATIAL_WARNING, file=log.v2)
    if len(spatial) != n:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"filter_size has {n} spatial axes but the input has {len(spatial)}",
                              got=repr(inp), hint="set in_spatial_dims")
    return spatial, [i for i in candidates if i not in spatial]
