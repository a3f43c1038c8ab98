"""``{"class": "ctc_loss", "logits": <layer>, "targets": <layer>}``: the CTC loss of each sequence.

``logits`` ``{B, T, D}`` (before softmax; any order of batch and time, its lengths the input lengths), ``targets``
sparse labels ``{B, T'}`` (their own lengths); the output is float32 ``{B}``: ``-log p(targets | logits)``, summed
over the CTC alignments (blank class ``blank_index``, default the last one), as the reference's (observed values).
Computed with ``tf.nn.ctc_loss``; with ``"loss": "as_is"`` the sum over the batch is trained.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.loss_layers.logits_targets_args import resolve_logits_and_targets


@register_layer
class CtcLossLayer(LayerBase):
    """CTC loss per sequence (see the module doc)."""

    layer_class = "ctc_loss"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, logits: LayerBase, targets: LayerBase, logits_normalized: bool = False,
                 blank_index: int = -1, max_approx: bool = False, label_loop: bool = True, **kwargs: Any):
        """
        :param logits: scores before softmax ``{B, T, D}``
        :param targets: sparse labels ``{B, T'}`` (without blanks)
        :param logits_normalized: whether ``logits`` are log-probabilities already (the value is the same: the
            loss normalizes them)
        :param blank_index: class index of the blank (negative: from the end, -1 the last class)
        :param max_approx: only False (the best alignment instead of the sum is not provided here)
        :param label_loop: only True (a label may span several frames)
        :raises LayerArgError: ``max_approx`` or not ``label_loop``
        """
        super().__init__(**kwargs)
        for arg, value, supported in (("max_approx", max_approx, False), ("label_loop", label_loop, True)):
            if bool(value) != supported:
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg=arg,
                                    problem="is not supported with this value here:", got=value,
                                    expected=repr(supported))
        del logits_normalized
        self._logits_layer, self._targets_layer = logits, targets
        scores = logits.output.copy_as_time_major()
        labels = targets.output.copy_as_batch_major()
        num_classes = scores.dim
        self.output.placeholder = tf.nn.ctc_loss(
            labels=tf.cast(labels.placeholder, tf.int32), logits=scores.placeholder,
            label_length=labels.get_sequence_lengths(), logit_length=scores.get_sequence_lengths(),
            logits_time_major=True, blank_index=blank_index % num_classes)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        resolve_logits_and_targets(d, get_layer, cls.layer_class)

    @classmethod
    def get_out_data_from_opts(cls, name: str, logits: LayerBase = None, targets: LayerBase = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``logits`` without batch, time and feature axis, or ``targets`` not sparse
            ``{B, T}``"""
        out = logits.output
        if out.batch_dim_axis is None or out.time_dim_axis is None or out.feature_dim_axis is None \
                or out.batch_ndim != 3:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="logits", problem="must be {B, T, D}:",
                                got=out.get_description())
        tgt = targets.output
        if not tgt.sparse or tgt.batch_dim_axis is None or tgt.time_dim_axis is None or tgt.batch_ndim != 2:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="targets",
                                problem="must be sparse labels {B, T}:", got=tgt.get_description())
        return Tensor(name=f"{name}_output", shape=(), dtype="float32", batch_dim_axis=0, time_dim_axis=None)

    def get_dep_layers(self) -> list:
        """:return: the sources plus ``logits`` and ``targets``"""
        return super().get_dep_layers() + [self._logits_layer, self._targets_layer]
