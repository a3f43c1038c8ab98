"""``{"class": "choice_get_beam_scores", "from": "output"}``: the beam scores of a search (the reference's
ChoiceGetBeamScoresLayer; shapes and values observed from it).

- Inside the rec loop, from the ``choice`` layer (or a layer depending on it): the accumulated score of each
  hypothesis after this step's selection, float32 ``{B*K}`` (flat, hypothesis ``k`` of sequence ``b`` at
  ``b*K + k``). Accumulated over the loop, each final hypothesis gets the scores of its own history.
- Outside, from a searched rec layer: its final scores (``output.beam.scores``, length-normalized when the choice
  uses ``length_normalization``), flat ``{B*K}``.
- Without a search (e.g. in training) there are no scores: :class:`returnn.errors.LayerArgError`, as the reference
  fails there too.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def get_search_values(layer: LayerBase, kind: str) -> Optional[tf.Tensor]:
    """:param kind: ``"scores"`` or ``"src_beams"``
    :return: flat ``[B*K]`` values of the search that ``layer``'s source belongs to, or None without a search"""
    src = layer.sources[0]
    beam = getattr(src.output, "beam", None)
    if beam is not None and getattr(beam, "scores", None) is not None:  # a searched rec layer (outside the loop)
        if kind == "scores":
            return tf.reshape(beam.scores, [-1])
        src_beams = getattr(beam, "last_src_beams", None)
        return None if src_beams is None else tf.reshape(src_beams, [-1])
    choices = layer.network.get_search_choices(src=src)
    if choices is None:
        return None
    values = choices.beam_scores if kind == "scores" else choices.src_beams
    return None if values is None else tf.reshape(values, [-1])


def no_search_error(layer_name: str, layer_class: str, source: Any) -> LayerArgError:
    return LayerArgError(layer=layer_name, layer_class=layer_class, arg="from",
                         problem=f"source {source.name!r} has no search choices (no beam search here):",
                         got=source.name, hint="use it in a search (task 'search'), with a choice layer as source")


class SearchValueLayer(LayerBase):
    """Base of the layers that output one value of the search choices of their source per hypothesis ``{B*K}``:
    :attr:`search_value` (``"scores"`` / ``"src_beams"``) with dtype :attr:`out_dtype`. Not registered itself.

    :raises LayerArgError: the source has no search choices
    """

    search_value = ""
    out_dtype = "float32"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        values = get_search_values(self, self.search_value)
        if values is None:
            raise no_search_error(self.name, self.layer_class, self.sources[0])
        self.output.placeholder = values

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Any] = (), **kwargs: Any) -> Tensor:
        """:return: ``{B}`` (the batch of hypotheses) of :attr:`out_dtype`, on the source's beam"""
        if not sources:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs a source:", got=[])
        # on the source's beam, as the reference (observed: ``output.beam`` of the searched rec layer's)
        return Tensor(name=f"{name}_output", dims=[batch_dim], dtype=cls.out_dtype, beam=sources[0].output.beam)


@register_layer
class ChoiceGetBeamScoresLayer(SearchValueLayer):
    """See the module docstring. Output: float32 ``{B*K}``.

    :raises LayerArgError: the source has no search choices
    """

    layer_class = "choice_get_beam_scores"
    search_value = "scores"
    out_dtype = "float32"
