"""``{"class": "get_last_hidden_state", "from": "<rec layer>", "n_out": N, "key": "*"}``.

Output ``{B, F=n_out}``: the final recurrent state of each source (``RecLayer.get_last_hidden_state(key)``),
concatenated on the feature axis. ``key``: ``"c"``/``"h"`` for LSTM units, ``"h"`` otherwise, ``"*"`` (default)
for all state parts (``[c, h]``, i.e. 2*n for LSTMs), as observed from the reference.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import FeatureDim, NotSpecified, Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class GetLastHiddenStateLayer(LayerBase):
    """Final hidden state of recurrent source layers.

    :param n_out: required; must equal the summed dims of the selected states
    :param combine: only ``"concat"``
    :param key: state key (see module doc)
    :raises LayerArgError: a source without hidden state, other ``combine``, missing ``n_out``
    :raises LayerShapeError: ``n_out`` differs from the state dims
    """

    layer_class = "get_last_hidden_state"

    def __init__(self, combine: str = "concat", key: Any = "*", **kwargs: Any):
        super().__init__(**kwargs)
        parts = [src.get_last_hidden_state(key) for src in self.sources]
        out = parts[0] if len(parts) == 1 else tf.concat(parts, axis=-1)
        out.set_shape((None, self.output.dim))
        self.output.placeholder = out

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), n_out: Any = NotSpecified,
                               combine: str = "concat", key: Any = "*", **kwargs: Any) -> Tensor:
        """:return: ``{B, F=n_out}``"""
        if combine != "concat":
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="combine", problem="invalid value",
                                got=combine, expected='"concat"')
        if n_out is NotSpecified or n_out is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        total = 0
        for src in sources:
            if not hasattr(src, "get_last_hidden_state_dim"):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                    problem=f"source {src.name!r} has no hidden state:", got=type(src).__name__,
                                    expected='a {"class": "rec"} layer')
            total += src.get_last_hidden_state_dim(key)
        if total != n_out:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"n_out={n_out} does not match the hidden state dims for key {key!r}",
                                  expected=f"n_out={total}", got=f"n_out={n_out}")
        return Tensor(name=f"{name}_output", dims=[batch_dim, FeatureDim(f"{name}:hidden-out", n_out)],
                      dtype="float32", time_dim_axis=None, feature_dim_axis=1)
