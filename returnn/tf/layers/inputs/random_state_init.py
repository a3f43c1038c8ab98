"""``{"class": "random_state_init", "out_dim": FeatureDim("random-state", 3), "seed": 5}``: an initial RNG state.

The Philox state (``algorithm`` "philox", the only one supported) for ``seed``: ``[seed, 0, 0]`` as int64 of shape
``{out_dim}`` (``out_dim`` must have size 3; default a new feature dim ``'<layer>:state'(3)``), as observed from the
reference. Without ``seed`` one is drawn from the network's random generator. Typically the ``init_by_layer`` of an
int64 ``variable`` that a ``random`` layer uses as its ``explicit_state``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class RandomStateInitLayer(LayerBase):
    """A constant int64 Philox RNG state ``[seed, 0, 0]``."""

    layer_class = "random_state_init"

    def __init__(self, algorithm: Optional[str] = None, seed: Optional[int] = None, out_dim: Optional[Dim] = None,
                 **kwargs: Any):
        """
        :param algorithm: "philox" (default; the only one supported)
        :param seed: the seed (default: drawn from the network's random generator)
        :param out_dim: the state dim, size 3 (default: a new feature dim)
        """
        super().__init__(**kwargs)
        if seed is None:
            seed = self.network.random.randint(2 ** 31)
        self.output.placeholder = tf.constant([seed, 0, 0], dtype=tf.int64)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, algorithm: Optional[str] = None, out_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: an ``algorithm`` other than philox, or ``out_dim`` not of size 3"""
        if algorithm not in (None, "philox"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="algorithm", problem="not supported",
                                got=algorithm, expected="'philox' (or None)")
        base = name.split("/")[-1]
        if out_dim is None:
            out_dim = FeatureDim(f"{base}:state", 3)
        if out_dim.dimension != 3:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_dim", problem="invalid value",
                                got=out_dim, expected="a dim of size 3 (the Philox state size)")
        return Tensor(name=f"{base}_output", dims=[out_dim], dtype="int64", time_dim_axis=None, feature_dim_axis=0)
