"""``{"class": "choice_get_src_beams", "from": "output"}``: the source beams of a search (the reference's
ChoiceGetSrcBeamsLayer; observed from it): for each new hypothesis, the index (in ``[0, K)``) of the hypothesis of
the previous step it extends, int32 ``{B*K}`` (flat). Inside the loop the current step's; accumulated over the
loop, each final hypothesis gets those of its own history. Outside, from a searched rec layer: those of the last
step. Without a search: :class:`returnn.errors.LayerArgError`, as the reference fails too.
"""

from __future__ import annotations

from typing import Any, Sequence

from returnn.errors import LayerArgError
from returnn.tensor import Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.search.choice_get_beam_scores import get_search_values, no_search_error


@register_layer
class ChoiceGetSrcBeamsLayer(LayerBase):
    """See the module docstring. Output: int32 ``{B*K}``.

    :raises LayerArgError: the source has no search choices
    """

    layer_class = "choice_get_src_beams"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        values = get_search_values(self, "src_beams")
        if values is None:
            raise no_search_error(self.name, self.layer_class, self.sources[0])
        self.output.placeholder = values

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Any] = (), **kwargs: Any) -> Tensor:
        """:return: int32 ``{B}`` (the batch of hypotheses)"""
        if not sources:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs a source:", got=[])
        return Tensor(name=f"{name}_output", dims=[batch_dim], dtype="int32")
