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
SCHMITT_RF = ("i6_experiments.users.schmitt.experiments.config.pipelines.global_vs_segmental_2022_23_rf.dependencies."
              "returnn.network_builder_rf")


@dataclasses.dataclass
class ModelSpec:
    """One model of a setup.

    :ivar name: short name in the report
    :ivar module: the setup module (dotted, under ``i6_experiments``)
    :ivar model_def: function ``(epoch=, in_dim=, target_dim=) -> rf.Module`` in ``module``
    :ivar train_def: function marking the losses (functions: a name in ``module``, or ``"dotted.module:name"``)
    :ivar recog_def: function returning ``(hyps, scores, out_spatial_dim, beam_dim)``, or ``None``;
        its loop decides in Python (eager), so it runs in TF eager mode
    :ivar recog_kwargs: more keyword arguments of the recog def (e.g. its beam size)
    :ivar forward: what the graph-mode forward step computes: ``"ctc"`` (``model.encode_and_get_ctc_log_probs``),
        ``"aed"`` (``model.encode``), ``"lm"`` (the decoder's log-probs), or None (no forward step)
    :ivar config: config options (global config) for the model and train definitions
    :ivar data: ``"audio"`` (raw audio [B,T,1] float32 + targets) or ``"text"`` (targets only)
    :ivar vocab: number of labels
    :ivar model_def_dict: ``(class, kwargs)`` put into the config as ``_model_def_dict`` (``rf.build_dict``); the
        class a dotted path, or ``.Name`` for a class of ``module``
    :ivar build_dicts: config options whose values are ``rf.build_dict`` dicts: ``{key: (class, kwargs)}`` as
        ``model_def_dict``; a kwarg value that is such a ``(class, kwargs)`` tuple (with a str class) is a nested
        ``rf.build_dict``
    :ivar kwdefaults: keyword defaults of functions of ``module`` to replace, ``{"Class.method": {kwarg: value}}``
        (for sizes a setup hard-codes as a default, e.g. its number of encoder layers)
    :ivar train_steps: steps of the train-flag phase (train def with the train flag on, dropout and SpecAugment made
        the identity, then plain SGD with ``train_lr``); 0: no such phase
    """

    name: str
    module: str
    model_def: str
    train_def: str
    recog_def: Optional[str] = None
    recog_kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)
    forward: Optional[str] = None
    config: Dict[str, Any] = dataclasses.field(default_factory=dict)
    data: str = "audio"
    vocab: int = 20
    model_def_dict: Optional[Tuple[str, Dict[str, Any]]] = None
    build_dicts: Dict[str, Tuple[str, Dict[str, Any]]] = dataclasses.field(default_factory=dict)
    kwdefaults: Dict[str, Dict[str, Any]] = dataclasses.field(default_factory=dict)
    train_steps: int = 3
    train_lr: float = 0.05


def _chunked_conformer_spec(name: str, module: str) -> ModelSpec:
    """:return: a spec of one of zeyer's chunked-conformer setups (1 encoder layer, small chunks); no recog def:
    the reference's ``model_recog_v2`` fails ("compare: ... require explicit allow_broadcast_all_sources=True")"""
    return ModelSpec(
        name=name, module=module, model_def="from_scratch_model_def", train_def="from_scratch_training",
        recog_def=None, forward=None,
        config=dict(aux_loss_layers=None, pos_emb_dropout=0.0,
                    chunk_opts=dict(chunk_stride=24, chunk_history=1, input_chunk_size=36, end_chunk_size=4)),
        kwdefaults={"MakeModel.make_model": dict(num_enc_layers=1)},
    )


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
        # the CTC model of ctc_claix2023.py: a ConformerEncoder build dict with its own conv front end (pooling over
        # the features, strides 3 and 2), feed-forward without bias, feature batch norm, an aux attention decoder
        name="zeyer-2024-ctc-claix",
        module=f"{ZEYER_BASE}.ctc",
        model_def="ctc_model_def",
        train_def="ctc_training",
        recog_def="model_recog",
        forward="ctc",
        config=dict(feature_batch_norm=True, aux_loss_layers=None),
        build_dicts={
            "enc_build_dict": ("returnn.frontend.encoder.conformer.ConformerEncoder", dict(
                input_layer=("returnn.frontend.encoder.conformer.ConformerConvSubsample", dict(
                    out_dims=[8, 16, 16], filter_sizes=[(3, 3), (3, 3), (3, 3)], pool_sizes=[(1, 2)],
                    strides=[(1, 1), (3, 1), (2, 1)])),
                num_layers=2, out_dim=32,
                encoder_layer=("returnn.frontend.encoder.conformer.ConformerEncoderLayer", dict(
                    ff=("returnn.frontend.encoder.conformer.ConformerPositionwiseFeedForward", dict(
                        activation=("returnn.frontend.relu_square", {}), with_bias=False)),
                    num_heads=4)))),
            "aux_attention_decoder": ("returnn.frontend.decoder.transformer.TransformerDecoder",
                                      dict(num_layers=1, model_dim=32, num_heads=4)),
        },
    ),
    ModelSpec(
        # the 2024 CTC with the conv block's batch norm replaced (a published variant of ctc.py); no batch norm, so
        # the reference's train flag can run (its BatchNorm cannot update its statistics in a TF graph)
        name="zeyer-2024-ctc-groupnorm",
        module=f"{ZEYER_BASE}.ctc",
        model_def="ctc_model_def",
        train_def="ctc_training",
        forward="ctc",
        config=dict(num_enc_layers=1, aux_loss_layers=[1]),
        build_dicts={"conv_norm": ("returnn.frontend.GroupNorm", dict(num_groups=32))},
    ),
    ModelSpec(
        name="zeyer-2024-ctc-layernorm",
        module=f"{ZEYER_BASE}.ctc",
        model_def="ctc_model_def",
        train_def="ctc_training",
        forward="ctc",
        config=dict(num_enc_layers=1, aux_loss_layers=[1]),
        build_dicts={"conv_norm": ("returnn.frontend.LayerNorm", {})},
    ),
    ModelSpec(
        # CTC label smoothing (published configs of ctc.py: ctc_label_smoothing 0.1): the smoothed gradient of the
        # CTC loss's log-probs, whose entries have both signs
        name="zeyer-2024-ctc-ls",
        module=f"{ZEYER_BASE}.ctc",
        model_def="ctc_model_def",
        train_def="ctc_training",
        forward="ctc",
        config=dict(num_enc_layers=1, aux_loss_layers=[1], ctc_label_smoothing=0.1),
    ),
    ModelSpec(
        # the 2024 AED with the LSTM decoder of the older AED setups (zoneout LSTM, weight feedback, readout maxout)
        name="zeyer-2024-aed-lstmdec",
        module=f"{ZEYER_BASE}.aed",
        model_def="aed_model_def",
        train_def="aed_training",
        recog_def="model_recog",
        forward="aed",
        config=dict(num_enc_layers=1, aux_loss_layers=[1]),
        build_dicts={"dec_build_dict": ("i6_experiments.users.zeyer.nn_rf.decoder.lstm.LstmDecoder", dict(
            enc_key_total_dim=32, lstm_dim=32, readout_dim=32, target_embed_dim=16))},
    ),
    # the chunked conformer (chunk-wise encoder with history) with CTC, and with an attention decoder
    _chunked_conformer_spec("zeyer-2023-chunked-ctc", f"{ZEYER_RF}.chunked_ctc"),
    _chunked_conformer_spec("zeyer-2023-chunked-aed", f"{ZEYER_RF}.chunked_aed_import"),
    ModelSpec(
        # schmitt's global attention model (conformer encoder, LSTM label decoder with weight feedback), the model of
        # his segmental-vs-global comparisons; its train and recog defs are in sibling modules
        name="schmitt-global-att",
        module=f"{SCHMITT_RF}.global_.model",
        model_def="from_scratch_model_def",
        train_def=f"{SCHMITT_RF}.global_.train:from_scratch_training",
        recog_def=f"{SCHMITT_RF}.global_.recog:model_recog",
        recog_kwargs=dict(beam_size=4),
        forward=None,
        config=dict(conformer_num_layers=1, conformer_out_dim=64, target_embed_dim=16, readout_dimension=32,
                    ilm_dimension=32, aux_loss_layers=[1]),
    ),
    ModelSpec(
        # gaudino's conformer AED with the LSTM decoder (LibriSpeech, from scratch): 1 encoder layer; its dims are
        # hard-coded (512, LSTM 1024), so one train-flag step only
        name="gaudino-aed-lstm",
        module="i6_experiments.users.gaudino.experiments.rf_conformer_att_2023.librispeech_960."
               "conformer_import_moh_att_train",
        model_def="from_scratch_model_def",
        train_def="from_scratch_training",
        forward="aed",
        config=dict(aux_loss_layers=None),
        kwdefaults={"MakeModel.make_model": dict(num_enc_layers=1)},
        train_steps=1,
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
