"""``{"class": "decide", "from": "output"}``: the best hypothesis of a beam search, per sequence.

Shape: ``{T, B*K, ...}`` (a rec layer's searched output with ``output.beam``) -> batch-major ``{B, T', ...}``
(without time axis, e.g. the final scores ``{B*K}`` of ``choice_get_beam_scores``: ``{B*K, ...}`` -> ``{B, ...}``)
where ``T'`` has the lengths of the chosen hypotheses. ``T'`` is ``T``'s original axis when ``T`` repeats an axis
per hypothesis (a search of fixed length, e.g. with ``size_target``: the target's time axis, so that the decided
output can be the ``size_target`` of another rec layer, as the reference), ``T`` itself with a beam of 1, else a new
axis. The best hypothesis has the highest final score (the beam's scores, length-normalized by the search when the
choice uses ``length_normalization``, the default; see :mod:`returnn.tf.layers.search.choice`). Without a beam
(training, or no search) the output is the input, batch-major.

:ivar best_scores: float32 ``[B]`` (with a beam), the final score of the chosen hypothesis
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from returnn.tensor import SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.search.beam import beam_dim_base


@register_layer
class DecideLayer(LayerBase):
    """See the module docstring."""

    layer_class = "decide"

    def __init__(self, length_normalization: bool = True, **kwargs: Any):
        """:param length_normalization: accepted for compatibility; the choice layer's setting is used"""
        super().__init__(**kwargs)
        src = self.sources[0].output
        beam = getattr(src, "beam", None)
        self.best_scores = None
        if beam is None or beam.scores is None:
            self.output.placeholder = src.copy_as_batch_major().placeholder
            return
        k = beam.beam_size
        best = beam.best_beam_index()  # [B]
        batch = tf.shape(beam.scores)[0]
        flat = tf.range(batch) * k + best  # [B]
        self.best_scores = tf.gather(tf.reshape(beam.scores, [-1]), flat)
        if src.time_dim_axis is None:  # e.g. the final scores of all hypotheses {B*K} -> {B}
            self.output.placeholder = tf.gather(src.copy_as_batch_major().placeholder, flat, axis=0)
            return
        tm = src.copy_as_time_major()
        chosen = tf.gather(tm.placeholder, flat, axis=1)  # [T, B, ...]
        lens = tf.gather(beam.lengths, flat)
        chosen = chosen[:tf.reduce_max(lens)]
        perm = [1, 0] + list(range(2, tm.batch_ndim))
        self.output.placeholder = tf.transpose(chosen, perm)
        if self.output.time_dim.dyn_size is None:  # a new axis (else the one the beam repeated: its lengths)
            self.output.time_dim.dyn_size = lens

    def own_search_choices(self) -> Any:
        """With a beam: the chosen hypothesis as a beam of 1 (``beam_scores`` ``[B, 1]``: its final score, as the
        reference's ``decide.search_choices.beam_scores``); else None"""
        if self.best_scores is None:
            return None
        from returnn.tf.layers.core.search_choices import SearchChoices

        best = self.best_scores[:, None]
        return SearchChoices(self, beam_size=1, beam_scores=best, src_beams=tf.zeros_like(best, dtype=tf.int32))

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), **kwargs: Any) -> Tensor:
        """:return: the source batch-major; with a beam, its time axis is the chosen hypotheses' one: the axis the
        beam repeats when the hypotheses have its lengths (a search of fixed length, e.g. with ``size_target``: the
        target's time axis), the source's own with a beam of 1, else a new one (the chosen lengths). The reference
        keeps the source's axis in every case (its dims have per-batch variants); here a beam of ``K > 1`` of
        searched lengths gives a new axis, as its lengths are ``[B]``, not the hypotheses' ``[B*K]``."""
        src = sources[0].output
        out = src.copy_template(name=f"{name}_output").copy_as_batch_major()
        out.beam = None
        beam = getattr(src, "beam", None)
        if beam is not None and out.time_dim_axis is not None:
            time_dim = out.dims[out.time_dim_axis]
            base = beam_dim_base(time_dim)
            if base is not None:
                time_dim = base
            elif beam.beam_size != 1:
                time_dim = SpatialDim(f"{name}:decided-time")
            out = out.copy_template_replace_dim(out.time_dim_axis, time_dim)
        return out
