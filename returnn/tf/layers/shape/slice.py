"""``{"class": "slice", "axis": "T", "slice_start": 1, "slice_end": None, "slice_step": None}``: static slice.

On a dynamic axis the per-sequence lengths become ``clip(len - start, 0)`` (with end/step applied likewise,
as ``len(range(len)[start:end:step])``); on a static axis the new size is computed from the slice.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _clip_index(index: Optional[int], lens: tf.Tensor, default: tf.Tensor) -> tf.Tensor:
    if index is None:
        return default
    if index < 0:
        return tf.maximum(lens + index, 0)
    return tf.minimum(index, lens)


def _seq_len_after_slice(lens: tf.Tensor, start: Optional[int], end: Optional[int], step: Optional[int]) -> tf.Tensor:
    """:return: ``len(range(len)[start:end:step])`` per sequence (step > 0)"""
    step = step or 1
    s = _clip_index(start, lens, tf.zeros_like(lens))
    e = _clip_index(end, lens, lens)
    return (tf.maximum(e - s, 0) + step - 1) // step


@register_layer
class SliceLayer(ConcatInputLayer):
    """``x[..., start:end:step, ...]`` along ``axis``."""

    layer_class = "slice"

    def __init__(self, axis: Any, slice_start: Optional[int] = None, slice_end: Optional[int] = None,
                 slice_step: Optional[int] = None, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        index = [slice(None)] * inp.batch_ndim
        index[ax] = slice(slice_start, slice_end, slice_step)
        self.output.placeholder = inp.placeholder[tuple(index)]
        d = inp.dims[ax]
        if d.is_dynamic() and d.dyn_size is not None:
            self.output.dims[ax].dyn_size = _seq_len_after_slice(d.dyn_size, slice_start, slice_end, slice_step)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, slice_start: Optional[int] = None,
                               slice_end: Optional[int] = None, slice_step: Optional[int] = None,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        d = inp.dims[ax]
        if d.dimension is not None:
            size = len(range(d.dimension)[slice(slice_start, slice_end, slice_step)])
            new = FeatureDim(f"{name}:slice-end", size) if d.is_feature_dim() else SpatialDim(f"{name}:slice", size)
        else:
            desc = d.description if slice_start is None else f"{-slice_start if slice_start > 0 else slice_start}+{d.description}"
            new = SpatialDim(desc if slice_start else f"{name}:slice({d.description})", None)
        return inp.copy_template_replace_dim(ax, new)
