"""``{"class": "repeat", "repetitions": 2, "axis": "T"}``: repeats every frame of an axis (``np.repeat``).

Shape: the axis becomes ``dim * repetitions`` (``'time:var:extern_data:data*2'``, as the reference) or ``out_dim``
and is moved right after the batch axis (as the reference orders the output). Dynamic axes: the lengths are
multiplied, and frames past a sequence's new length are 0 (the padded frames are not repeated into it).
``repetitions`` must be an int (a layer with per-frame counts is not supported here: :class:`LayerArgError`).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_mul


def _order(inp: Tensor, ax: int) -> list:
    lead = [inp.batch_dim_axis] if inp.batch_dim_axis is not None else []
    return lead + [ax] + [i for i in range(inp.batch_ndim) if i not in lead and i != ax]


@register_layer
class RepeatLayer(ConcatInputLayer):
    """Repeats each frame along ``axis``."""

    layer_class = "repeat"

    def __init__(self, repetitions: int, axis: Any = "T", out_dim: Optional[Dim] = None, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        order = _order(inp, ax)
        x = tf.transpose(inp.placeholder, order)
        rep_axis = order.index(ax)
        y = tf.repeat(x, repetitions, axis=rep_axis)
        d = inp.dims[ax]
        if d.dimension is None and d.dyn_size is not None and inp.batch_dim_axis is not None:
            new_len = d.dyn_size * repetitions
            mask = tf.sequence_mask(new_len, maxlen=tf.shape(y)[rep_axis])  # [B, T']
            mask = tf.reshape(mask, tf.concat([tf.shape(mask), tf.ones([y.shape.rank - 2], tf.int32)], axis=0))
            y = tf.where(tf.broadcast_to(mask, tf.shape(y)), y, tf.zeros_like(y))
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), repetitions: Any = None, axis: Any = "T",
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``repetitions`` not an int"""
        if not isinstance(repetitions, int) or isinstance(repetitions, bool):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="repetitions",
                                problem="is not supported in this form:", got=repetitions,
                                expected="an int (per-frame counts from a layer are not supported yet)")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        new = dim_mul(inp.dims[ax], repetitions)
        if out_dim is not None:
            out_dim.declare_same_as(new)
        order = _order(inp, ax)
        dims = [inp.dims[i] if i != ax else new for i in order]

        def moved(old: Optional[int]) -> Optional[int]:
            return None if old is None else order.index(old)

        return Tensor(name=f"{name.split('/')[-1]}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=moved(inp.time_dim_axis), feature_dim_axis=moved(inp.feature_dim_axis),
                      available_for_inference=inp.available_for_inference)
