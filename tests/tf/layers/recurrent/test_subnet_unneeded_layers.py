"""A rec unit's layers that nothing needs are never constructed, as the reference (observed): in training, the
sources of a ``choice`` (e.g. an LM ``subnetwork`` dict of an old RETURNN version, with ``load_from``) and unused
layers may even be invalid; in search, the choice's sources are needed and their errors are raised."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net

from returnn.errors import LayerArgError, UnknownNameError
from returnn.tf.network import TFNetwork
from returnn.config import Config

tf.compat.v1.disable_eager_execution()

_EXTERN = {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}}
_LEGACY_LM = {"class": "subnetwork", "load_from": "/nonexistent/network.027", "from": ["prev:output"],
              "network": {"input": {"class": "linear", "n_out": 4, "activation": "identity"},
                          "output": {"class": "softmax", "loss": "ce", "target": "classes", "from": ["input"]}}}


def _net(lm, lm_used_by_choice=True):
    return {"output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": {
        "lm": lm,
        "comb": {"class": "eval", "from": ["prob", "lm"] if lm_used_by_choice else ["prob"], "eval": "source(0)"},
        "prob": {"class": "softmax", "from": "prev:output", "target": "classes", "loss": "ce"},
        "output": {"class": "choice", "from": "comb", "target": "classes", "beam_size": 2, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0}}}}


def _search_net(net_dict):
    net = TFNetwork(config=Config({"extern_data": _EXTERN}), train_flag=False, search_flag=True)
    net.construct_from_dict(net_dict)
    return net


@pytest.mark.parametrize("lm", [_LEGACY_LM, {"class": "linearxx", "from": "prev:output", "n_out": 5},
                                {"class": "linear", "bogus_arg": 1, "from": "prev:output", "n_out": 5}])
def test_training_never_constructs_the_choice_sources(session, lm):
    net = build_net(_net(lm), extern_data=_EXTERN)
    # as the reference: only the loss layer's params (lm and comb are not constructed)
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == ["output/rec/prob/W:0", "output/rec/prob/b:0"]
    assert net.get_layer("output").output.sparse_dim.dimension == 5


def test_search_raises_the_choice_source_error(session):
    with pytest.raises(LayerArgError, match="unknown argument 'load_from'"):
        _search_net(_net(_LEGACY_LM))
    with pytest.raises(UnknownNameError, match="linearxx"):
        _search_net(_net({"class": "linearxx", "from": "prev:output", "n_out": 5}))


def test_search_ignores_an_unused_invalid_layer(session):
    net = _search_net(_net({"class": "linearxx", "from": "prev:output", "n_out": 5}, lm_used_by_choice=False))
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == ["output/rec/prob/W:0", "output/rec/prob/b:0"]
    assert net.get_layer("output").output.dtype == "int32"


def test_needed_invalid_layer_is_still_an_error(session):
    d = _net({"class": "linear", "bogus_arg": 1, "from": "prev:output", "n_out": 5}, lm_used_by_choice=False)
    d["output"]["unit"]["prob"]["from"] = ["prev:output", "lm"]
    with pytest.raises(LayerArgError, match="unknown argument 'bogus_arg'"):
        build_net(d, extern_data=_EXTERN)


def test_unused_layer_naming_a_missing_layer(session):
    # as the reference (a published RNN-T config keeps a masked_computation of a layer it removed): only an error
    # where the layer is needed
    from returnn.tf.network import LayerNotFound

    build_net(_net({"class": "linear", "from": "prev:no_such_layer", "n_out": 5}, lm_used_by_choice=False),
              extern_data=_EXTERN)
    with pytest.raises(LayerNotFound, match="no_such_layer"):
        _search_net(_net({"class": "linear", "from": "no_such_layer", "n_out": 5}))


def test_base_layer_read_only_by_an_unused_layer_is_not_built(session):
    # as the reference (a published RNN-T config without attention keeps the attention's window gather_nd of
    # base:enc_ctx_win, whose linear enc_ctx0 the reference never builds: no enc_ctx0/W)
    unit = dict(_net({"class": "gather_nd", "from": "base:enc_ctx", "position": ":i"}, lm_used_by_choice=False)
                ["output"]["unit"])
    build_net({"enc_ctx": {"class": "linear", "from": "data", "n_out": 3},
               "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": unit}},
              extern_data=_EXTERN)
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == ["output/rec/prob/W:0", "output/rec/prob/b:0"]
