"""``SelectSearchSourcesLayer``: a layer's output re-ordered to the hypotheses selected by a search step.

Not a layer class of network dicts (as in the reference, its ``layer_class`` is None): search helpers in configs
use :meth:`SelectSearchSourcesLayer.select_if_needed` (e.g. in ``custom_score_combine`` functions). Inside a
searching rec loop the batch is ``B*K`` (row ``b*K + k`` is hypothesis ``k`` of sequence ``b``); after a
``choice`` layer selected the new hypotheses, a value computed for the previous hypotheses is moved to the rows
of the new ones that extend them.
"""

from __future__ import annotations

from typing import Any, Optional

from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.search.beam import flat_beam_indices, gather_beams


class SelectSearchSourcesLayer(LayerBase):
    """Output: ``sources[0]``'s output with its batch rows gathered by the source beams of ``search_choices_layer``
    (a ``choice`` layer of the current search step); dims as the source.

    :param search_choices_layer: the ``choice`` layer whose selection is applied
    :param sources: one layer
    """

    layer_class = None

    def __init__(self, search_choices_layer: LayerBase, sources: Any, **kwargs: Any):
        source = sources[0]
        output = source.output.copy(name=f"{kwargs.get('name', source.name)}_output")
        kwargs.setdefault("name", f"{source.name}_select_search_sources")
        kwargs.setdefault("network", source.network)
        super().__init__(output=output, sources=[source], **kwargs)
        self.search_choices_layer = search_choices_layer
        src_beams = getattr(search_choices_layer, "search_src_beams", None)
        if src_beams is not None:
            rows = getattr(search_choices_layer, "search_src_rows", None)  # a choice's: into its source beam
            if rows is None:
                rows = flat_beam_indices(src_beams)
            self.output.placeholder = gather_beams(source.output.placeholder, rows, source.output.batch_dim_axis)

    @staticmethod
    def select_if_needed(layer: LayerBase, search_choices: Any) -> LayerBase:
        """:param search_choices: search choices (``network.get_search_choices(...)``: ``.owner`` is the ``choice``
            layer) or None
        :return: ``layer`` itself if there is nothing to select (no search choices, or ``layer`` already depends on
            them), else a :class:`SelectSearchSourcesLayer` over it"""
        owner: Optional[LayerBase] = getattr(search_choices, "owner", None)
        if owner is None or getattr(owner, "search_src_beams", None) is None or owner is layer:
            return layer
        if _depends_on(layer, owner):
            return layer
        return SelectSearchSourcesLayer(search_choices_layer=owner, sources=[layer])


def _depends_on(layer: LayerBase, other: LayerBase) -> bool:
    todo, seen = [layer], set()
    while todo:
        cur = todo.pop()
        if cur is other:
            return True
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        todo.extend(cur.get_dep_layers())
    return False
