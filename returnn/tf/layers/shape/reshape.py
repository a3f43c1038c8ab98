"""``{"class": "reshape", "in_dims": ["F"], "out_dims": [a, b]}``: replaces some axes by others of the same total
size (raw ``tf.reshape``).

Shape: the ``in_dims`` (axis descriptions or Dims) are replaced, at the position of the first of them, by the
``out_dims`` (Dims); the other axes keep their order. The feature axis is the last feature-kind dim (as the
reference marks ``[B, T, F'a'(2), F|F'b'(3)]``). (``extra_deps``, layers that must be built first, is a common
layer argument.)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


def _plan(name: str, layer_class: str, inp: Tensor, in_dims: Sequence[Any], out_dims: Sequence[Dim]) -> tuple:
    in_axes = [inp.get_axis_from_description(d) for d in in_dims]
    if not all(isinstance(d, Dim) for d in out_dims):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="out_dims", problem="invalid value", got=out_dims,
                            expected="a list of Dim objects")
    in_sizes = [inp.batch_shape[a] for a in in_axes]
    out_sizes = [d.dimension for d in out_dims]
    if None not in in_sizes and None not in out_sizes and np.prod(in_sizes) != np.prod(out_sizes):
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"in_dims of total size {int(np.prod(in_sizes))} cannot become out_dims of "
                                      f"total size {int(np.prod(out_sizes))}", got=repr(inp))
    pos = min(in_axes)
    rest = [i for i in range(inp.batch_ndim) if i not in in_axes]
    before = [i for i in rest if i < pos]
    after = [i for i in rest if i > pos]
    perm = before + in_axes + after
    dims = [inp.dims[i] for i in before] + list(out_dims) + [inp.dims[i] for i in after]
    return perm, before, after, dims


@register_layer
class ReshapeLayer(LayerBase):
    """``tf.reshape`` of ``in_dims`` into ``out_dims``."""

    layer_class = "reshape"

    def __init__(self, in_dims: Sequence[Any], out_dims: Sequence[Dim], **kwargs: Any):
        """
        :param in_dims: the axes (descriptions or Dims) that are replaced
        :param out_dims: the Dims that replace them (same total size)
        """
        super().__init__(**kwargs)
        inp = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        x = concat_sources(self.sources, inp)
        perm, before, after, _ = _plan(self.name, self.layer_class, inp, in_dims, out_dims)
        if perm != list(range(inp.batch_ndim)):
            x = tf.transpose(x, perm)
        shape = tf.shape(x)
        n_before = len(before)
        out_shape = [d.dimension if d.dimension is not None else -1 for d in out_dims]
        new_shape = tf.concat([shape[:n_before], out_shape, shape[inp.batch_ndim - len(after):]], axis=0)
        self.output.placeholder = tf.reshape(x, new_shape)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), in_dims: Sequence[Any] = (),
                               out_dims: Sequence[Dim] = (), **kwargs: Any) -> Tensor:
        """:raises LayerArgError: out_dims not Dims
        :raises LayerShapeError: total sizes differ"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        _, _, _, dims = _plan(name, cls.layer_class, inp, in_dims, out_dims)
        time_axis = dims.index(inp.time_dim) if inp.time_dim is not None and inp.time_dim in dims else None
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, available_for_inference=inp.available_for_inference)
