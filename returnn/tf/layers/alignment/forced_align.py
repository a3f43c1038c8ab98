"""``{"class": "forced_align", "from": <log-probs>, "align_target": <layer>, "topology": "ctc",
"input_type": "log_prob"}``: the Viterbi (best path) alignment of a label sequence to the frames.

As the reference (its ``FastViterbiOp`` on an FSA it builds without RASR):

- ``from``: ``{B, T, C}`` scores, ``input_type`` ``"log_prob"`` or ``"prob"`` (``log(max(p, 1e-20))``); the
  blank is the last class (``blank_idx`` must be -1, ``blank_included`` False).
- ``align_target``: a layer with sparse labels ``{B, S}`` (its own lengths).
- ``topology``: ``"ctc"`` (labels may repeat over frames, a blank between equal labels) or ``"rna"`` (every frame
  emits blank or the next label exactly once); see :mod:`returnn.tf.ops.alignment`.

Output: int32 ``{T, B}`` (time-major, the input's time axis), sparse over the input's classes: the label of every
frame (blank = ``C - 1``), 0 on padded frames and for sequences without a path. ``self.alignment`` is that tensor,
``self.scores`` float32 ``[B]`` the path's summed log-probabilities (``-inf`` without path). No gradient.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.alignment._common import check_input, time_major_log_probs
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.ops.alignment import ctc_chain, viterbi

TOPOLOGIES = ("ctc", "rna")


@register_layer
class ForcedAlignmentLayer(LayerBase):
    """Viterbi alignment of ``align_target`` to the input's frames."""

    layer_class = "forced_align"

    def __init__(self, align_target: LayerBase, topology: str, input_type: str, blank_idx: int = -1,
                 blank_included: bool = False, **kwargs: Any):
        """
        :param align_target: layer with the sparse label sequences to align
        :param topology: ``"ctc"`` or ``"rna"``
        :param input_type: ``"log_prob"`` or ``"prob"``
        :param blank_idx: index of the blank; only -1 (the last class) is supported
        :param blank_included: whether the input's classes include the blank; only False is supported
        """
        super().__init__(**kwargs)
        data = self.sources[0].output
        log_probs = time_major_log_probs(data, input_type)
        num_classes = tf.shape(log_probs)[2]
        target = align_target.output.copy_as_batch_major()
        chain = ctc_chain(target.placeholder, target.get_sequence_lengths(), num_classes - 1,
                          label_loop=topology == "ctc")
        self.alignment, self.scores = viterbi(log_probs, data.get_sequence_lengths(), chain)
        self.align_target = align_target
        self.output.placeholder = self.alignment

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        target = d.get("align_target")
        if not isinstance(target, str):
            raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="align_target",
                                problem="missing or invalid", got=target, expected="a layer name, e.g. 'data:classes'")
        d["align_target"] = get_layer(target)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), align_target: LayerBase = None,
                               topology: str = "", input_type: str = "", blank_idx: int = -1,
                               blank_included: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown topology / input_type; blank_idx other than -1; blank_included; a dense
            align_target"""
        data = check_input(name, cls.layer_class, sources, input_type)
        if topology not in TOPOLOGIES:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="topology", problem="invalid value",
                                got=topology, expected=" | ".join(TOPOLOGIES) + " (the reference implements these two)")
        if blank_idx != -1 or blank_included:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="blank_idx" if blank_idx != -1 else
                                "blank_included", problem="is not supported (the blank is the last class, as the "
                                "reference):", got=blank_idx if blank_idx != -1 else blank_included)
        if not align_target.output.sparse or align_target.output.time_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="align_target",
                                problem="must be sparse labels {B, S}:", got=align_target.output.get_description())
        tm = data.copy_template(name=f"{name}_output").copy_as_time_major()
        out = tm.copy_template_excluding_axis(tm.feature_dim_axis)
        return Tensor(**{**out.get_kwargs(), "dtype": "int32", "sparse_dim": data.feature_dim})
