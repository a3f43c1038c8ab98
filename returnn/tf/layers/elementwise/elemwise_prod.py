"""``{"class": "elemwise_prod", "axes": "F"}``: elementwise product with a trainable tensor over ``axes``.

Shape: unchanged. Param (as the reference): ``W`` with the (static) sizes of ``axes`` in the input's axis order
(``size`` overrides them), initialized to ones; broadcast over all other axes. Dynamic axes are rejected
(:class:`LayerShapeError`), as the reference rejects them.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class ElemwiseProdLayer(ConcatInputLayer):
    """``x * W`` with ``W`` over ``axes`` (LACE-style)."""

    layer_class = "elemwise_prod"

    def __init__(self, axes: Any, size: Optional[Sequence[int]] = None, **kwargs: Any):
        """
        :param axes: the (static) axes the trainable factor ``W`` spans
        :param size: the shape of ``W`` instead of the sizes of ``axes``
        """
        super().__init__(**kwargs)
        inp = self.input_data
        axes_idx = sorted(inp.get_axes_from_description(axes))
        shape = tuple(size) if size is not None else tuple(inp.batch_shape[a] for a in axes_idx)
        w = self.create_param("W", shape, tf.compat.v1.ones_initializer())
        bc_shape = [1] * inp.batch_ndim
        for a, n in zip(axes_idx, shape):
            bc_shape[a] = n
        self.output.placeholder = inp.placeholder * tf.reshape(w, bc_shape)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: a dynamic or batch axis among ``axes``"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        for a in inp.get_axes_from_description(axes):
            if inp.batch_shape[a] is None:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"axes {axes!r} include axis {a} without static size", got=repr(inp),
                                      hint="choose static axes only (e.g. 'F', 'static')")
        return inp
