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


def _loss_value_case(name, loss_layer, extern_data=None, **extra_layers):
    """The output is an ``eval`` of the summed loss value of layer ``sm`` (a scalar), as both sides compute it."""
    net = dict(extra_layers)
    net["sm"] = loss_layer
    net["output"] = {"class": "eval", "from": "sm", "out_type": {"shape": (), "batch_dim_axis": None,
                                                                 "time_dim_axis": None, "dim": None},
                     "eval": "self.network.get_losses_initialized()[0]['sm'].get_loss_value()"
                             " + 0.0 * tf.reduce_sum(source(0, auto_convert=False, as_data=True).placeholder)"}
    return {"name": name, "extern_data": extern_data or _DATA, "network": net}


def _sampling_case(name, **opts):
    sm = {"class": "softmax", "from": "emb", "use_transposed_weights": True, "loss": "sampling_loss",
          "target": "data", "loss_opts": {"num_sampled": 5, **opts}}
    return _loss_value_case(name, sm, _LM_DATA,
                            emb={"class": "linear", "activation": "tanh", "n_out": 6, "from": "data"})


CASES = [
    _loss_case("loss_ce", "ce"),
    _loss_case("loss_ce_label_smoothing", "ce", loss_opts_={"label_smoothing": 0.1}),
    _loss_case("loss_ce_focal", "ce", loss_opts_={"focal_loss_factor": 2.0}),
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
]
