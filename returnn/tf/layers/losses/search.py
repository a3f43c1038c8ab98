"""Losses on the hypotheses of a beam search, as the reference:

- ``"loss": "search_score"``: the value is ``-sum`` of the layer's beam scores (all hypotheses of a searched rec
  output ``[B, K]``, or the chosen one of a ``decide`` layer ``[B]``); no error. Normalised by the target labels
  when a target is given, else by the output frames. Needs a search (no beam: :class:`LayerArgError`).
- ``"loss": "expected_loss"`` (minimum Bayes risk over the beam): ``loss_opts``: ``loss`` (a loss dict like
  ``{"class": "edit_distance"}`` or ``{"class": "bleu"}``), ``loss_kind`` (``"error"`` or ``"value"``: which of
  the inner loss's per-hypothesis numbers is the risk ``L``), ``norm_scores`` (weights ``softmax_K(scores)``
  instead of ``exp(scores)``; ``norm_scores_stop_gradient``: no gradient through the normaliser),
  ``subtract_average_loss`` (``L - mean_K L``), ``divide_beam_size`` (``/ K``), ``loss_correction_grad_only``
  (the value leaves out the subtracted average, the gradient keeps it). Value ``sum_b sum_k w_bk L_bk``; no
  error; normalised by the target labels of all ``B K`` hypotheses.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim, Tensor
from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import LOSSES, register_loss


def beam_scores(layer: Any) -> Optional[tf.Tensor]:
    """:return: float32 ``[B, K]`` beam scores of ``layer``'s hypotheses (``K = 1`` for a ``decide`` layer), or
        None without a search"""
    beam = getattr(layer.output, "beam", None)
    if beam is not None and getattr(beam, "scores", None) is not None:
        return beam.scores
    best = getattr(layer, "best_scores", None)
    if best is not None:
        return best[:, None]
    get_choices = getattr(layer, "get_search_choices", None)
    choices = get_choices() if get_choices is not None else None
    if choices is not None and getattr(choices, "beam_scores", None) is not None:
        return choices.beam_scores
    return None


def _no_search(loss: Loss) -> LayerArgError:
    layer = loss.layer
    return LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss",
                         problem=f"{loss.class_name!r} needs the beam scores of a search, but there are none in",
                         got=layer.output.get_description(),
                         hint="use this loss in a network built with search (e.g. an 'extra.search' layer on a "
                              "searched rec output or its decide layer)")


def _frames(data: Any) -> tf.Tensor:
    if data.time_dim_axis is None:
        from returnn.tf.ops.dims import get_batch_size
        return tf.cast(get_batch_size(data), tf.float32)
    return tf.cast(tf.reduce_sum(data.get_sequence_lengths()), tf.float32)


@register_loss
class SearchScoreLoss(Loss):
    """``-sum`` of the beam scores of the layer's hypotheses."""

    class_name = "search_score"
    need_target = False

    def get_value(self) -> tf.Tensor:
        scores = beam_scores(self.layer)
        if scores is None:
            raise _no_search(self)
        return -tf.reduce_sum(scores)

    def get_error(self) -> Optional[tf.Tensor]:
        return None

    def get_num_frames(self) -> tf.Tensor:
        """:return: the target labels if the layer has a target with a time axis, else the output frames"""
        target = self.target
        if target is None and getattr(self.layer, "target", None):  # not bound: this loss needs no target
            target = self.layer._loss_target_data()  # noqa: SLF001
        if target is not None and target.time_dim_axis is not None:
            return _frames(target)
        return _frames(self.output)


@register_loss
class ExpectedLoss(Loss):
    """Expected inner loss under the (normalised) beam scores."""

    class_name = "expected_loss"
    recurrent = True

    def __init__(self, loss: Any, loss_kind: str, norm_scores: bool = True, norm_scores_stop_gradient: bool = True,
                 divide_beam_size: bool = True, subtract_average_loss: bool = True,
                 loss_correction_grad_only: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if loss_kind not in ("error", "value"):
            raise TypeError(f"loss_kind must be 'error' or 'value', got {loss_kind!r}")
        self.inner = _make_inner(loss, kwargs.get("base_network"))
        self.loss_kind = loss_kind
        self.norm_scores = norm_scores
        self.norm_scores_stop_gradient = norm_scores_stop_gradient
        self.divide_beam_size = divide_beam_size
        self.subtract_average_loss = subtract_average_loss
        self.loss_correction_grad_only = loss_correction_grad_only
        self._tiled: Optional[Tuple[Any, int]] = None

    def _tiled_target(self) -> Tuple[Tensor, int]:
        """:return: (the target repeated for each of the K hypotheses, ``{B*K, S}`` with its own time dim; K)"""
        if self._tiled is None:
            scores = beam_scores(self.layer)
            if scores is None or scores.shape[1] is None:
                raise _no_search(self)
            k = int(scores.shape[1])
            target = self.target.copy_as_batch_major()
            time = SpatialDim(f"{self.layer.name}:expected_loss:target-time")
            time.dyn_size = tf.repeat(target.get_sequence_lengths(), k, axis=0)
            tiled = Tensor(name=f"{target.name}_tiled", dims=(target.dims[0], time), dtype=target.dtype,
                           sparse_dim=target.sparse_dim, time_dim_axis=1,
                           placeholder=tf.repeat(target.placeholder, k, axis=0))
            self._tiled = (tiled, k)
        return self._tiled

    def _risk(self) -> tf.Tensor:
        """:return: float32 ``[B*K]``, the inner loss of each hypothesis"""
        tiled, _ = self._tiled_target()
        self.inner.init(output=self.output, output_with_activation=self.output_with_activation, target=tiled,
                        layer=self.layer)
        values = _per_seq(self.inner, self.loss_kind)
        if values is None:
            layer = self.layer
            raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss_opts",
                                problem=f"expected_loss: no {self.loss_kind!r} per hypothesis from loss "
                                        f"{self.inner.class_name!r}:", got={"loss_kind": self.loss_kind},
                                expected="loss_kind 'error' with an 'edit_distance' or 'bleu' loss")
        return tf.cast(values, tf.float32)

    def get_value(self) -> tf.Tensor:
        _, k = self._tiled_target()
        scores = beam_scores(self.layer)  # [B, K]
        risk = tf.reshape(self._risk(), [-1, k])  # [B, K]
        if self.norm_scores:
            norm = tf.reduce_logsumexp(scores, axis=1, keepdims=True)
            if self.norm_scores_stop_gradient:
                norm = tf.stop_gradient(norm)
            scores = scores - norm
        weights = tf.exp(scores)
        value = tf.reduce_sum(weights * risk)
        if self.subtract_average_loss:
            corrected = tf.reduce_sum(weights * (risk - tf.reduce_mean(risk, axis=1, keepdims=True)))
            if self.loss_correction_grad_only:
                value = tf.stop_gradient(value) + corrected - tf.stop_gradient(corrected)
            else:
                value = corrected
        if self.divide_beam_size:
            value /= float(k)
        return value

    def get_error(self) -> Optional[tf.Tensor]:
        return None

    def get_num_frames(self) -> tf.Tensor:
        """:return: the target labels of all hypotheses (the target repeated K times)"""
        tiled, _ = self._tiled_target()
        return _frames(tiled)


def _per_seq(inner: Loss, kind: str) -> Optional[tf.Tensor]:
    """:return: the inner loss's ``kind`` (error/value) per sequence ``[B*K]``, or None if it has none"""
    per_seq = getattr(inner, f"get_{kind}_per_seq", None)
    if per_seq is not None:
        return per_seq()
    if inner.class_name == "edit_distance" and kind == "error":
        from returnn.tf.layers.loss_layers.edit_distance import sparse_labels
        hyps, refs = inner.output, inner.target
        return tf.edit_distance(sparse_labels(hyps, hyps.time_dim_axis), sparse_labels(refs, refs.time_dim_axis),
                                normalize=False)
    return None


def _make_inner(loss: Any, network: Any) -> Loss:
    """:return: the inner loss instance from ``{"class": <loss name>, ...options}``"""
    if isinstance(loss, Loss):
        return loss
    if not isinstance(loss, dict) or not isinstance(loss.get("class"), str):
        raise TypeError(f"expected_loss option 'loss' must be a dict like {{'class': 'edit_distance'}}, got {loss!r}")
    opts: Dict[str, Any] = {k: v for k, v in loss.items() if k != "class"}
    return LOSSES.get(loss["class"], context="in expected_loss option 'loss'")(base_network=network, **opts)
