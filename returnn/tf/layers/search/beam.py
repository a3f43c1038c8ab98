"""Beam bookkeeping for search inside a rec loop: the batch of a searching loop is ``B*K`` (sequence-major:
row ``b*K + k`` is hypothesis ``k`` of sequence ``b``).

- :class:`SearchBeam`: attached to a rec layer's output (``Tensor.beam``) after search: beam size, final scores
  ``[B, K]`` (best first; length-normalized by the loop when the choice uses ``length_normalization``),
  hypothesis lengths ``[B*K]``.
- :func:`tile_beam`: repeats a ``{B, ...}`` tensor ``K`` times on its batch axis (dynamic axes get new dims with
  repeated lengths, shared per original dim through ``dim_map``).
- :func:`beam_dim` / :func:`beam_dim_base`: such a per-hypothesis variant of a dynamic axis (lengths ``[B*K]``) and
  the axis it repeats. The reference keeps one dim for both (its dims have per-batch variants); here the variant
  is its own :class:`Dim`, and what leaves the beam (``decide``) maps it back to the original axis.
- :func:`flat_beam_indices` / :func:`gather_beams`: re-order ``{B*K, ...}`` rows by the source beams ``[B, K]``.
- :func:`backtrack`: full hypotheses from per-step values and per-step source beams.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.tensor import Dim, Tensor
from returnn.tensor.search_beam import SearchBeam as _TensorSearchBeam
from returnn.tensor.search_beam import beam_variant_of, set_beam_variant_of


class SearchBeam(_TensorSearchBeam):
    """Result of a beam search on a rec layer's output (a :class:`returnn.tensor.search_beam.SearchBeam` with the
    search's results).

    :param beam_size: K
    :param name: e.g. ``"output/output"`` (the choice layer)
    :param scores: float32 ``[B, K]`` final scores of the hypotheses, best first: summed log-probs, divided by the
        longest hypothesis length + 1 with ``length_normalization`` (see :mod:`returnn.tf.layers.search.choice`)
    :param lengths: int32 ``[B*K]`` hypothesis lengths
    :param length_normalization: whether the choice used length normalization (already applied to ``scores``)
    """

    def __init__(self, beam_size: int, name: str, scores: Any = None, lengths: Any = None,
                 length_normalization: bool = True):
        super().__init__(beam_size, name=name)
        self.scores = scores
        self.lengths = lengths
        self.length_normalization = length_normalization
        self.last_src_beams: Any = None  # int32 [B, K]: the source beams of the last step (set by the loop)

    def best_beam_index(self) -> tf.Tensor:
        """:return: int32 ``[B]``, index of the best hypothesis per sequence (the highest final score)"""
        return tf.argmax(self.scores, axis=1, output_type=tf.int32)


def beam_dim(base: Dim, description: str) -> Dim:
    """:return: a new dynamic dim for the lengths of ``base`` repeated per hypothesis (``[B*K]``, set by the caller),
        derived from ``base`` (``derived_from_tag``) and known to :func:`beam_dim_base` as its variant"""
    new = Dim(None, description=description, kind=base.kind, derived_from_tag=base)
    set_beam_variant_of(new, base)
    return new


def beam_dim_base(dim: Dim) -> Optional[Dim]:
    """:return: the axis that ``dim`` repeats per hypothesis when ``dim`` was made by :func:`beam_dim` (also through
        :func:`tile_beam`), else None"""
    return beam_variant_of(dim)


def tile_beam(tensor: Tensor, beam: int, dim_map: Dict[Any, Dim]) -> Tensor:
    """:return: copy of ``tensor`` (with raw) whose batch axis is repeated ``beam`` times (``b*K + k`` order)"""
    out = tensor.copy()
    if tensor.batch_dim_axis is None or beam == 1:
        return out
    tensor = tensor.copy_as_batch_major()  # once here, not per step inside the loop
    new_dims = []
    for d in tensor.dims:
        if d.is_dynamic() and d.dyn_size is not None:
            key = d.get_same_base()
            if key not in dim_map:
                new = beam_dim(key, f"{d.description}:beam{beam}")  # the same axis, per hypothesis
                new.dyn_size = tf.repeat(d.dyn_size, beam, axis=0)
                new.__dict__["_created_by_layer"] = key.__dict__.get("_created_by_layer")  # "stag:<layer>" finds it
                dim_map[key] = new
            new_dims.append(dim_map[key])
        else:
            new_dims.append(d)
    res = Tensor(name=tensor.name, dims=new_dims, dtype=tensor.dtype, sparse_dim=tensor.sparse_dim,
                 time_dim_axis=tensor.time_dim_axis, feature_dim_axis=tensor.feature_dim_axis)
    res.placeholder = tf.repeat(tensor.placeholder, beam, axis=tensor.batch_dim_axis)
    return res


def flat_beam_indices(src_beams: tf.Tensor, beam_in: Any = None) -> tf.Tensor:
    """:param src_beams: int32 ``[B, K]``, indices into the ``beam_in`` source hypotheses of each sequence
    :param beam_in: the number of source hypotheses per sequence (int or int32 scalar); default ``K``
    :return: int32 ``[B*K]`` row indices ``b*beam_in + src[b, k]`` into the ``[B*beam_in]`` source rows"""
    k = tf.shape(src_beams)[1] if beam_in is None else beam_in
    base = tf.range(tf.shape(src_beams)[0])[:, None] * k
    return tf.reshape(base + src_beams, [-1])


def gather_beams(raw: tf.Tensor, src_rows: tf.Tensor, batch_axis: Optional[int] = 0) -> tf.Tensor:
    """:param src_rows: int32 ``[B*K]`` from :func:`flat_beam_indices` (computed once per step, shared by all
    gathers of that step)
    :return: ``raw`` (``[..., B*K, ...]`` with the batch at ``batch_axis``) with rows re-ordered by ``src_rows``;
    unchanged without batch axis"""
    if batch_axis is None:
        return raw
    return tf.gather(raw, src_rows, axis=batch_axis)


def backtrack(values: tf.Tensor, src_beams: tf.Tensor) -> tf.Tensor:
    """Follows the source beams back from the last step.

    :param values: ``[T, B*K, ...]``: per step, the values of the hypotheses after that step's selection
    :param src_beams: int32 ``[T, B, K]``: per step, the previous hypothesis each new one extends
    :return: ``[T, B*K, ...]``: row ``b*K + k`` at every step holds the value of final hypothesis ``k``
    """
    num_steps = tf.shape(src_beams)[0]
    last = tf.tile(tf.range(tf.shape(src_beams)[2])[None, :], [tf.shape(src_beams)[1], 1])

    def step(acc: tf.Tensor, src_t: tf.Tensor) -> tf.Tensor:
        return tf.gather(src_t, acc, batch_dims=1)

    def do_scan() -> tf.Tensor:
        earlier = tf.scan(step, src_beams[1:], initializer=last, reverse=True)
        return tf.concat([earlier, last[None]], axis=0)

    idx = tf.cond(num_steps > 1, do_scan, lambda: tf.tile(last[None], [num_steps, 1, 1]))  # [T, B, K]
    k = tf.shape(src_beams)[2]
    flat = tf.reshape(tf.range(tf.shape(src_beams)[1])[None, :, None] * k + idx, [num_steps, -1])
    return tf.gather(values, flat, axis=1, batch_dims=1)
