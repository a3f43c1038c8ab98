"""Meta losses: losses that exist only while the gradient is built, because they are functions of gradients.

A layer whose backward pass defines a loss on the gradient it receives (``synthetic_gradient``: how well a predicted
gradient matches the true one; ``tikhonov_regularization``: the squared norm of the gradient w.r.t. its input)
calls :func:`register_meta_loss` from its gradient function. The updater builds the gradient of the objective inside
a :class:`MetaLossCollector`; what was registered there is then minimized too: each meta loss, times its scale,
adds its own gradient to the parameters' gradients (for a loss on a gradient, a second-order gradient).

Outside a collector (e.g. a plain ``tf.gradients`` call of a user) a registered meta loss is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

import tensorflow as tf

__all__ = ["MetaLoss", "MetaLossCollector", "register_meta_loss"]


@dataclass(frozen=True)
class MetaLoss:
    """One meta loss.

    :param name: the name in the reported dict (``"<layer>/synthetic_grad"``)
    :param value: scalar float tensor (built in the gradient graph)
    :param scale: the factor of its gradient in the update (``meta_loss_scale``)
    :param norm_factor: scalar tensor reported with it (the number of elements it is computed over)
    """

    name: str
    value: tf.Tensor
    scale: float
    norm_factor: tf.Tensor


_active: List["MetaLossCollector"] = []


class MetaLossCollector:
    """``with MetaLossCollector() as meta: grads = tf.gradients(...)``: :attr:`losses` are the meta losses the
    gradient functions registered meanwhile (in the innermost active collector)."""

    def __init__(self) -> None:
        self.losses: List[MetaLoss] = []

    def __enter__(self) -> "MetaLossCollector":
        _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _active.remove(self)

    def total(self) -> Optional[tf.Tensor]:
        """:return: sum of ``scale * value`` over the collected losses, None without any"""
        if not self.losses:
            return None
        return tf.add_n([loss.value * loss.scale for loss in self.losses])

    def as_fetches_dict(self) -> Dict[str, tf.Tensor]:
        """:return: ``{"cost:<name>": value, "loss_norm_factor:<name>": norm_factor}`` for each loss (as the
        reference's updater reports them)"""
        res: Dict[str, tf.Tensor] = {}
        for loss in self.losses:
            res[f"cost:{loss.name}"] = loss.value
            res[f"loss_norm_factor:{loss.name}"] = loss.norm_factor
        return res


def register_meta_loss(loss: MetaLoss) -> bool:
    """Adds ``loss`` to the innermost active :class:`MetaLossCollector`.

    :return: whether a collector was active (else the loss is dropped)
    """
    if not _active:
        return False
    _active[-1].losses.append(loss)
    return True
