"""``{"class": "scatter_nd", "position": "t_ext", "position_axis": "static:-1", "output_dim_via_time_from": "enc"}``:
scatter-add of the input into a new axis.

Shape: the position ``{P.., A, ..}`` (int) with its ``position_axis`` ``A`` replaced by the new axis ``N``, followed by
the input's dims that the position does not have: ``{B, T'} + {B, T, F} --A=T'--> {B, N, T, F}``. An input dim
counts as a position dim if it is the same dim or, as the reference, a static auto-generated dim of the same size as
an auto-generated position dim (e.g. both from ``shape=(..., 6)``; the first such input axis). The input is
broadcast to the position's dims, then ``out[p.., position[p.., a, ..], .., r..] += in[p.., a, .., r..]`` (duplicate
positions add up, every frame of the position counts, padded ones too, as the reference). ``N`` is the time dim of
``output_dim_via_time_from`` or ``out_spatial_dim``. Positions outside ``[0, N)`` are dropped with
``filter_invalid_indices``, else TF's ``scatter_nd`` rules apply (an error on CPU). The time and feature axes are
not given (the defaults: the first dynamic axis, the last static one), as the reference.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _match_input_axes(inp: Tensor, pos: Tensor) -> Dict[int, int]:
    """:return: {position axis: input axis} for the input axes that are position axes: the same dim, else (as the
        reference) a loosely equal one (static, same size, both auto-generated), each axis matched once"""
    matched: Dict[int, int] = {}
    for i, d in enumerate(inp.dims):
        if d in pos.dims:
            matched[pos.dims.index(d)] = i
    for i, d in enumerate(inp.dims):
        if i in matched.values():
            continue
        for j, p in enumerate(pos.dims):
            if j not in matched and p.is_equal(d, treat_feature_as_spatial=True, allow_same_spatial_dim=True):
                matched[j] = i
                break
    return matched


def _out_dim(name: str, layer_class: str, output_dim_via_time_from: Optional[LayerBase],
             out_spatial_dim: Optional[Dim]) -> Dim:
    if out_spatial_dim is not None:
        return out_spatial_dim
    if output_dim_via_time_from is None:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="output_dim_via_time_from",
                            problem="missing required argument", hint="or give out_spatial_dim")
    other = output_dim_via_time_from.output
    if other.time_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"output_dim_via_time_from {output_dim_via_time_from.name!r} has no time axis",
                              got=repr(other))
    return other.dims[other.time_dim_axis]


@register_layer
class ScatterNdLayer(ConcatInputLayer):
    """Scatter-add into a new axis given by per-frame positions."""

    layer_class = "scatter_nd"

    def __init__(self, position: LayerBase, position_axis: Any, output_dim_via_time_from: Optional[LayerBase] = None,
                 out_spatial_dim: Optional[Dim] = None, filter_invalid_indices: bool = False, **kwargs: Any):
        """
        :param position: layer with the int target positions per frame
        :param position_axis: the axis of ``position`` that is replaced by the new axis
        :param output_dim_via_time_from: layer whose time dim is the new axis
        :param out_spatial_dim: the Dim of the new axis (instead of ``output_dim_via_time_from``)
        :param filter_invalid_indices: drop positions outside the new axis instead of failing
        """
        super().__init__(**kwargs)
        self.position = position
        self.output_dim_via_time_from = output_dim_via_time_from
        inp, pos = self.input_data, position.output
        pos_axis = pos.get_axis_from_description(position_axis)
        new_dim = _out_dim(self.name, self.layer_class, output_dim_via_time_from, out_spatial_dim)
        matched = _match_input_axes(inp, pos)
        rest = [i for i in range(inp.batch_ndim) if i not in matched.values()]
        # value with dims pos.dims + rest (size 1 where the input lacks a position dim), broadcast to the position
        in_order = [matched[j] for j in range(pos.batch_ndim) if j in matched] + rest
        x = tf.transpose(inp.placeholder, in_order) if in_order != list(range(inp.batch_ndim)) else inp.placeholder
        for j in range(pos.batch_ndim):
            if j not in matched:
                x = tf.expand_dims(x, j)
        pos_shape = tf.shape(pos.placeholder)
        x = tf.broadcast_to(x, tf.concat([pos_shape, tf.shape(x)[pos.batch_ndim:]], axis=0))
        # move the position axis last among the position dims: [O.., A, rest..]
        n_pos = pos.batch_ndim
        perm = [i for i in range(n_pos) if i != pos_axis] + [pos_axis]
        idx = tf.cast(tf.transpose(pos.placeholder, perm), tf.int32)
        x = tf.transpose(x, perm + list(range(n_pos, n_pos + len(rest))))
        other_shape = tf.shape(idx)[:-1]
        n_other = tf.reduce_prod(other_shape)
        n_a = tf.shape(idx)[-1]
        rest_shape = tf.shape(x)[n_pos:]
        flat_idx = tf.reshape(idx, [-1])
        flat_x = tf.reshape(x, tf.concat([[-1], rest_shape], axis=0))
        row = tf.repeat(tf.range(n_other), n_a)
        new_size = tf.shape(output_dim_via_time_from.output.placeholder)[output_dim_via_time_from.output.time_dim_axis] \
            if out_spatial_dim is None else _dim_size(new_dim)
        if filter_invalid_indices:
            valid = tf.logical_and(flat_idx >= 0, flat_idx < new_size)
            flat_idx, row, flat_x = (tf.boolean_mask(flat_idx, valid), tf.boolean_mask(row, valid),
                                     tf.boolean_mask(flat_x, valid))
        y = tf.scatter_nd(tf.stack([row, flat_idx], axis=1), flat_x,
                          tf.concat([[n_other, new_size], rest_shape], axis=0))
        y = tf.reshape(y, tf.concat([other_shape, [new_size], rest_shape], axis=0))
        # the new axis back to the position axis' place
        n_o = n_pos - 1
        back = list(range(pos_axis)) + [n_o] + list(range(pos_axis, n_o)) + list(range(n_pos, n_pos + len(rest)))
        self.output.placeholder = tf.transpose(y, back)

    def get_dep_layers(self) -> List[LayerBase]:
        deps = super().get_dep_layers() + [self.position]
        return deps + ([self.output_dim_via_time_from] if self.output_dim_via_time_from is not None else [])

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("position", "output_dim_via_time_from"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), position: Optional[LayerBase] = None,
                               position_axis: Any = None, output_dim_via_time_from: Optional[LayerBase] = None,
                               out_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: position missing or not int, no output dim given
        :raises LayerShapeError: ``output_dim_via_time_from`` without time axis"""
        if position is None or not hasattr(position, "output"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position",
                                problem="missing required argument", expected="a layer with int indices")
        pos = position.output
        if not pos.dtype.startswith(("int", "uint")):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position", problem="invalid value",
                                got=repr(pos), expected="a layer with int indices")
        if position_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position_axis",
                                problem="missing required argument")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        pos_axis = pos.get_axis_from_description(position_axis)
        new_dim = _out_dim(name, cls.layer_class, output_dim_via_time_from, out_spatial_dim)
        dims = list(pos.dims)
        dims[pos_axis] = new_dim
        matched = _match_input_axes(inp, pos)
        dims += [d for i, d in enumerate(inp.dims) if i not in matched.values()]
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      available_for_inference=inp.available_for_inference and pos.available_for_inference)


def _dim_size(dim: Dim) -> Any:
    if dim.dimension is not None:
        return dim.dimension
    return tf.reduce_max(dim.dyn_size)
