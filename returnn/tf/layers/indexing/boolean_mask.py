"""``{"class": "boolean_mask", "mask": "m", "dims": [batch_dim, time_dim]}``: keeps the frames where the mask is
true (``tf.boolean_mask``), packing ``dims`` into one new axis.

Shape: ``{dims.., rest..} -> {N, rest..}`` with ``N`` a new dynamic dim ``'<layer>:mask'`` (its size, a scalar, is
the number of true entries) or ``out_dim``; ``N`` is the time axis. The mask must have exactly ``dims``; it is
applied to the raw tensor (padded frames where the mask is true are kept, as the reference).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


@register_layer
class BooleanMaskLayer(LayerBase):
    """``tf.boolean_mask`` over ``dims``."""

    layer_class = "boolean_mask"

    def __init__(self, *, mask: LayerBase, dims: Sequence[Dim], out_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param mask: layer with a bool tensor over exactly ``dims``: the entries to keep
        :param dims: the dims that the mask covers; they are packed into one new axis
        """
        super().__init__(**kwargs)
        self.mask = mask
        inp = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        x = concat_sources(self.sources, inp)
        m = mask.output
        order = [inp.dims.index(d) for d in m.dims]
        rest = [i for i in range(inp.batch_ndim) if i not in order]
        x = tf.transpose(x, order + rest)
        y = tf.boolean_mask(x, m.placeholder)
        self.output.dims[0].dyn_size = tf.shape(y)[0]
        self.output.placeholder = y

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [self.mask]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("mask"), str):
            d["mask"] = get_layer(d["mask"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mask: Any = None, dims: Sequence[Dim] = (),
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no bool mask
        :raises LayerShapeError: mask dims differ from ``dims``"""
        if mask is None or not hasattr(mask, "output") or mask.output.dtype != "bool":
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mask", problem="invalid value",
                                got=mask, expected="a layer with a bool output")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if set(mask.output.dims) != set(dims) or any(d not in inp.dims for d in dims):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the mask's dims must be exactly 'dims', all in the input",
                                  expected=repr(list(dims)), got=f"mask {mask.output!r}, input {inp!r}")
        base = name.split("/")[-1]
        new = Dim(None, description=f"{base}:mask")
        if out_dim is not None:
            out_dim.declare_same_as(new)
        rest = [d for d in inp.dims if d not in dims]
        dims_out = [new] + rest
        feature_axis = dims_out.index(inp.feature_dim) if inp.feature_dim is not None and inp.feature_dim in rest \
            else None
        return Tensor(name=f"{base}_output", dims=dims_out, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=0, feature_dim_axis=feature_axis,
                      available_for_inference=inp.available_for_inference)
