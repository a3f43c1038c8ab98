"""Which RF model definitions of the published i6_experiments setups the runner runs, and how (our own table; the
setup code itself is read from the git mirror at run time).

Each :class:`ModelSpec` names the setup module and its functions, the config options that keep the model small, and
the kind of data. The functions follow the setups' interfaces (``model_def(epoch=, in_dim=, target_dim=)``,
``train_def(model=, data=, data_spatial_dim=, targets=, targets_spatial_dim=)``,
``recog_def(model=, data=, data_spatial_dim=)``). Standard library only (imported by both interpreters).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Tuple

ZEYER_RF = "i6_experiments.users.zeyer.experiments.exp2023_04_25_rf"
ZEYER_BASE = "i6_experiments.users.zeyer.experiments.exp2024_04_23_baselines"


@dataclasses.dataclass
class ModelSpec:
    """One model of a setup.

    :ivar name: short name in the report
    :ivar module: the setup module (dotted, under ``i6_experiments``)
    :ivar model_def: function ``(epoch=, in_dim=, target_dim=) -> rf.Module`` in ``module``
    :ivar train_def: function marking the losses
    :ivar recog_def: function returning ``(hyps, scores, out_spatial_dim, beam_dim)``, or ``None``;
        its loop decides in Python (eager), so it runs in TF eager mode
    :ivar forward: what the graph-mode forward step computes: ``"ctc"`` (``model.encode_and_get_ctc_log_probs``),
        ``"aed"`` (``model.encode``), ``"lm"`` (the decoder's log-probs), or None (no forward step)
    :ivar config: config options (global config) for the model and train definitions
    :ivar data: ``"audio"`` (raw audio [B,T,1] float32 + targets) or ``"text"`` (targets only)
    :ivar vocab: number of labels
    :ivar model_def_dict: ``(class, kwargs)`` put into the config as ``_model_def_dict`` (``rf.build_dict``); the
        class a dotted path, or ``.Name`` for a class of ``module``
    """

    name: str
    module: str
    model_def: str
    train_def: str
    recog_def: Optional[str] = None
    forward: Optional[str] = None
    config: Dict[str, Any] = dataclasses.field(default_factory=dict)
    data: str = "audio"
    vocab: int = 20
    model_def_dict: Optional[Tuple[str, Dict[str, Any]]] = None


MODELS: List[ModelSpec] = [
    ModelSpec(
        name="zeyer-2023-aed",
        module=f"{ZEYER_RF}.aed",
        model_def="from_scratch_model_def",
        train_def="from_scratch_training",
        recog_def="model_recog",
        forward="aed",
        config=dict(num_enc_layers=1, aux_loss_layers=[1]),
    ),
    ModelSpec(
        name="zeyer-2024-ctc",
        module=f"{ZEYER_BASE}.ctc",
        model_def="ctc_model_def",
        train_def="ctc_training",
        recog_def="model_recog",
        forward="ctc",
        config=dict(num_enc_layers=1, aux_loss_layers=[1]),
    ),
    ModelSpec(
        name="zeyer-2024-aed",
        module=f"{ZEYER_BASE}.aed",
        model_def="aed_model_def",
        train_def="aed_training",
        recog_def="model_recog",
        forward="aed",
        config=dict(num_enc_layers=1, num_dec_layers=1, aux_loss_layers=[1]),
    ),
    ModelSpec(
        name="zeyer-2024-trafo-lm",
        module=f"{ZEYER_BASE}.lm",
        model_def="lm_model_def",
        train_def="lm_train_def",
        forward="lm",
        data="text",
        model_def_dict=("returnn.frontend.decoder.transformer.TransformerDecoder",
                        dict(encoder_dim=None, num_layers=2, model_dim=32)),
    ),
    ModelSpec(
        name="zeineldeen-ffnn-lm",
        module="i6_experiments.users.zeineldeen.rf_experiments.lm.ffnn",
        model_def="lm_model_def",
        train_def="lm_train_def",
        forward=None,
        data="text",
        model_def_dict=(".FeedForwardLm", dict(context_size=3, num_layers=2, embed_dim=16, ff_hidden_dim=32)),
    ),
    ModelSpec(
        name="gaudino-conformer-ctc",
        module="i6_experiments.users.gaudino.models.asr.rf.conformer_ctc.model_conformer_ctc",
        model_def="from_scratch_model_def",
        train_def="from_scratch_training",
        forward=None,
        config=dict(num_enc_layers=1),
    ),
]


def get(name: str) -> ModelSpec:
    """:return: the spec of ``name``; raises KeyError naming the known ones"""
    for spec in MODELS:
        if spec.name == name:
            return spec
    raise KeyError(f"unknown model {name!r}, expected one of {[s.name for s in MODELS]}")
