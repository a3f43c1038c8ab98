"""``{"class": "swap_axes", "axis1": "s:1", "axis2": "f"}``: swaps two axes.

Shape: the two dims trade places, e.g. ``{B, T, S5, F2} --s:1<->f--> {B, T, F2, S5}``. The time axis follows its
dim. The feature axis follows its dim if the input's feature axis was set explicitly; if it was the default
(the last axis that is neither batch nor time), the output's is the default again -- in the example the
``S5`` axis, as the reference marks it.
"""

from __future__ import annotations

from typing import Any, List, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def default_feature_axis(tensor: Tensor, time_axis: Optional[int]) -> Optional[int]:
    """:return: the reference's default feature axis: the last axis that is neither batch nor time (None if sparse)"""
    if tensor.sparse:
        return None
    candidates = [i for i in range(tensor.batch_ndim) if i not in (tensor.batch_dim_axis, time_axis)]
    return candidates[-1] if candidates else None


@register_layer
class SwapAxesLayer(ConcatInputLayer):
    """Transposes ``axis1`` and ``axis2``."""

    layer_class = "swap_axes"

    def __init__(self, axis1: Any, axis2: Any, **kwargs: Any):
        """
        :param axis1: the first axis (description)
        :param axis2: the second axis (description)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        perm = _perm(inp, axis1, axis2)
        self.output.placeholder = tf.transpose(inp.placeholder, perm)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis1: Any = None, axis2: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises AxisDescriptionError: an axis description matching no or several axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        perm = _perm(inp, axis1, axis2)
        dims = [inp.dims[i] for i in perm]
        time_axis = None if inp.time_dim_axis is None else perm.index(inp.time_dim_axis)
        feature_axis = None
        if inp.feature_dim_axis is not None:
            if inp.feature_dim_axis == default_feature_axis(inp, inp.time_dim_axis):
                out = Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                             time_dim_axis=time_axis, feature_dim_axis=None)
                feature_axis = default_feature_axis(out, time_axis)
            else:
                feature_axis = perm.index(inp.feature_dim_axis)
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis,
                      available_for_inference=inp.available_for_inference)


def _perm(inp: Tensor, axis1: Any, axis2: Any) -> List[int]:
    a1, a2 = inp.get_axis_from_description(axis1), inp.get_axis_from_description(axis2)
    perm = list(range(inp.batch_ndim))
    perm[a1], perm[a2] = a2, a1
    return perm
