"""``{"class": "sparse_softmax_cross_entropy_with_logits", "logits": <layer>, "targets": <layer>}``: CE per frame.

``tf.nn.sparse_softmax_cross_entropy_with_logits`` over ``axis`` (default: the logits' feature axis) against the
sparse ``targets``, as the reference. Shape: the logits' axes without ``axis``, in their order
(``{B, T, F} -> {B, T}``, ``{T, B, F} -> {T, B}``, ``{B, F} -> {B}``); float32. The targets must have exactly
those axes (the same time dim, as the reference; their order may differ).
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
class SparseSoftmaxCrossEntropyWithLogitsLayer(LayerBase):
    """``-log softmax(logits)[target]`` per frame."""

    layer_class = "sparse_softmax_cross_entropy_with_logits"

    def __init__(self, logits: LayerBase, targets: LayerBase, axis: Any = None, **kwargs: Any):
        """
        :param logits: layer with the unnormalized scores
        :param targets: layer with the sparse target indices
        :param axis: the class axis of the logits (default their feature axis)
        """
        super().__init__(**kwargs)
        lg = logits.output
        ax = _class_axis(lg, axis, self.name)
        lg = lg.copy_move_axis(ax, -1)  # the other axes keep their order: the output's
        tgt = _targets_like(targets.output, self.output, self.name)
        self.output.placeholder = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.cast(tgt, tf.int32), logits=lg.placeholder)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        resolve_logits_and_targets(d, get_layer, cls.layer_class)

    @classmethod
    def get_out_data_from_opts(cls, name: str, logits: LayerBase = None, targets: LayerBase = None, axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: dense targets; no class axis"""
        if not targets.output.sparse:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="targets", problem="must be sparse:",
                                got=targets.output.get_description())
        lg = logits.output
        out = lg.copy_template(name=f"{name}_output", dtype="float32").copy_template_excluding_axis(
            _class_axis(lg, axis, name))
        out.available_for_inference = False
        _targets_perm(targets.output, out, name)
        return out


def _class_axis(logits: Tensor, axis: Any, name: str) -> int:
    if axis is None:
        if logits.feature_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=SparseSoftmaxCrossEntropyWithLogitsLayer.layer_class,
                                arg="axis", problem="needed: the logits have no feature axis:",
                                got=logits.get_description())
        return logits.feature_dim_axis
    return logits.get_axis_from_description(axis)


def _targets_like(targets: Tensor, out: Tensor, name: str) -> tf.Tensor:
    """:return: the targets' raw tensor transposed to ``out``'s axis order"""
    perm = _targets_perm(targets, out, name)
    raw = targets.placeholder
    return raw if perm == list(range(len(perm))) else tf.transpose(raw, perm)


def _targets_perm(targets: Tensor, out: Tensor, name: str) -> list:
    """:return: for each axis of ``out``, the targets' axis with the same dim (batch matches batch)
    :raises LayerArgError: the axes differ"""
    perm = []
    for i, d in enumerate(out.dims):
        if i == out.batch_dim_axis:
            match = [targets.batch_dim_axis] if targets.batch_dim_axis is not None else []
        else:
            match = [j for j, e in enumerate(targets.dims) if e == d]
        if len(match) != 1 or match[0] in perm:
            raise LayerArgError(layer=name, layer_class=SparseSoftmaxCrossEntropyWithLogitsLayer.layer_class,
                                arg="targets", problem="axes do not match the logits:", got=targets.get_description(),
                                expected=f"the axes {out.get_dims_repr()}")
        perm.append(match[0])
    if len(perm) != targets.batch_ndim:
        raise LayerArgError(layer=name, layer_class=SparseSoftmaxCrossEntropyWithLogitsLayer.layer_class,
                            arg="targets", problem="axes do not match the logits:", got=targets.get_description(),
                            expected=f"the axes {out.get_dims_repr()}")
    return perm
