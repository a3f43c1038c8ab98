"""``{"class": "choice_get_src_beams", "from": "output"}``: the source beams of a search (the reference's
ChoiceGetSrcBeamsLayer; observed from it): for each new hypothesis, the index (in ``[0, K)``) of the hypothesis of
the previous step it extends, int32 ``{B*K}`` (flat). Inside the loop the current step's; accumulated over the
loop, each final hypothesis gets those of its own history. Outside, from a searched rec layer: those of the last
step. Without a search: :class:`returnn.errors.LayerArgError`, as the reference fails too.
"""

from __future__ import annotations

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.search.choice_get_beam_scores import SearchValueLayer


@register_layer
class ChoiceGetSrcBeamsLayer(SearchValueLayer):
    """See the module docstring. Output: int32 ``{B*K}``.

    :raises LayerArgError: the source has no search choices
    """

    layer_class = "choice_get_src_beams"
    search_value = "src_beams"
    out_dtype = "int32"
