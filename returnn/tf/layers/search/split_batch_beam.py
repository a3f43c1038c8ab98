"""``{"class": "split_batch_beam", "from": "x", "beam_dim": beam_dim}``: the hypotheses of a search as an axis of
their own (the reference's SplitBatchBeamLayer; shapes observed from it).

Shape: ``{B*K, ...}`` (a layer on the beam of a search, ``output.beam`` of size ``K``) -> ``{B, K, ...}`` with the
given ``beam_dim`` (static, of size ``K``) right after the batch axis, and no beam any more. Hypothesis ``k`` of
sequence ``b`` (row ``b*K + k``) goes to ``[b, k]``. E.g. the final scores of all hypotheses
(``choice_get_beam_scores`` of a searched rec layer) as ``{B, K}`` for a ``reduce`` over the beam.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class SplitBatchBeamLayer(LayerBase):
    """See the module docstring.

    :param beam_dim: the new axis of the hypotheses (a static dim of size ``K``); default: a new one of size ``K``
    :raises LayerArgError: not one source, a source without beam or batch axis, a ``beam_dim`` whose size is not the
        beam size
    """

    layer_class = "split_batch_beam"

    def __init__(self, beam_dim: Optional[Dim] = None, **kwargs: Any):
        super().__init__(**kwargs)
        src = self.sources[0].output.copy_as_batch_major()
        k = src.beam.beam_size
        raw = src.placeholder
        shape = tf.shape(raw)
        self.output.placeholder = tf.reshape(raw, tf.concat([[-1, k], shape[1:]], axis=0))

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Any] = (), beam_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:return: the source batch-major, with ``beam_dim`` inserted after the batch axis, without beam"""
        if len(sources) != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs exactly one source:",
                                got=[s.name for s in sources])
        src = sources[0].output.copy_template(name=f"{name}_output")
        beam = src.beam
        if beam is None or src.batch_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="the source has no beam (batch of search hypotheses):", got=sources[0].name,
                                hint="use it on a layer of a search, e.g. choice_get_beam_scores of a searched rec layer")
        if beam_dim is None:
            beam_dim = SpatialDim(f"{name}:beam", beam.beam_size)
        if beam_dim.dimension != beam.beam_size:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="beam_dim",
                                problem="the size must be the beam size:", got=beam_dim,
                                expected=f"a dim of size {beam.beam_size}")
        src = src.copy_as_batch_major()
        out = src.copy_add_dim_by_tag(beam_dim, unbroadcast=True, axis=1)
        out.beam = None
        return out
