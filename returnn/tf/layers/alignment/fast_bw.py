"""``{"class": "fast_bw", "from": <log-probs>, "align_target": "ctc", "align_target_key": "classes"}``: the full-sum
(Baum-Welch) soft alignment of the frames to an FSA, as posteriors per class.

As the reference (its ``FastBaumWelchOp`` on the FSAs it builds without RASR):

- ``from``: ``{B, T, C}`` scores, ``input_type`` ``"log_prob"`` (default) or ``"prob"`` (``log(max(p, 1e-20))``).
  The scores used are ``am_scale * max(log_prob, log(min_prob))``.
- ``align_target``:

  - ``"ctc"``: the CTC chain of the labels of extern data ``align_target_key`` (sparse ``{B, S}``); ``ctc_opts``:
    ``blank_idx`` (default: the last class), ``label_loop`` (default True; False: every label on exactly one frame,
    equal labels need no blank between them); see :mod:`returnn.tf.ops.alignment`.
  - ``"staircase"``: frame ``t`` is class ``t`` for ``t`` below the lengths of ``staircase_seq_len_source``'s
    time axis (and below ``C``: for ``t >= C`` the reference writes out of range into other sequences' entries;
    here those frames get nothing).
  - ``"sprint"``: the FSA comes from RASR; rejected here (:class:`LayerArgError`), as RASR is not run.

- ``tdp_scale`` only affects RASR FSAs.

Output: float32 ``{T, B, C}`` (time-major): the posterior of each class per frame (0 on padded frames and for
sequences without a path). ``self.output_loss`` float32 ``[B]``: ``-log`` of the total path probability (0
without path). No gradient (the reference's op has none).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.alignment._common import check_input, rasr_error, time_major_log_probs
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.ops.alignment import baum_welch, ctc_chain, staircase_posteriors

ALIGN_TARGETS = ("ctc", "staircase", "sprint")
CTC_OPTS = ("blank_idx", "label_loop")


@register_layer
class FastBaumWelchLayer(LayerBase):
    """Baum-Welch posteriors of the input's frames."""

    layer_class = "fast_bw"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, align_target: str, align_target_key: Optional[str] = None,
                 ctc_opts: Optional[Dict[str, Any]] = None, sprint_opts: Optional[Dict[str, Any]] = None,
                 input_type: str = "log_prob", tdp_scale: float = 1.0, am_scale: float = 1.0, min_prob: float = 0.0,
                 staircase_seq_len_source: Optional[LayerBase] = None, **kwargs: Any):
        """
        :param align_target: the FSA: ``"ctc"``, ``"staircase"`` (or ``"sprint"``, which needs RASR)
        :param align_target_key: with ``"ctc"``: the extern data key of the label sequences
        :param ctc_opts: with ``"ctc"``: options ``blank_idx`` and ``label_loop``
        :param sprint_opts: options of the RASR FSA (``"sprint"`` only, not supported here)
        :param input_type: ``"log_prob"`` (default) or ``"prob"``
        :param tdp_scale: scale of the transition scores of RASR FSAs; no effect on the others
        :param am_scale: factor on the input scores (default 1)
        :param min_prob: floor of the probabilities before the log (default 0: none)
        :param staircase_seq_len_source: with ``"staircase"``: layer whose time axis gives the lengths
        """
        super().__init__(**kwargs)
        data = self.sources[0].output
        scores = time_major_log_probs(data, input_type)
        if min_prob > 0:
            scores = tf.maximum(scores, math.log(min_prob))
        if am_scale != 1:
            scores *= am_scale
        num_classes = tf.shape(scores)[2]
        if align_target == "ctc":
            opts = dict(ctc_opts or {})
            target = self.network.get_extern_data(align_target_key, mark_data_key_as_used=True).copy_as_batch_major()
            chain = ctc_chain(target.placeholder, target.get_sequence_lengths(),
                              opts.get("blank_idx", num_classes - 1), label_loop=opts.get("label_loop", True))
            self.output.placeholder, self.output_loss = baum_welch(scores, data.get_sequence_lengths(), chain,
                                                                   num_classes)
        else:  # staircase
            stair = staircase_seq_len_source.output
            self.output.placeholder, self.output_loss = staircase_posteriors(scores, stair.get_sequence_lengths(),
                                                                             num_classes)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("staircase_seq_len_source"), str):
            d["staircase_seq_len_source"] = get_layer(d["staircase_seq_len_source"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, sources: Any = (), align_target: str = "",
                               align_target_key: Optional[str] = None, ctc_opts: Optional[Dict[str, Any]] = None,
                               input_type: str = "log_prob", staircase_seq_len_source: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown align_target / input_type / ctc_opts; align_target 'sprint' (RASR);
            missing align_target_key or staircase_seq_len_source"""
        data = check_input(name, cls.layer_class, sources, input_type)
        if align_target not in ALIGN_TARGETS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="align_target", problem="invalid value",
                                got=align_target, expected=" | ".join(ALIGN_TARGETS))
        if align_target == "sprint":
            raise rasr_error(name, cls.layer_class, "align_target", align_target)
        if align_target == "ctc":
            unknown = sorted(set(ctc_opts or {}) - set(CTC_OPTS))
            if unknown:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="ctc_opts",
                                    problem=f"unknown option {unknown[0]!r} in", got=ctc_opts,
                                    expected=", ".join(CTC_OPTS))
            if not align_target_key:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="align_target_key",
                                    problem="missing (align_target 'ctc' takes the labels from extern data)",
                                    expected="an extern data key, e.g. 'classes'")
            target = network.get_extern_data(align_target_key, mark_data_key_as_used=True)
            if not target.sparse or target.time_dim_axis is None:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="align_target_key",
                                    problem="must name sparse labels {B, S}:", got=target.get_description())
        if align_target == "staircase" and not isinstance(staircase_seq_len_source, LayerBase):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="staircase_seq_len_source",
                                problem="missing (needed by align_target 'staircase')", expected="a layer name")
        tm = data.copy_template(name=f"{name}_output").copy_as_time_major()
        return Tensor(**{**tm.get_kwargs(), "dtype": "float32"})
