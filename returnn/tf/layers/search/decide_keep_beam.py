"""``{"class": "decide_keep_beam", "from": "x"}``: the input unchanged, as a new beam of its own (the reference's
DecideKeepBeamLayer; observed from it). Inside a searched rec loop, its per-step values are accumulated as they
are (later choices do not re-order them); elsewhere, and without a search, it is an identity.
"""

from __future__ import annotations

from typing import Any, Sequence

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class DecideKeepBeamLayer(LayerBase):
    """See the module docstring. Output: the input (same dims, dtype, sparse dim).

    :raises LayerArgError: not exactly one source
    """

    layer_class = "decide_keep_beam"
    keeps_own_beam = True  # a searched rec loop accumulates it without back-tracking

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.output.placeholder = self.sources[0].output.placeholder

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Any] = (), **kwargs: Any) -> Tensor:
        """:return: the source's template"""
        if len(sources) != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="needs exactly one source:",
                                got=[s.name for s in sources])
        out = sources[0].output.copy_template(name=f"{name}_output")
        out.beam = getattr(sources[0].output, "beam", None)
        return out
