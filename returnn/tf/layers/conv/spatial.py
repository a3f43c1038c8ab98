"""Shared logic of ``conv`` and ``pool``: bring the input to ``[B, spatial..., C]`` and compute output dims.

Output size per spatial axis (as the reference/TF): ``same``: ``ceil(n / stride)``; ``valid``:
``ceil((n - (k - 1) * dilation) / stride)``. Dynamic axes get the same formula applied to their lengths.
Padded frames enter the operation as they are, as in the reference (observed): with ``padding="same"`` the last
frames of a shorter sequence see the values in its padded frames (zeros in a dataset's batch; whatever the layers
before computed there otherwise, e.g. a bias), while the longest sequence sees TensorFlow's zero padding.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor


def as_tuple(value: Any, n: int) -> Tuple[int, ...]:
    """:return: ``value`` (int or sequence) as an ``n``-tuple (a 1-tuple is repeated)"""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1 and n > 1:
        return value * n
    return value


def prepare_input_template(inp: Tensor, *, name: str, layer_class: str, n_spatial: int,
                           input_add_feature_dim: bool = False, input_expand_dims: int = 0,
                           in_spatial_dims: Optional[Sequence[Any]] = None) -> Tensor:
    """:param in_spatial_dims: axis descriptions (or Dims) of the spatial axes, as the reference's argument (e.g.
        ``["T", "dim:50"]``); they must be the input's non-batch, non-feature axes in their order
    :return: template ``[B, spatial..., C]`` (batch-major, feature last)
    :raises LayerShapeError: sparse input, wrong number of spatial axes
    :raises LayerArgError: ``in_spatial_dims`` names other axes, or the same in another order (not supported here)"""
    if inp.sparse:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs a dense input, got sparse",
                              got=repr(inp), hint="embed the sparse input with a linear layer first")
    out = inp.copy_as_batch_major()
    if input_add_feature_dim:
        out = Tensor(**{**out.get_kwargs(), "feature_dim_axis": None})
        out = out.copy_add_dim(out.batch_ndim, FeatureDim(f"{name}:input-feature", 1), as_feature=True)
    for _ in range(input_expand_dims):
        out = out.copy_add_dim(out.batch_ndim - 1 if out.feature_dim_axis is not None else out.batch_ndim,
                               SpatialDim(f"{name}:input-expand", 1))
    if out.feature_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs a feature (channel) axis",
                              got=repr(inp), hint='use "input_add_feature_dim": True')
    out = out.copy_with_feature_dim_axis(-1)
    if in_spatial_dims is not None:
        _check_in_spatial_dims(out, in_spatial_dims, name=name, layer_class=layer_class)
    spatial = out.batch_ndim - 2
    if spatial != n_spatial:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"filter/pool size has {n_spatial} spatial axes but the input has {spatial}",
                              got=repr(inp), hint="use input_add_feature_dim / input_expand_dims or split_dims")
    return out


def _check_in_spatial_dims(inp: Tensor, in_spatial_dims: Sequence[Any], *, name: str, layer_class: str) -> None:
    """:raises LayerArgError: ``in_spatial_dims`` are not the spatial axes ``1 .. n-2`` of ``inp`` in order"""
    if isinstance(in_spatial_dims, (str, Dim)):
        in_spatial_dims = [in_spatial_dims]
    axes = [inp.get_axis_from_description(d) for d in in_spatial_dims]
    if axes != list(range(1, inp.batch_ndim - 1)):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="in_spatial_dims",
                            problem="must name the input's spatial axes (all axes except batch and feature) in their "
                                    "order here:", got=list(in_spatial_dims),
                            hint=f"the input is {inp!r}; reorder the axes before (e.g. with a transpose layer)")


def output_dims(inp: Tensor, *, name: str, sizes: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
                padding: str) -> List[Dim]:
    """:return: the new spatial dims of the output (one per spatial axis of ``inp`` = ``[B, spatial..., C]``)"""
    dims = []
    for i, d in enumerate(inp.dims[1:-1]):
        k, s, dl = sizes[i], strides[i], dilation[i]
        if s == 1 and (k == 1 or padding == "same") and dl >= 1:
            dims.append(d)  # size unchanged: the same dim (as the reference)
            continue
        if d.dimension is not None:
            n = d.dimension if padding == "same" else d.dimension - (k - 1) * dl
            dims.append(SpatialDim(f"{name}:conv:s{i}", max(-(-n // s), 0)))  # the reference's name (observed)
        else:
            dims.append(SpatialDim(dyn_dim_description(d.description, k, s, dl, padding), None, derived_from_tag=d))
    return dims


def dyn_dim_description(desc: str, size: int, stride: int, dilation: int, padding: str) -> str:
    """Description of a derived dynamic dim, written as the reference writes it (e.g. ``⌈(T+-1)/2⌉``)."""
    if padding == "valid":
        total = (size - 1) * dilation
        left = total // 2
        right = total - left
        if left:
            desc = f"-{left}+{desc}"
        if right:
            desc = f"({desc})+-{right}" if left else f"{desc}+-{right}"
    if stride > 1:
        desc = f"⌈({desc})/{stride}⌉" if ("+" in desc and not desc.startswith("(")) else f"⌈{desc}/{stride}⌉"
    return desc


def check_padding(padding: str, name: str, layer_class: str) -> str:
    low = padding.lower()
    if low not in ("same", "valid"):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="padding", problem="invalid value", got=padding,
                            expected="'same' | 'valid'")
    return low


def build_output_template(inp: Tensor, new_spatial: List[Dim], feature: Dim, name: str) -> Tensor:
    """:return: ``{B, new_spatial.., feature}`` (batch-major, feature last); the time axis follows the input's"""
    dims = [inp.dims[0]] + new_spatial + [feature]
    time_axis = None
    if inp.time_dim_axis is not None:
        time_axis = inp.time_dim_axis
    else:
        dyn = [i for i, d in enumerate(dims) if d.is_dynamic()]
        time_axis = dyn[0] if dyn else None
    return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, time_dim_axis=time_axis,
                  feature_dim_axis=len(dims) - 1)


def prepare_input_raw(layer: Any, tmpl_inp: Tensor, input_add_feature_dim: bool, input_expand_dims: int) -> tf.Tensor:
    """:return: raw ``[B, spatial..., C]`` (layout of ``tmpl_inp``); padded frames as they are (see the module)"""
    tmp = layer.input_data.copy_as_batch_major()
    if input_add_feature_dim:
        x = tf.expand_dims(tmp.placeholder, -1)
        for _ in range(input_expand_dims):
            x = tf.expand_dims(x, -2)
        return x
    tmp = tmp.copy_with_feature_dim_axis(-1)
    x = tmp.placeholder
    for _ in range(input_expand_dims):
        x = tf.expand_dims(x, -2)
    return x


def set_output_sizes(layer: Any, tmpl_inp: Tensor, sizes: Sequence[int], strides: Sequence[int],
                     dilation: Sequence[int], padding: str) -> None:
    """Sets ``dyn_size`` of new dynamic output dims from the input lengths."""
    for i, d in enumerate(tmpl_inp.dims[1:-1]):
        out_d = layer.output.dims[1 + i]
        if out_d is d or not d.is_dynamic() or d.dyn_size is None:
            continue
        k, s, dl = sizes[i], strides[i], dilation[i]
        n = d.dyn_size if padding == "same" else tf.maximum(d.dyn_size - (k - 1) * dl, 0)
        out_d.dyn_size = (n + s - 1) // s
