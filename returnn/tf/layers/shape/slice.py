"""``{"class": "slice", "axis": "T", "slice_start": 1, "slice_end": None, "slice_step": None}``: static slice.

On a dynamic axis the per-sequence lengths become ``len(range(len)[start:end:step])``; as the reference, if both
``slice_start`` and ``slice_end`` are >= 0 the result is a static axis of size ``len(range(end)[start::step])``
(frames beyond a sequence's end are then included, as padding). On a static axis the new size is computed from
the slice.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tensor import FeatureDim, NotSpecified, SpatialDim, Tensor
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
        """
        :param axis: the axis to slice
        :param slice_start: first index (Python slice semantics; default the start)
        :param slice_end: end index, excluded (default the end)
        :param slice_step: step (default 1)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = inp.placeholder
        d = inp.dims[ax]
        static_result = self.output.dims[ax].dimension is not None
        if d.is_dynamic() and static_result:  # make sure the raw axis is long enough for the static slice
            paddings = [[0, 0]] * inp.batch_ndim
            paddings[ax] = [0, tf.maximum(slice_end - tf.shape(x)[ax], 0)]
            x = tf.pad(x, paddings)
        index = [slice(None)] * inp.batch_ndim
        index[ax] = slice(slice_start, slice_end, slice_step)
        self.output.placeholder = x[tuple(index)]
        if d.is_dynamic() and d.dyn_size is not None and not static_result:
            self.output.dims[ax].dyn_size = _seq_len_after_slice(d.dyn_size, slice_start, slice_end, slice_step)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, slice_start: Optional[int] = None,
                               slice_end: Optional[int] = None, slice_step: Optional[int] = None,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        d = inp.dims[ax]
        step = slice_step or 1
        if d.dimension is not None or (slice_end is not None and slice_end >= 0 and (slice_start or 0) >= 0):
            # static result; as the reference also on a dynamic axis when start and end are both >= 0
            size = len(range(d.dimension if d.dimension is not None else slice_end)[slice(slice_start, slice_end, step)])
            make = FeatureDim if d.is_feature_dim() else SpatialDim
            out = inp.copy_template_replace_dim(ax, make(f"{name}:slice-end", size))
            if out.time_dim_axis == ax and d.dimension is None and inp.time_dim_axis_or_unspecified is NotSpecified:
                # as the reference (observed): a time axis derived from the dims goes with the dynamic dim; one set
                # explicitly (e.g. a dot layer's output in a rec loop) stays on the sliced axis
                out.time_dim_axis = NotSpecified
            return out
        desc = d.description
        if slice_start:
            desc = f"{-slice_start}+{desc}" if slice_start > 0 else f"{desc}+{slice_start}"
        if slice_end is not None:
            desc = f"{desc}+{slice_end}"
        if step > 1:
            desc = f"⌈({desc})/{step}⌉" if "+" in desc else f"⌈{desc}/{step}⌉"
        return inp.copy_template_replace_dim(ax, SpatialDim(desc, None))
