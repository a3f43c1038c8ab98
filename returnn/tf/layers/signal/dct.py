"""``{"class": "dct", "type": 2, "norm": None}``: discrete cosine transform over the feature axis
(``tf.signal.dct``). Shape: unchanged. ``n`` (truncation) is rejected, as the reference rejects it."""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class DctLayer(ConcatInputLayer):
    """DCT of type ``type`` (1-4) with ``norm`` None or ``"ortho"``."""

    layer_class = "dct"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, type: int = 2, n: Optional[int] = None, norm: Optional[str] = None,  # noqa: A002
                 **kwargs: Any):
        """
        :param type: DCT type, 1 to 4 (default 2)
        :param n: truncation length; rejected, as by the reference (must be None)
        :param norm: None or ``"ortho"`` (orthonormal scaling)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        x = inp.placeholder
        last = inp.batch_ndim - 1
        ax = inp.feature_dim_axis
        if ax != last:
            x = tf.experimental.numpy.moveaxis(x, ax, -1)
        y = tf.signal.dct(x, type=type, norm=norm)
        self.output.placeholder = tf.experimental.numpy.moveaxis(y, -1, ax) if ax != last else y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), n: Optional[int] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``n`` given"""
        if n is not None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n", problem="is not supported:", got=n,
                                hint="leave n unset (the reference does not support it either)")
        return concat_sources_template(sources, name=name, layer_class=cls.layer_class)
