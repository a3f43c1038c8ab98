"""``"loss": "fast_bw"`` and ``"loss": "sprint"``: losses whose FSA or value comes from a RASR (Sprint) process.

They are accepted with the reference's options (so networks that name them build), but computing them raises
:class:`LayerArgError`: this implementation does not run RASR. The ``fast_bw`` *layer* with ``align_target``
``"ctc"`` needs no RASR.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


class _RasrLoss(Loss):
    recurrent = True
    need_target = False

    def __init__(self, sprint_opts: Dict[str, Any], **kwargs: Any):
        super().__init__(**kwargs)
        self.sprint_opts = sprint_opts

    def get_value(self) -> tf.Tensor:
        layer = self.layer
        raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss",
                            problem=f"{self.class_name!r} needs RASR (Sprint), which this implementation does not run:",
                            got=self.class_name,
                            hint="for a CTC full-sum loss without RASR use \"loss\": \"ctc\", or a fast_bw layer with "
                                 "align_target 'ctc' and a via_layer loss")

    def get_error(self) -> Optional[tf.Tensor]:
        return None


@register_loss
class FastBaumWelchLoss(_RasrLoss):
    """Full-sum loss over an FSA from RASR (``sprint_opts``; ``tdp_scale`` scales its transition scores)."""

    class_name = "fast_bw"

    def __init__(self, sprint_opts: Dict[str, Any], tdp_scale: float = 1.0, **kwargs: Any):
        super().__init__(sprint_opts=sprint_opts, **kwargs)
        self.tdp_scale = tdp_scale


@register_loss
class ExternSprintLoss(_RasrLoss):
    """Loss and gradient computed by a RASR process (``sprint_opts``)."""

    class_name = "sprint"
