"""Side-by-side cases: rec units and the layers used in rec loops / search (issue 17, part 2)."""

from returnn.tf.util.data import SpatialDim

_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}
_LN = "layernormvariantslstm"


def _rec(unit, unit_opts=None, direction=1, n_out=4):
    d = {"class": "rec", "unit": unit, "n_out": n_out, "from": "data", "direction": direction}
    if unit_opts is not None:
        d["unit_opts"] = unit_opts
    return {"output": d}


def _loop(unit_dict, move_out=True, **top):
    """a rec loop over the input frames with ``unit_dict`` (layer ``s`` per step)"""
    return dict({"output": {"class": "rec", "from": "data", "unit": unit_dict, "optimize_move_layers_out": move_out}},
                **top)


# masks: zero in padded frames (the reference fails when a mask selects padded frames inside a rec loop), so the
# masked cases read an LSTM's output ("enc", exactly zero in padding) instead of the raw input
_ENC = {"enc": {"class": "rec", "unit": "nativelstm2", "n_out": 3, "from": "data"}}
_MASK_TOP = dict(_ENC, r={"class": "reduce", "mode": "max", "axis": "F", "from": "enc"},
                 m={"class": "compare", "from": "r", "value": 0.05, "kind": "greater"})
_MASK_LOOP = {"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data:source"},
              "m": {"class": "compare", "from": "r", "value": 0.05, "kind": "greater"}}
_LM_UNIT = {"class": "subnetwork", "from": "data", "subnetwork": {
    "input_embed": {"class": "linear", "activation": None, "with_bias": False, "from": "data", "n_out": 4},
    "lstm0": {"class": "rec", "unit": "nativelstm2", "n_out": 3, "from": ["input_embed"]},
    "output": {"class": "copy", "from": "lstm0"}}}


def _masked_loop(unit, move_out=True, masked_from=False, feedback=False):
    mc = {"class": "masked_computation", "mask": "m", "from": "data:source", "unit": unit}
    top = dict(_ENC)
    if masked_from:
        mc["masked_from"] = "base:packed"
        top = dict(_MASK_TOP, packed={"class": "masked_computation", "mask": "m", "from": "enc",
                                      "unit": {"class": "copy"}})
    layers = dict(_MASK_LOOP, mc=mc, um={"class": "unmask", "from": "mc", "mask": "m"})
    if feedback:
        layers["a"] = {"class": "linear", "from": ["prev:a", "um"], "n_out": 2}
        layers["output"] = {"class": "copy", "from": ["a", "um"]}
    else:
        layers["output"] = {"class": "copy", "from": "um"}
    net = _loop(layers, move_out, **top)
    net["output"]["from"] = "enc"
    return net


_HIST = SpatialDim("history")
_HIST2 = SpatialDim("history2")
_SELF_ATT = {
    "q": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
    "k": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
    "v": {"class": "linear", "from": ["data:source", "prev:att"], "n_out": 2, "activation": None},
    "k_acc": {"class": "cum_concat", "from": "k", "out_spatial_dim": _HIST},
    "v_acc": {"class": "cum_concat", "from": "v", "out_spatial_dim": _HIST},
    "prod": {"class": "combine", "kind": "mul", "from": ["k_acc", "q"]},
    "energy": {"class": "reduce", "mode": "sum", "axis": "F", "from": "prod"},
    "w": {"class": "softmax_over_spatial", "from": "energy", "axis": _HIST},
    "wv": {"class": "combine", "kind": "mul", "from": ["w", "v_acc"]},
    "att": {"class": "reduce", "mode": "sum", "axis": _HIST, "from": "wv"},
    "output": {"class": "copy", "from": "att"}}

_SEARCH_DATA = {"data": {"dim": 5}, "classes": {"dim": 6, "sparse": True}}


def _search_net(extra_unit, extra_top=None, output="output", beam=3):
    """a small attention-free decoder searched with a beam; the encoder's mean feeds each step"""
    unit = {"emb": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
            "s": {"class": "rnn_cell", "unit": "standardlstm", "from": ["emb", "base:enc"], "n_out": 4},
            "prob": {"class": "softmax", "from": ["s"], "target": "classes", "n_out": 6},
            "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": beam, "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 1}}
    unit.update(extra_unit)
    net = {"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
           "output": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": unit}}
    net.update(extra_top or {})
    return net


CASES = [
    {"name": "rec_lstmp", "extern_data": _DATA, "network": _rec("lstmp")},
    {"name": "rec_lstmp_bw", "extern_data": _DATA, "network": _rec("LSTMP", direction=-1)},
    {"name": "rec_nativelstm2_rec_weight_dropout", "extern_data": _DATA,
     "network": _rec("nativelstm2", {"rec_weight_dropout": 0.3, "forget_bias": 0.0})},
    {"name": "rec_zoneoutlstm", "extern_data": _DATA,
     "network": _rec("zoneoutlstm", {"zoneout_factor_cell": 0.15, "zoneout_factor_output": 0.05})},
    {"name": "rec_ZoneoutLSTM_zoneout_output", "extern_data": _DATA,
     "network": _rec("ZoneoutLSTM", {"zoneout_factor_cell": 0.3, "zoneout_factor_output": 0.2,
                                     "use_zoneout_output": True}, direction=-1)},
    {"name": "rec_ln_lstm_default", "extern_data": _DATA, "network": _rec(_LN, {})},
    {"name": "rec_ln_lstm_gn_off", "extern_data": _DATA, "network": _rec(_LN, {"global_norm": False})},
    {"name": "rec_ln_lstm_joined", "extern_data": _DATA,
     "network": _rec(_LN, {"global_norm": False, "global_norm_joined": True}, direction=-1)},
    {"name": "rec_ln_lstm_joined_no_cell_norm", "extern_data": _DATA,
     "network": _rec(_LN, {"global_norm": False, "global_norm_joined": True, "cell_norm": False})},
    {"name": "rec_ln_lstm_per_gate", "extern_data": _DATA,
     "network": _rec(_LN, {"global_norm": False, "per_gate_norm": True})},
    {"name": "rec_ln_lstm_per_gate_no_cell_norm", "extern_data": _DATA,
     "network": _rec(_LN, {"global_norm": False, "per_gate_norm": True, "cell_norm": False})},
    {"name": "rec_ln_lstm_no_cell_norm", "extern_data": _DATA, "network": _rec(_LN, {"cell_norm": False})},
    {"name": "rec_ln_lstm_hidden_norm_concat", "extern_data": _DATA,
     "network": _rec(_LN, {"global_norm": False, "with_concat": True, "hidden_norm": True,
                           "cell_norm_in_output": False, "forget_bias": 1.0, "variance_epsilon": 0.1})},
    {"name": "rnn_cell_zoneoutlstm", "extern_data": _DATA,
     "network": _loop({"s": {"class": "rnn_cell", "unit": "zoneoutlstm", "n_out": 4, "from": ["data:source", "prev:s"],
                             "unit_opts": {"zoneout_factor_cell": 0.15, "zoneout_factor_output": 0.05}},
                       "output": {"class": "copy", "from": "s"}})},
    {"name": "rnn_cell_ln_lstm_joined", "extern_data": _DATA,
     "network": _loop({"s": {"class": "rnn_cell", "unit": _LN, "n_out": 4, "from": ["data:source", "prev:s"],
                             "unit_opts": {"global_norm": False, "global_norm_joined": True, "cell_norm": False}},
                       "output": {"class": "copy", "from": "s"}})},
    {"name": "rnn_cell_ln_lstm_default", "extern_data": _DATA,
     "network": _loop({"s": {"class": "rnn_cell", "unit": _LN, "n_out": 4, "from": ["data:source"]},
                       "output": {"class": "copy", "from": "s"}})},
    # a rec layer with a string unit inside a loop: one step per frame, its state carried by the loop
    {"name": "rec_in_loop_nativelstm2", "extern_data": _DATA,
     "network": _loop({"r": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": ["data:source", "prev:r"]},
                       "output": {"class": "copy", "from": "r"}})},
    {"name": "rec_in_loop_standardlstm_gru", "extern_data": _DATA,
     "network": _loop({"r": {"class": "rec", "unit": "standardlstm", "n_out": 4, "from": ["data:source", "prev:g"]},
                       "g": {"class": "rec", "unit": "gru", "n_out": 3, "from": ["r"]},
                       "output": {"class": "copy", "from": ["r", "g"]}})},
    {"name": "rec_in_loop_ln_lstm_moved_out", "extern_data": _DATA,
     "network": _loop({"a": {"class": "linear", "from": ["prev:a", "data:source"], "n_out": 3},
                       "r": {"class": "rec", "unit": _LN, "n_out": 4, "from": "a",
                             "unit_opts": {"global_norm": False, "per_gate_norm": True}},
                       "s": {"class": "rnn_cell", "unit": "zoneoutlstm", "n_out": 2, "from": "a",
                             "unit_opts": {"zoneout_factor_cell": 0.3}},
                       "output": {"class": "copy", "from": ["r", "s"]}})},
    # masked_computation / unmask
    {"name": "masked_computation_top_copy", "extern_data": _DATA,
     "network": dict(_MASK_TOP, output={"class": "masked_computation", "mask": "m", "from": "enc",
                                        "unit": {"class": "copy"}})},
    {"name": "masked_computation_top_linear", "extern_data": _DATA,
     "network": dict(_MASK_TOP, output={"class": "masked_computation", "mask": "m", "from": "data",
                                        "unit": {"class": "linear", "n_out": 3, "activation": "tanh"}})},
    {"name": "masked_computation_top_rec", "extern_data": _DATA,
     "network": dict(_MASK_TOP, output={"class": "masked_computation", "mask": "m", "from": "data",
                                        "unit": {"class": "rec", "unit": "nativelstm2", "n_out": 3}})},
    {"name": "masked_computation_loop_linear_moved_out", "extern_data": _DATA,
     "network": _masked_loop({"class": "linear", "n_out": 2, "activation": None})},
    {"name": "masked_computation_loop_linear_in_loop", "extern_data": _DATA,
     "network": _masked_loop({"class": "linear", "n_out": 2, "activation": None}, move_out=False)},
    {"name": "masked_computation_loop_rnn_cell_moved_out", "extern_data": _DATA,
     "network": _masked_loop({"class": "rnn_cell", "unit": "standardlstm", "n_out": 3})},
    {"name": "masked_computation_loop_rnn_cell_in_loop", "extern_data": _DATA,
     "network": _masked_loop({"class": "rnn_cell", "unit": "standardlstm", "n_out": 3}, feedback=True)},
    {"name": "masked_computation_masked_from_unmask", "extern_data": _DATA,
     "network": _masked_loop({"class": "rnn_cell", "unit": "zoneoutlstm", "n_out": 3,
                              "unit_opts": {"zoneout_factor_cell": 0.15}}, masked_from=True)},
    {"name": "masked_computation_subnet_lm_in_loop", "extern_data": _DATA,
     "network": _masked_loop(_LM_UNIT, feedback=True)},
    {"name": "masked_computation_subnet_lm_moved_out", "extern_data": _DATA,
     "network": _masked_loop(_LM_UNIT)},
    # cum_concat: a self-attention step over the history (in the loop, and with move-out allowed)
    {"name": "cum_concat_self_attention_in_loop", "extern_data": _DATA,
     "network": _loop(dict(_SELF_ATT), move_out=False)},
    # with move-out allowed the reference computes it over the whole sequence (gradients also without training);
    # here cum_concat stays in the loop: the same values, and in training the same gradients
    {"name": "cum_concat_self_attention_train", "extern_data": _DATA, "train": True,
     "network": _loop(dict(_SELF_ATT, v={"class": "linear", "from": "data:source", "n_out": 2, "activation": None}))},
    {"name": "cum_concat_self_attention_feedback_train", "extern_data": _DATA, "train": True,
     "network": _loop(dict(_SELF_ATT), move_out=False)},
    {"name": "cum_concat_cumsum", "extern_data": _DATA,
     "network": _loop({"l": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
                       "acc": {"class": "cum_concat", "from": "l", "out_spatial_dim": _HIST2},
                       "red": {"class": "reduce", "mode": "sum", "axis": _HIST2, "from": "acc"},
                       "output": {"class": "copy", "from": "red"}}, move_out=False)},
    # training (gradients through the loops; no dropout/zoneout in these networks)
    {"name": "rec_in_loop_nativelstm2_train", "extern_data": _DATA, "train": True,
     "network": _loop({"r": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": ["data:source", "prev:r"]},
                       "output": {"class": "copy", "from": "r"}})},
    {"name": "rnn_cell_ln_lstm_joined_train", "extern_data": _DATA, "train": True,
     "network": _loop({"s": {"class": "rnn_cell", "unit": _LN, "n_out": 4, "from": ["data:source", "prev:s"],
                             "unit_opts": {"global_norm": False, "global_norm_joined": True}},
                       "output": {"class": "copy", "from": "s"}})},
    {"name": "masked_computation_loop_rnn_cell_in_loop_train", "extern_data": _DATA, "train": True,
     "network": _masked_loop({"class": "rnn_cell", "unit": "standardlstm", "n_out": 3}, feedback=True,
                             move_out=False)},
    {"name": "masked_computation_subnet_lm_train", "extern_data": _DATA, "train": True,
     "network": _masked_loop(_LM_UNIT, feedback=True)},
    # search layers (the beam search itself: the rec output with its beam, scores, source beams)
    {"name": "search_beam3_output", "extern_data": _SEARCH_DATA, "search": True, "network": _search_net({})},
    {"name": "search_decide", "extern_data": _SEARCH_DATA, "search": True, "output": "decision",
     "network": _search_net({}, {"decision": {"class": "decide", "from": "output", "is_output_layer": True}})},
    {"name": "choice_get_beam_scores_final", "extern_data": _SEARCH_DATA, "search": True, "output": "scores",
     "network": _search_net({}, {"scores": {"class": "choice_get_beam_scores", "from": "output",
                                            "is_output_layer": True}})},
    # a search over the input frames (the loop's length known): hypotheses of a shorter sequence go on past its end
    {"name": "choice_get_beam_scores_input_sync", "extern_data": _SEARCH_DATA, "search": True, "output": "scores",
     "network": {"output": {"class": "rec", "from": "data", "target": "classes", "unit": {
         "emb": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
         "s": {"class": "linear", "activation": "tanh", "from": ["emb", "data:source"], "n_out": 4},
         "prob": {"class": "softmax", "from": "s", "target": "classes"},
         "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0}}},
         "scores": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True}}},
    {"name": "choice_get_beam_scores_in_loop", "extern_data": _SEARCH_DATA, "search": True, "output": "output/sc",
     "network": _search_net({"sc": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True}})},
    {"name": "choice_get_src_beams_final", "extern_data": _SEARCH_DATA, "search": True, "output": "src",
     "network": _search_net({}, {"src": {"class": "choice_get_src_beams", "from": "output", "is_output_layer": True}})},
    {"name": "choice_get_src_beams_in_loop", "extern_data": _SEARCH_DATA, "search": True, "output": "output/src",
     "network": _search_net({"src": {"class": "choice_get_src_beams", "from": "output", "is_output_layer": True}})},
    {"name": "decide_keep_beam_in_loop", "extern_data": _SEARCH_DATA, "search": True, "output": "output/keep",
     "network": _search_net({"keep": {"class": "decide_keep_beam", "from": "output", "is_output_layer": True}})},
    {"name": "decide_keep_beam_no_search", "extern_data": _DATA, "output": "keep",
     "network": {"keep": {"class": "decide_keep_beam", "from": "data"},
                 "output": {"class": "copy", "from": "keep"}}},
    # rec_unstack, rec_last_output, cond
    {"name": "rec_unstack_moved_out", "extern_data": _DATA, "train": True,
     "network": {"lin": {"class": "linear", "from": "data", "n_out": 2, "activation": None},
                 "output": {"class": "rec", "from": "data", "unit": {
                     "u": {"class": "rec_unstack", "from": "base:lin"},
                     "a": {"class": "combine", "kind": "add", "from": ["u", "prev:a"]},
                     "output": {"class": "copy", "from": ["a", "u"]}}}}},
    {"name": "rec_unstack_declare_rec_time", "extern_data": _DATA, "train": True,
     "network": {"lin": {"class": "linear", "from": "data", "n_out": 2, "activation": None},
                 "output": {"class": "rec", "from": [], "unit": {
                     "u": {"class": "rec_unstack", "from": "base:lin", "axis": "T", "declare_rec_time": True},
                     "a": {"class": "combine", "kind": "add", "from": ["u", "prev:a"]},
                     "output": {"class": "copy", "from": "a"}}}}},
    {"name": "rec_last_output", "extern_data": _DATA, "train": True,
     "network": {"dec": {"class": "rec", "from": "data", "unit": {
                     "a": {"class": "linear", "from": ["data:source", "prev:a"], "n_out": 3, "activation": "tanh",
                           "need_last": True},
                     "output": {"class": "copy", "from": "a"}}},
                 "output": {"class": "rec_last_output", "rec_layer": "dec", "sub_layer_name": "a"}}},
    {"name": "cond_true_branch", "extern_data": _DATA,
     "network": {"r": {"class": "reduce", "mode": "max", "axis": ["B", "T", "F"], "from": "data"},
                 "c": {"class": "compare", "from": "r", "value": 0.5, "kind": "greater"},
                 "output": {"class": "cond", "condition": "c",
                            "true_layer": {"class": "linear", "from": "data", "n_out": 3, "activation": "tanh"},
                            "false_layer": {"class": "linear", "from": "data", "n_out": 3, "activation": None}}}},
    {"name": "cond_false_branch_subnetwork", "extern_data": _DATA,
     "network": {"r": {"class": "reduce", "mode": "max", "axis": ["B", "T", "F"], "from": "data"},
                 "c": {"class": "compare", "from": "r", "value": 50.0, "kind": "greater"},
                 "output": {"class": "cond", "condition": "c",
                            "true_layer": {"class": "subnetwork", "from": "data", "subnetwork": {
                                "l": {"class": "linear", "from": "data", "n_out": 3},
                                "output": {"class": "copy", "from": "l"}}},
                            "false_layer": {"class": "linear", "from": "data", "n_out": 3, "activation": None}}}},
]
