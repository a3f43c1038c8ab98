"""``{"class": "unflatten_nd", "from": "data", "sizes": "data:sizes", "num_axes": 2}``: undoes the flattening of
several time axes into one (as ``SimpleHDFWriter`` stores e.g. attention weights ``[dec-T, enc-T]`` per sequence:
``dec-T * enc-T`` frames plus a ``sizes`` stream).

Shape: input ``{B, T', rest..}`` (``T'`` its first time axis, each sequence's frames in row-major order of the
unflattened axes) and ``sizes`` ``{B, N'}`` int (the first ``num_axes`` entries per sequence are the lengths) ->
``{B, T1, .., Tn, rest..}`` with new dynamic dims ``T1 .. Tn`` (named ``<layer>:unflatten-nd:<i>``), whose lengths are
the sizes. As the reference (observed), a padded frame holds the sequence's first value, not 0.
``declare_same_sizes_as`` ``{i: layer}`` makes ``Ti`` that layer's time dim (same lengths assumed).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import SpatialDim, Tensor, batch_dim
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class UnflattenNdLayer(ConcatInputLayer):
    """Reshapes each sequence's flat time axis into ``num_axes`` time axes of the given lengths."""

    layer_class = "unflatten_nd"
    recurrent = True  # a frame's position depends on the lengths (as the reference's class)

    def __init__(self, sizes: LayerBase, num_axes: int, in_dim: Any = "T", out_dims: Any = None,
                 declare_same_sizes_as: Optional[Dict[int, LayerBase]] = None, **kwargs: Any):
        """
        :param sizes: int ``{B, N'}`` with ``N' >= num_axes``: the lengths of the new axes per sequence
        :param num_axes: how many axes the flat time axis becomes
        :param in_dim: the flat axis; only the input's time axis (``"T"``, the default) is supported
        :param out_dims: accepted for the reference's signature; must be None (the dims are new ones)
        :param declare_same_sizes_as: axis index -> layer whose time dim the new axis is
        """
        super().__init__(**kwargs)
        self.sizes_layer = sizes
        self.declare_same_sizes_as = dict(declare_same_sizes_as or {})
        inp = self.input_data.copy_as_batch_major()
        if inp.time_dim_axis != 1:
            inp = inp.copy_move_axis(inp.time_dim_axis, 1)
        x = inp.placeholder  # [B, T', rest..]
        size_data = sizes.output.copy_as_batch_major()
        lens = tf.cast(size_data.placeholder[:, :num_axes], tf.int32)  # [B, n]
        max_lens = tf.reduce_max(lens, axis=0)  # [n]
        grids = tf.meshgrid(*[tf.range(max_lens[i]) for i in range(num_axes)], indexing="ij")  # n x [M1..Mn]
        flat_idx = tf.zeros([tf.shape(x)[0]] + [max_lens[i] for i in range(num_axes)], tf.int32)
        mask = tf.ones_like(flat_idx, tf.bool)
        stride = tf.ones_like(lens[:, 0])  # [B]
        for i in reversed(range(num_axes)):
            bc = [-1] + [1] * num_axes  # [B, 1, .., 1]
            flat_idx += grids[i][None] * tf.reshape(stride, bc)
            mask = tf.logical_and(mask, grids[i][None] < tf.reshape(lens[:, i], bc))
            stride *= lens[:, i]
        # padded positions read index 0 (the sequence's first value), as the reference's result
        gathered = tf.gather(x, tf.where(mask, flat_idx, tf.zeros_like(flat_idx)), batch_dims=1)
        self.output.placeholder = gathered
        for i in range(num_axes):
            dim = self.output.dims[1 + i]
            if dim.dyn_size is None:
                dim.dyn_size = lens[:, i]

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [self.sizes_layer] + list(self.declare_same_sizes_as.values())

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("sizes"), str):
            d["sizes"] = get_layer(d["sizes"])
        if d.get("declare_same_sizes_as"):
            d["declare_same_sizes_as"] = {int(i): get_layer(v) if isinstance(v, str) else v
                                          for i, v in d["declare_same_sizes_as"].items()}

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), sizes: Any = None, num_axes: Any = None,
                               in_dim: Any = "T", out_dims: Any = None,
                               declare_same_sizes_as: Optional[Dict[int, Any]] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no ``sizes`` layer, ``num_axes`` not a positive int, ``in_dim`` other than the
            time axis, ``out_dims`` given
        :raises LayerShapeError: input without batch and time axes"""
        if not isinstance(num_axes, int) or num_axes < 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="num_axes",
                                problem="needs the number of axes (int >= 1):", got=num_axes)
        if getattr(sizes, "output", None) is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="sizes",
                                problem="needs a layer with the lengths {B, num_axes}:", got=sizes)
        if in_dim not in ("T", "t") or out_dims is not None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="in_dim" if out_dims is None else "out_dims",
                                problem="only the input's time axis (in_dim 'T') into new dims (out_dims None) is "
                                        "supported here:", got=in_dim if out_dims is None else out_dims)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.batch_dim_axis is None or inp.time_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an input with batch and time axes", got=repr(inp))
        inp = inp.copy_as_batch_major()
        if inp.time_dim_axis != 1:
            inp = inp.copy_move_axis(inp.time_dim_axis, 1)
        declared = dict(declare_same_sizes_as or {})
        new_dims = []
        base = name.split("/")[-1]
        for i in range(num_axes):
            layer = declared.get(i)
            if layer is not None and getattr(layer, "output", None) is not None and layer.output.have_time_axis():
                new_dims.append(layer.output.get_time_dim_tag())
            else:
                new_dims.append(SpatialDim(f"{base}:unflatten-nd:{i}", None))
        dims = [batch_dim] + new_dims + list(inp.dims[2:])
        kwargs_feature = {}
        if inp.feature_dim_axis is not None and inp.feature_dim_axis >= 2:
            kwargs_feature["feature_dim_axis"] = inp.feature_dim_axis + num_axes - 1
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=1, available_for_inference=inp.available_for_inference, **kwargs_feature)
