"""Side-by-side cases: losses (through the ``loss`` layer, which gives a loss's value per frame) and the loss and
alignment layers. Sources are built on the target's own time axis (an embedding of the sparse target), so output
and target frames agree."""

_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}, "b": {"dim": 4, "sparse": True}}
_EMB = {"class": "linear", "activation": "tanh", "n_out": 6, "from": "data:classes"}
_PROBS = {"class": "linear", "activation": "softmax", "n_out": 4, "from": "emb"}


def _loss_case(name, loss, **opts):
    net = {"emb": _EMB, "probs": _PROBS,
           "output": {"class": "loss", "from": "probs", "loss_": loss, "target_": "classes", **opts}}
    return {"name": name, "extern_data": _DATA, "network": net}


_LM_DATA = {"data": {"dim": 20, "sparse": True}}


def _loss_value_case(name, loss_layer, extern_data=None, max_len=7, value="loss", **extra_layers):
    """The output is an ``eval`` of the summed loss value (``value="error"``: error value) of layer ``sm`` (a scalar),
    as both sides compute it."""
    net = dict(extra_layers)
    net["sm"] = loss_layer
    net["output"] = {"class": "eval", "from": "sm", "out_type": {"shape": (), "batch_dim_axis": None,
                                                                 "time_dim_axis": None, "dim": None,
                                                                 "dtype": "float32", "sparse": False},
                     "eval": f"self.network.get_losses_initialized()[0]['sm'].get_{value}_value()"
                             " + 0.0 * tf.reduce_sum(tf.cast(source(0, auto_convert=False, as_data=True).placeholder,"
                             " tf.float32))"}
    return {"name": name, "extern_data": extern_data or _DATA, "network": net, "max_len": max_len, "batch": 6}


def _sampling_case(name, **opts):
    sm = {"class": "softmax", "from": "emb", "use_transposed_weights": True, "loss": "sampling_loss",
          "target": "data", "loss_opts": {"num_sampled": 5, **opts}}
    return _loss_value_case(name, sm, _LM_DATA,
                            emb={"class": "linear", "activation": "tanh", "n_out": 6, "from": "data"})


# alignment layers: no gradient in the reference (its ops have none), so the scores come from int inputs without
# params (the runner only differentiates float inputs and params); "data" ints in [0, 5)
_ALIGN_DATA = {"data": {"dim": 5, "dtype": "int32"}, "classes": {"dim": 4, "sparse": True}}
_SCORES = {"class": "eval", "from": "data", "out_type": {"dtype": "float32"},
           "eval": "tf.nn.log_softmax(tf.cast(source(0), tf.float32) * 0.7"
                   " + 0.05 * tf.sin(tf.cumsum(tf.cast(source(0), tf.float32), axis=1)))"}


def _align_value_case(name, layer, attr):
    """The output is the layer's per-sequence ``attr`` (``scores`` / ``output_loss``), -inf clipped to -1e4."""
    case = _align_case(name, layer, max_len=9)
    case["network"]["align"] = case["network"].pop("output")
    case["network"]["output"] = {
        "class": "eval", "from": "align", "out_type": {"shape": (), "batch_dim_axis": 0, "time_dim_axis": None,
                                                       "dim": None, "dtype": "float32"},
        "eval": f"tf.maximum(self.sources[0].{attr}, -1e4)"
                " + 0.0 * tf.reduce_sum(tf.cast(source(0, auto_convert=False, as_data=True).placeholder, tf.float32))"}
    return case


# targets of 2 labels (static), so that most sequences have a path
_VIA_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True, "shape": (2,), "time_dim_axis": 1}}


def _align_case(name, layer, *, ties=False, **kw):
    scores = dict(_SCORES, eval="tf.nn.log_softmax(tf.cast(source(0), tf.float32) * 0.7)") if ties else _SCORES
    net = {"scores": scores, "probs": {"class": "activation", "activation": "exp", "from": "scores"}, "output": layer}
    return {"name": name, "extern_data": _ALIGN_DATA, "network": net, "batch": 12, **kw}


def _ctc_case(name, src, **loss_opts):
    return _loss_value_case(name, {"class": "copy", "from": src, "loss": "ctc", "target": "classes",
                                   "loss_opts": loss_opts}, _VIA_DATA, max_len=9,
                            lin={"class": "linear", "activation": None, "from": "data", "n_out": 5},
                            lsm={"class": "activation", "activation": "log_softmax", "from": "lin"})


# search losses: a small decoder searched with a beam of 3 (the losses read the beam's scores and hypotheses)
_SEARCH_DATA = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}
_SEARCH_ENC = {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"}
_SEARCH_DEC = {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": {
    "emb": {"class": "linear", "activation": None, "n_out": 4, "from": "prev:output"},
    "s": {"class": "linear", "activation": "tanh", "n_out": 4, "from": ["emb", "base:enc"]},
    "prob": {"class": "softmax", "from": "s", "target": "classes"},
    "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes", "input_type": "prob",
               "initial_output": 0},
    "end": {"class": "compare", "from": "output", "value": 0}}}


def _search_loss_case(name, layer, value="loss", train=False):
    """``train``: with the train flag (as in MBR training: the gradient through the beam scores); without it, the
    reference's beam scores carry no gradient"""
    case = _loss_value_case(name, layer, _SEARCH_DATA, max_len=5, value=value, enc=_SEARCH_ENC, dec=_SEARCH_DEC)
    case.update(search=True, eval=True, batch=4, train=train)
    return case


def _ocd_case(name, blank_idx):
    """In a rec loop over "hyp" (no search): labels = argmax of a softmax fed by the previous completions."""
    target = {"target": "layer:base:data:classes", "blank_idx": blank_idx, "is_output_layer": True}
    unit = {
        "ocf": {"class": "eval", "from": "oc", "eval": "tf.cast(source(0), tf.float32)",
                "out_type": {"dtype": "float32"}},
        "emb": {"class": "linear", "activation": "tanh", "n_out": 3, "from": ["prev:ocf", "data:source"]},
        "prob": {"class": "softmax", "from": "emb", "n_out": 5},
        "label": {"class": "reduce", "mode": "argmax", "axis": "F", "from": "prob"},
        "edt": {"class": "edit_distance_table", "from": "label", **target},
        "oc": {"class": "optimal_completions", "from": "prev:edt", **target},
        "output": {"class": "copy", "from": "prob"}}
    net = {"output": {"class": "rec", "from": "data", "unit": unit},
           "oc_all": {"class": "copy", "from": "output/oc", "is_output_layer": True},
           "edt_all": {"class": "copy", "from": "output/edt", "is_output_layer": True}}
    return {"name": name, "extern_data": {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}},
            "network": net, "output": "oc_all", "batch": 4}


CASES = [
    _loss_case("loss_ce", "ce"),
    _loss_case("loss_ce_label_smoothing", "ce", loss_opts_={"label_smoothing": 0.1}),
    _loss_case("loss_ce_focal", "ce", loss_opts_={"focal_loss_factor": 2.0}),
    # the bound near ln(4), the CE of near-uniform probs: some frames above, some below
    _loss_case("loss_ce_fake_upper_bound", "ce", loss_opts_={"fake_upper_bound": 1.386}),
    _loss_case("loss_ce_label_smoothing_gaussian", "ce",
               loss_opts_={"label_smoothing": 0.2, "label_smoothing_gaussian": True}),
    # as 2021-latent-monotonic-attention hard-att configs: the summed value of a softmax layer's ce loss (there with
    # "scale": 0.1, left out here: the reference's LossHolder.get_loss_value is without that scale, ours with it)
    _loss_value_case("loss_ce_value_fake_upper_bound",
                     {"class": "softmax", "n_out": 4, "from": "emb", "loss": "ce", "target": "classes",
                      "loss_opts": {"fake_upper_bound": 1.386}}, emb=_EMB),
    _loss_value_case("loss_ce_value_label_smoothing_gaussian",
                     {"class": "softmax", "n_out": 4, "from": "emb", "loss": "ce", "target": "classes",
                      "loss_opts": {"label_smoothing": 0.2, "label_smoothing_gaussian": True}}, emb=_EMB),
    _loss_case("loss_ce_use_error", "ce", use_error=True),
    {"name": "loss_ce_time_major", "extern_data": _DATA,
     "network": {"emb": _EMB, "lstm": {"class": "rec", "unit": "nativelstm2", "n_out": 5, "from": "emb"},
                 "probs": {"class": "softmax", "n_out": 4, "from": "lstm"},
                 "output": {"class": "loss", "from": "probs", "loss_": "ce", "target_": "classes"}}},
    {"name": "loss_mse", "extern_data": _DATA,
     "network": {"pred": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
                 "output": {"class": "loss", "from": "pred", "loss_": "mse", "target_": "data"}}},
    {"name": "loss_mean_l1", "extern_data": _DATA,
     "network": {"pred": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
                 "output": {"class": "loss", "from": "pred", "loss_": "mean_l1", "target_": "data"}}},
    {"name": "sparse_softmax_cross_entropy_with_logits", "extern_data": _DATA,
     "network": {"emb": _EMB, "logits": {"class": "linear", "activation": None, "n_out": 4, "from": "emb"},
                 "output": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "logits",
                            "targets": "data:classes"}}},
    {"name": "edit_distance", "extern_data": _DATA,
     "network": {"output": {"class": "edit_distance", "a": "data:classes", "b": "data:b"}}},
    _sampling_case("sampling_loss_nce", nce_loss=True),
    _sampling_case("sampling_loss_nce_3_splits_uniform", nce_loss=True, num_splits=3, sampler="uniform"),
    _sampling_case("sampling_loss_nce_log_norm_term", nce_loss=True, nce_log_norm_term=2.0,
                   remove_accidental_hits=True),
    _sampling_case("sampling_loss_full_softmax", use_full_softmax=True),
    _align_case("forced_align_ctc", {"class": "forced_align", "from": "scores", "input_type": "log_prob",
                                     "align_target": "data:classes", "topology": "ctc"}, max_len=9),
    _align_case("forced_align_rna", {"class": "forced_align", "from": "scores", "input_type": "log_prob",
                                     "align_target": "data:classes", "topology": "rna"}, max_len=9),
    _align_case("forced_align_ctc_ties", {"class": "forced_align", "from": "scores", "input_type": "log_prob",
                                          "align_target": "data:classes", "topology": "ctc"}, ties=True, max_len=9),
    _align_case("forced_align_rna_prob", {"class": "forced_align", "from": "probs", "input_type": "prob",
                                          "align_target": "data:classes", "topology": "rna"}, max_len=9),
    _align_case("fast_bw_ctc", {"class": "fast_bw", "from": "scores", "align_target": "ctc",
                                "align_target_key": "classes"}, max_len=9),
    _align_case("fast_bw_ctc_no_label_loop_blank0", {"class": "fast_bw", "from": "scores", "align_target": "ctc",
                                                     "align_target_key": "classes",
                                                     "ctc_opts": {"label_loop": False, "blank_idx": 0}}, max_len=9),
    _align_case("fast_bw_ctc_prob_am_scale_min_prob", {"class": "fast_bw", "from": "probs", "input_type": "prob",
                                                       "align_target": "ctc", "align_target_key": "classes",
                                                       "am_scale": 0.7, "min_prob": 0.05}, max_len=9),
    _align_case("fast_bw_staircase", {"class": "fast_bw", "from": "scores", "align_target": "staircase",
                                      "staircase_seq_len_source": "data:classes"}, max_len=5),  # stairs <= C
    _align_value_case("forced_align_ctc_scores", {"class": "forced_align", "from": "scores", "input_type": "log_prob",
                                                  "align_target": "data:classes", "topology": "ctc"}, "scores"),
    _align_value_case("forced_align_rna_scores", {"class": "forced_align", "from": "scores", "input_type": "log_prob",
                                                  "align_target": "data:classes", "topology": "rna"}, "scores"),
    _align_value_case("fast_bw_ctc_output_loss", {"class": "fast_bw", "from": "scores", "align_target": "ctc",
                                                  "align_target_key": "classes"}, "output_loss"),
    _loss_value_case("via_layer_align_softmax_in",
                     {"class": "copy", "from": "probs", "loss": "via_layer",
                      "loss_opts": {"align_layer": "bw", "loss_wrt_to_act_in": "softmax"}},
                     _VIA_DATA, max_len=9,
                     probs={"class": "softmax", "from": "data", "n_out": 5},
                     lp={"class": "activation", "activation": "log", "from": "probs"},
                     bw={"class": "fast_bw", "from": "lp", "align_target": "ctc", "align_target_key": "classes"}),
    _loss_value_case("via_layer_error_signal", {"class": "copy", "from": "probs", "loss": "via_layer",
                                                "loss_opts": {"error_signal_layer": "bw"}},
                     _VIA_DATA, max_len=9,
                     probs={"class": "softmax", "from": "data", "n_out": 5},
                     lp={"class": "activation", "activation": "log", "from": "probs"},
                     bw={"class": "fast_bw", "from": "lp", "align_target": "ctc", "align_target_key": "classes"}),
    _ctc_case("ctc_native_log_space_no_normalize", "lsm", beam_width=1, use_native=True, output_in_log_space=True,
              ctc_opts={"logits_normalize": False, "grad_wrt_softmax_in": False}),
    _ctc_case("ctc_native_scores_no_normalize", "lin", beam_width=1, use_native=True, output_in_log_space=True,
              ctc_opts={"logits_normalize": False}),
    _ctc_case("ctc_tf_log_space", "lsm", output_in_log_space=True),
    _search_loss_case("search_score_decide", {"class": "decide", "from": "dec", "loss": "search_score",
                                              "target": "classes"}),
    _search_loss_case("search_score_beam", {"class": "copy", "from": "dec", "loss": "search_score"}),
    _search_loss_case("expected_loss_edit_distance", {
        "class": "copy", "from": "dec", "loss": "expected_loss", "target": "classes",
        "loss_opts": {"loss": {"class": "edit_distance"}, "loss_kind": "error"}}),
    _search_loss_case("expected_loss_edit_distance_no_norm", {
        "class": "copy", "from": "dec", "loss": "expected_loss", "target": "classes",
        "loss_opts": {"loss": {"class": "edit_distance"}, "loss_kind": "error", "divide_beam_size": False,
                      "norm_scores_stop_gradient": False, "subtract_average_loss": False}}),
    _search_loss_case("search_score_beam_train", {"class": "copy", "from": "dec", "loss": "search_score"}, train=True),
    _search_loss_case("expected_loss_edit_distance_train", {
        "class": "copy", "from": "dec", "loss": "expected_loss", "target": "classes",
        "loss_opts": {"loss": {"class": "edit_distance"}, "loss_kind": "error"}}, train=True),
    _search_loss_case("expected_loss_bleu", {
        "class": "copy", "from": "dec", "loss": "expected_loss", "target": "classes",
        "loss_opts": {"loss": {"class": "bleu"}, "loss_kind": "error"}}),
    _search_loss_case("bleu_error_decide", {"class": "decide", "from": "dec", "loss": "bleu", "target": "classes"},
                      value="error"),
    _ocd_case("edit_distance_table_and_optimal_completions", None),
    _ocd_case("edit_distance_table_and_optimal_completions_blank", 3),
]
