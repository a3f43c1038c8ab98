"""``{"class": "stack", "from": ["a", "b"], "axis": None}``: stacks the sources on a new axis.

Shape: the first source's dims with a new static dim ``'<layer>:stack'(n)`` inserted at ``axis`` (default: before
the feature axis, or at the end without one), as the reference; ``out_spatial_dim`` is declared the same. The
other sources are transposed to the first's axis order (same dims required).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class StackLayer(LayerBase):
    """``tf.stack`` of the sources."""

    layer_class = "stack"

    def __init__(self, axis: Optional[int] = None, out_spatial_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param axis: position of the new axis (default: before the feature axis, else at the end)
        :param out_spatial_dim: the Dim of the new axis (declared the same as the computed one)
        """
        super().__init__(**kwargs)
        first = self.sources[0].output
        new_axis = [i for i, d in enumerate(self.output.dims) if d not in first.dims][0]
        raws = []
        for src in self.sources:
            out = src.output
            perm = [next(i for i, d in enumerate(out.dims) if d == fd) for fd in first.dims]
            raws.append(tf.transpose(out.placeholder, perm) if perm != list(range(len(perm))) else out.placeholder)
        self.output.placeholder = tf.stack(raws, axis=new_axis)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Optional[int] = None,
                               out_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: no sources or sources with different dims"""
        if not sources:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs at least one source")
        first = sources[0].output
        for src in sources[1:]:
            if len(src.output.dims) != len(first.dims) or any(d not in first.dims for d in src.output.dims):
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"source {src.name!r} has other dims than {sources[0].name!r}",
                                      expected=repr(first), got=repr(src.output))
        base = name.split("/")[-1]
        new = SpatialDim(f"{base}:stack", len(sources))
        if out_spatial_dim is not None:
            out_spatial_dim.declare_same_as(new)
        if axis is None:
            axis = first.feature_dim_axis if first.feature_dim_axis is not None else first.batch_ndim
        elif axis < 0:
            axis += first.batch_ndim + 1
        out = first.copy_template(name=f"{base}_output").copy_add_dim(axis, new)
        return out
