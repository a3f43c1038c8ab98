"""Shared logic of ``conv`` and ``pool``: arrange the input as ``[B, other.., spatial.., C]`` and compute the output
dims.

Output size per spatial axis (as the reference/TF, :func:`calc_out_dim`): ``same``: ``ceil(n / stride)``; ``valid``:
``ceil((n - (k - 1) * dilation) / stride)``. The new dims are computed by dim arithmetic on the input dims, as the
reference writes them (``valid``: ``(k - 1) * dilation`` frames are cut, half of them (rounded down) on the left:
``'⌈((-1+time)+-2)/3⌉'`` for ``k = 4, stride = 3``), so that their lengths follow from the input lengths and two layers
(or a config's ``time_dim.sub_left(1).sub_right(2).ceildiv_right(3)``) agree on them. A new dim of a layer is named
``'<layer>:conv:s<i>'`` (found with ``"stag:<layer>:conv:s<i>"``; printed with its arithmetic description, as the
reference); ``out_spatial_dims`` given by the config are declared the same as the computed dims.

The spatial axes are ``in_spatial_dims`` (any axes, in the given order) or, by default, all axes except batch and
feature; axes that are neither (``other``) are kept and come first in the output, as in the reference. Padded frames
enter the operation as they are, as in the reference (observed): with ``padding="same"`` the last frames of a shorter
sequence see the values in its padded frames (zeros in a dataset's batch; whatever the layers before computed there
otherwise, e.g. a bias), while the longest sequence sees TensorFlow's zero padding.
"""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Tuple, Union

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, NotSpecified, SpatialDim, Tensor
from returnn.util.behavior_version import BehaviorVersion

_IN_SPATIAL_DIMS_MSG = "Explicitly specify in_spatial_dims when there is more than one spatial dim in the input."


def as_tuple(value: Any, n: int) -> Tuple[int, ...]:
    """:return: ``value`` (int or sequence) as an ``n``-tuple (a 1-tuple is repeated)"""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1 and n > 1:
        return value * n
    return value


def check_padding(padding: str, name: str, layer_class: str) -> str:
    """:return: ``padding`` lower-cased
    :raises LayerArgError: not ``same`` / ``valid``"""
    low = padding.lower() if isinstance(padding, str) else padding
    if low not in ("same", "valid"):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="padding", problem="invalid value", got=padding,
                            expected="'same' | 'valid'")
    return low


def calc_out_dim(in_dim: Union[int, Dim, tf.Tensor], filter_size: int, stride: int, padding: str,
                 dilation_rate: int = 1) -> Union[int, Dim, tf.Tensor]:
    """Output size of a convolution/pooling along one axis.

    :param in_dim: the input size: an int, a scalar int tensor, or a :class:`Dim`
    :param filter_size: the filter (window) size ``k``
    :param stride: the stride ``s``
    :param padding: ``"same"`` (``ceil(n / s)``) or ``"valid"`` (``ceil((n - (k - 1) * dilation) / s)``)
    :param dilation_rate: the dilation
    :return: the output size: an int / tensor (at least 0), or for a :class:`Dim` the dim computed by dim arithmetic
        (the input dim itself when the size does not change)
    :raises LayerArgError: an unknown padding
    """
    padding = check_padding(padding, "?", "conv")
    if isinstance(in_dim, Dim):
        out = in_dim
        if padding == "valid":
            total = (filter_size - 1) * dilation_rate
            left = total // 2
            if left:
                out = out.sub_left(left)
            if total - left:
                out = out.sub_right(total - left)
        if stride > 1:
            out = out.ceildiv_right(stride)
        return out
    n = in_dim
    if padding == "valid":
        n = n - (filter_size - 1) * dilation_rate
    if isinstance(n, int):
        return max(-(-n // stride), 0)
    return tf.maximum((n + stride - 1) // stride, 0)


class ArrangedInput(NamedTuple):
    """The input of a conv/pool arranged as ``[B, other.., spatial.., C]`` (with the raw tensor if it had one)."""

    data: Tensor
    n_other: int

    @property
    def other_dims(self) -> List[Dim]:
        return list(self.data.dims[1:1 + self.n_other])

    @property
    def spatial_dims(self) -> List[Dim]:
        return list(self.data.dims[1 + self.n_other:-1])


def default_in_spatial_dims(inp: Tensor, network: Any, in_spatial_dims: Optional[Sequence[Any]]) -> Any:
    """For a layer a rec unit moved out of its loop (training): without ``in_spatial_dims``, the spatial axes are
    those the layer had inside the loop, i.e. all but batch, feature and the loop's time axis (as the reference,
    observed: a conv over a ``split_dims`` axis per frame stays a conv over that axis).

    :param inp: the layer's (concatenated) input
    :param network: the layer's network (None: unknown)
    :return: ``in_spatial_dims`` as given, or the spatial Dims without the loop's (where ``inp`` has it)"""
    if in_spatial_dims is not None or network is None or network.is_inside_rec_layer():
        return in_spatial_dims
    loop_dim = network.get_inside_rec_time_dim(inside_loop=False)
    if loop_dim is None or loop_dim not in inp.dims:
        return in_spatial_dims
    return [d for i, d in enumerate(inp.dims)
            if i not in (inp.batch_dim_axis, inp.feature_dim_axis) and d != loop_dim]


def arrange_input(inp: Tensor, *, name: str, layer_class: str, n_spatial: int,
                  in_spatial_dims: Optional[Sequence[Any]] = None, input_add_feature_dim: bool = False,
                  input_expand_dims: int = 0, input_split_feature_dim: Optional[int] = None,
                  in_dim: Optional[Dim] = None) -> ArrangedInput:
    """:param inp: the (concatenated) input, template or with raw tensor
    :param n_spatial: the number of spatial axes (filter / pool dims)
    :param in_spatial_dims: the spatial axes (descriptions or Dims), in order; default: all but batch and feature
        (more than one of those needs ``in_spatial_dims`` since behavior version 8, as the reference)
    :param input_add_feature_dim: the feature axis becomes spatial; a new channel axis of 1 is added
    :param input_split_feature_dim: the feature axis ``F`` is split into ``(F / n, n)``: the first spatial, the
        second the channels
    :param input_expand_dims: that many spatial axes of 1 are added (before the channel axis)
    :param in_dim: if given, must be the input's feature (channel) dim
    :return: ``[B, other.., spatial.., C]``, batch-major (the raw tensor transposed along)
    :raises LayerShapeError: sparse input, no batch or feature axis, wrong number of spatial axes
    :raises LayerArgError: ``in_dim`` is not the input's feature dim
    """
    if inp.sparse:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs a dense input, got sparse",
                              got=repr(inp), hint="embed the sparse input with a linear layer first")
    if inp.batch_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs an input with a batch axis",
                              got=repr(inp))
    out = inp.copy_as_batch_major()
    n_orig_spatial = len([i for i in range(1, out.batch_ndim) if i != out.feature_dim_axis])
    if input_split_feature_dim:
        out = out.copy_split_feature_dim(input_split_feature_dim)
    elif input_add_feature_dim:
        out = out.copy_add_dim(out.batch_ndim, FeatureDim(f"{name}:input-feature", 1), as_feature=True)
    for _ in range(input_expand_dims):
        out = out.copy_add_dim(out.batch_ndim - 1 if out.feature_dim_axis is not None else out.batch_ndim,
                               SpatialDim(f"{name}:input-expand", 1))
    if out.feature_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs a feature (channel) axis",
                              got=repr(inp), hint='use "input_add_feature_dim": True')
    if in_dim is not None and in_dim != out.feature_dim:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="in_dim", problem="is not the input's feature "
                            "(channel) dim", got=in_dim, expected=repr(out.feature_dim))
    feature_axis = out.feature_dim_axis
    if in_spatial_dims is not None:
        if isinstance(in_spatial_dims, (str, Dim)):
            in_spatial_dims = [in_spatial_dims]
        spatial = [out.get_axis_from_description(d) for d in in_spatial_dims]
        if len(set(spatial)) != len(spatial) or 0 in spatial or feature_axis in spatial:
            raise LayerArgError(layer=name, layer_class=layer_class, arg="in_spatial_dims",
                                problem="must name distinct axes other than batch and feature", got=in_spatial_dims,
                                hint=f"the input is {out!r}")
    else:
        spatial = [i for i in range(1, out.batch_ndim) if i != feature_axis]
        if n_orig_spatial > 1 and not input_add_feature_dim and not input_split_feature_dim:
            BehaviorVersion.require(False, _IN_SPATIAL_DIMS_MSG, 8)
    if len(spatial) != n_spatial:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"filter/pool size has {n_spatial} spatial axes but the input has {len(spatial)}",
                              got=repr(inp), hint="set in_spatial_dims, or use input_add_feature_dim / "
                                                  "input_expand_dims / split_dims")
    other = [i for i in range(1, out.batch_ndim) if i != feature_axis and i not in spatial]
    perm = [0] + other + spatial + [feature_axis]
    if perm != list(range(out.batch_ndim)):
        out = out.copy_transpose(perm)
    return ArrangedInput(out, len(other))


def output_spatial_dims(arranged: ArrangedInput, *, name: str, sizes: Sequence[int], strides: Sequence[int],
                        dilation: Sequence[int], padding: str,
                        out_spatial_dims: Optional[Sequence[Dim]] = None) -> List[Dim]:
    """:param out_spatial_dims: dims the config gives for the output; declared the same as the computed ones
    :return: the output's spatial dims (one per spatial axis of ``arranged``)
    :raises LayerArgError: ``out_spatial_dims`` of the wrong length, or one with another static size
    """
    spatial = arranged.spatial_dims
    if out_spatial_dims is not None and len(out_spatial_dims) != len(spatial):
        raise LayerArgError(layer=name, layer_class="conv", arg="out_spatial_dims",
                            problem=f"needs one dim per spatial axis ({len(spatial)})", got=list(out_spatial_dims))
    dims = []
    for i, d in enumerate(spatial):
        new = calc_out_dim(d, sizes[i], strides[i], padding, dilation[i])
        if out_spatial_dims is not None:
            given = out_spatial_dims[i]
            if given != new:
                if given.dimension is not None and new.dimension is not None and given.dimension != new.dimension:
                    raise LayerArgError(layer=name, layer_class="conv", arg="out_spatial_dims",
                                        problem=f"axis {i} has size {new.dimension} here", got=given)
                given.declare_same_as(new)
            dims.append(given)
        elif new is d:
            dims.append(d)  # size unchanged: the same dim (as the reference)
        else:
            named = SpatialDim(f"{name}:conv:s{i}", new.dimension)  # the reference's name (observed)
            named.declare_same_as(new)
            dims.append(named)
    return dims


def use_channel_first(option: Any) -> bool:
    """:param option: ``auto_use_channel_first`` / ``use_channel_first``; NotSpecified: True since behavior version 9
    :return: whether the output is ``[B, C, spatial..]``: only on a GPU (as the reference: on CPU it stays
        ``[B, spatial.., C]``, which TensorFlow's CPU kernels need)"""
    from returnn.tf.util.device import is_gpu_available_in_session

    if option is NotSpecified or option is None:
        option = BehaviorVersion.get() >= 9
    return bool(option) and is_gpu_available_in_session()


def build_output_template(arranged: ArrangedInput, new_spatial: List[Dim], feature: Dim, name: str,
                          channel_first: bool = False) -> Tensor:
    """:return: ``[B, other.., new_spatial.., C]`` or with ``channel_first`` ``[B, C, other.., new_spatial..]``; the
    time axis is the one that was the input's (or its new dim), the feature axis the channels"""
    inp = arranged.data
    body = arranged.other_dims + list(new_spatial)
    dims = [inp.dims[0]] + ([feature] + body if channel_first else body + [feature])
    time_axis = inp.time_dim_axis
    if time_axis is not None and time_axis < inp.batch_ndim - 1:
        time_axis = time_axis + 1 if channel_first else time_axis
    else:
        time_axis = None
    feature_axis = 1 if channel_first else len(dims) - 1
    out = Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype)
    time_opt = NotSpecified if out.time_dim_axis == time_axis or time_axis is None else time_axis
    feature_opt = NotSpecified if out.feature_dim_axis == feature_axis else feature_axis
    if time_opt is NotSpecified and feature_opt is NotSpecified:
        return out
    return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, time_dim_axis=time_opt,
                  feature_dim_axis=feature_opt)


def apply_spatial_op(x: tf.Tensor, n_other: int, op: Callable[[tf.Tensor], tf.Tensor],
                     channel_first: bool = False) -> tf.Tensor:
    """Runs ``op`` (``[B', spatial.., C] -> [B', spatial'.., C']``) on ``x`` = ``[B, other.., spatial.., C]`` with the
    other axes folded into the batch.

    :return: ``[B, other.., spatial'.., C']``, or ``[B, C', other.., spatial'..]`` with ``channel_first``
    """
    if n_other:
        shape = tf.shape(x)
        y = op(tf.reshape(x, tf.concat([[-1], shape[1 + n_other:]], axis=0)))
        y = tf.reshape(y, tf.concat([shape[:1 + n_other], tf.shape(y)[1:]], axis=0))
    else:
        y = op(x)
    if channel_first:
        ndim = y.shape.rank
        y = tf.transpose(y, [0, ndim - 1] + list(range(1, ndim - 1)))
    return y
