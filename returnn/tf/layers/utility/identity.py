"""``{"class": "identity", "from": "x", "control_dependencies": ["y"]}``: a new identity op of the source, run
after the outputs of ``control_dependencies`` (as the reference). Shape: the source's."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class IdentityLayer(LayerBase):
    """``tf.identity`` with control dependencies."""

    layer_class = "identity"

    def __init__(self, control_dependencies: Optional[Sequence[LayerBase]] = None, **kwargs: Any):
        """
        :param control_dependencies: layers whose outputs are computed before this one
        """
        super().__init__(**kwargs)
        self.control_dependencies = list(control_dependencies or [])
        with tf.control_dependencies([layer.output.placeholder for layer in self.control_dependencies]):
            self.output.placeholder = tf.identity(self.sources[0].output.placeholder)

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + self.control_dependencies

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if d.get("control_dependencies"):
            d["control_dependencies"] = [get_layer(x) if isinstance(x, str) else x for x in d["control_dependencies"]]

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        """:raises LayerArgError: not exactly one source"""
        if len(sources) != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs exactly one source:",
                                got=[s.name for s in sources])
        return sources[0].output.copy_template(name=f"{name.split('/')[-1]}_output")
