"""``{"class": "split", "axis": "F", "size_splits": (2, 4)}``: splits an axis into parts, the sub layers
``"<layer>/0"``, ``"<layer>/1"``, ...

The layer's own output is its input (as the reference). Part ``i`` has the split axis replaced by a new dim
``'<layer>_split<i>'`` (static size) or ``out_dims[i]``. Sizes: ``size_splits``, or ``num_splits`` equal parts, or
the sizes of ``out_dims``. ``axis`` defaults to the feature axis.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _sizes(name: str, layer_class: str, inp: Tensor, ax: int, num_splits: Optional[int],
           size_splits: Optional[Sequence[int]], out_dims: Optional[Sequence[Dim]]) -> List[int]:
    total = inp.batch_shape[ax]
    if out_dims is not None:
        sizes = [d.dimension for d in out_dims]
    elif size_splits is not None:
        sizes = list(size_splits)
    elif num_splits is not None:
        if total is None or total % num_splits:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"axis of size {total} cannot be split into {num_splits} equal parts",
                                  got=repr(inp))
        sizes = [total // num_splits] * num_splits
    else:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="size_splits", problem="missing required argument",
                            hint="give size_splits, num_splits or out_dims")
    if total is not None and sum(sizes) != total:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem=f"split sizes {sizes} do not add up to the axis size {total}", got=repr(inp))
    return sizes


@register_layer
class SplitLayer(ConcatInputLayer):
    """Splits ``axis``; the parts are the sub layers ``"0"``, ``"1"``, ..."""

    layer_class = "split"

    def __init__(self, axis: Any = None, num_splits: Optional[int] = None, size_splits: Optional[Sequence[int]] = None,
                 out_dims: Optional[Sequence[Dim]] = None, **kwargs: Any):
        """
        :param axis: the axis to split (default the feature axis)
        :param num_splits: number of equal parts
        :param size_splits: the sizes of the parts
        :param out_dims: the Dims of the parts (their sizes give the split)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description("F" if axis is None else axis)
        sizes = _sizes(self.name, self.layer_class, inp, ax, num_splits, size_splits, out_dims)
        parts = tf.split(inp.placeholder, sizes, axis=ax)
        self.output.placeholder = inp.placeholder
        self.splits: List[InternalLayer] = []
        for i, (raw, size) in enumerate(zip(parts, sizes)):
            new = out_dims[i] if out_dims is not None else Dim(size, description=f"{self.name}_split{i}",
                                                             kind=inp.dims[ax].kind)
            out = inp.copy_template_replace_dim(ax, new)
            out.name = f"{self.name}/{i}_output"
            out.placeholder = raw
            self.splits.append(InternalLayer(name=f"{self.name}/{i}", network=self.network, output=out,
                                             sources=[self]))

    def get_sub_layer(self, layer_name: str) -> Optional[InternalLayer]:
        """:return: part ``int(layer_name)``, or None"""
        if layer_name.isdigit() and int(layer_name) < len(self.splits):
            return self.splits[int(layer_name)]
        return None

    @classmethod
    def get_sub_layer_out_data_from_opts(cls, layer_name: str, parent_layer_kwargs: Dict[str, Any]
                                         ) -> Optional[Tensor]:
        """:return: the template of part ``int(layer_name)`` (the axis replaced by its part), or None"""
        kw = parent_layer_kwargs
        name = kw["name"]
        inp = concat_sources_template(kw.get("sources", ()), name=name, layer_class=cls.layer_class)
        axis = kw.get("axis")
        ax = inp.get_axis_from_description("F" if axis is None else axis)
        out_dims = kw.get("out_dims")
        sizes = _sizes(name, cls.layer_class, inp, ax, kw.get("num_splits"), kw.get("size_splits"), out_dims)
        if not layer_name.isdigit() or int(layer_name) >= len(sizes):
            return None
        i = int(layer_name)
        new = out_dims[i] if out_dims is not None else Dim(sizes[i], description=f"{name}_split{i}",
                                                           kind=inp.dims[ax].kind)
        out = inp.copy_template_replace_dim(ax, new)
        out.name = f"{name}/{i}_output"
        return out

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, num_splits: Optional[int] = None,
                               size_splits: Optional[Sequence[int]] = None, out_dims: Optional[Sequence[Dim]] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no sizes given
        :raises LayerShapeError: sizes do not add up"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description("F" if axis is None else axis)
        _sizes(name, cls.layer_class, inp, ax, num_splits, size_splits, out_dims)
        return sources[0].output.copy_template() if len(sources) == 1 else inp
