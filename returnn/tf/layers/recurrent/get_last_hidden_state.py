"""``{"class": "get_last_hidden_state", "from": "<rec layer>", "n_out": N, "key": "*"}``.

Output ``{B, F=n_out}``: the final recurrent state of each source (``RecLayer.get_last_hidden_state(key)``),
concatenated on the feature axis. ``key``: ``"c"``/``"h"`` for LSTM units, ``"h"`` otherwise, ``"*"`` (default)
for all state parts (``[c, h]``, i.e. 2*n for LSTMs), as observed from the reference.
"""

from __future__ import annotations

from typing import Any, Dict, Sequence

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
            get_dim = getattr(src, "get_last_hidden_state_dim", None)
            dim = get_dim(key) if get_dim is not None else None
            if dim is None:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                    problem=f"source {src.name!r} has no hidden state:",
                                    got=getattr(src, "layer_class", type(src).__name__),
                                    expected='a {"class": "rec"} layer, or a "rnn_cell"/"prev:" of one in a rec unit')
            total += dim
        if total != n_out:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"n_out={n_out} does not match the hidden state dims for key {key!r}",
                                  expected=f"n_out={total}", got=f"n_out={n_out}")
        return Tensor(name=f"{name}_output", dims=[batch_dim, FeatureDim(f"{name}:hidden-out", n_out)],
                      dtype="float32", time_dim_axis=None, feature_dim_axis=1)


def select_hidden_state(layer_name: str, states: Dict[str, tf.Tensor], names: Sequence[str], key: Any) -> tf.Tensor:
    """:param names: the state parts in the order of ``"*"``
    :return: ``states[key]``, or all parts concatenated on the feature axis for ``key`` ``"*"``/None
    :raises LayerArgError: unknown ``key``"""
    if key is None or key == "*":
        parts = [states[k] for k in names]
        return parts[0] if len(parts) == 1 else tf.concat(parts, axis=-1)
    if key not in states:
        raise LayerArgError(layer=layer_name, layer_class="get_last_hidden_state", arg="key",
                            problem="unknown hidden state", got=key, expected=f"one of {list(names) + ['*']}")
    return states[key]


def attach_prev_hidden_state(layer: Any, states: Dict[str, tf.Tensor], names: Sequence[str], n: int) -> None:
    """Gives ``layer`` (a ``prev:X`` stand-in inside a rec loop step) ``get_last_hidden_state(key)`` and
    ``get_last_hidden_state_dim(key)`` from ``states`` (the state of ``X`` after the previous step: the initial
    state at step 0), as the reference does for ``prev:`` of a stateful layer."""
    layer.hidden_states, layer.hidden_state_names = states, tuple(names)
    layer.get_last_hidden_state = lambda key="*": select_hidden_state(layer.name, states, names, key)
    layer.get_last_hidden_state_dim = lambda key="*": n * len(names) if key in (None, "*") else n
