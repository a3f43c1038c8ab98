"""In a searched rec loop, each layer of the step has the search choices of the hypotheses its rows are, as the
reference (observed, test_rec_layer_search_select_src): those of the step's choice after it, those of the previous
step's choice (``prev:output``) before it; ``get_src_choices_seq`` follows them back one step."""

from returnn.config import Config
from returnn.tf.layers.core.search_choices import SearchChoices
from returnn.tf.layers.rec import RecLayer
from returnn.tf.network import TFNetwork


def _search_net(unit):
    config = Config({"extern_data": {"data": {"dim": 3, "sparse": True},
                                     "classes": {"dim": 4, "sparse": True, "available_for_inference": False}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False)
    net.construct_from_dict({
        "enc": {"class": "linear", "from": "data", "n_out": 3, "activation": None},
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 3, "unit": unit}})
    return net


def test_layers_have_the_search_choices_of_their_rows(session):
    net = _search_net({
        "embed": {"class": "linear", "from": "output", "n_out": 3, "activation": None},
        "s": {"class": "rnn_cell", "unit": "standardlstm", "from": ["prev:embed", "att"], "n_out": 3},
        "s_tr": {"class": "linear", "from": "prev:s", "n_out": 3, "activation": None},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc", "s_tr"]},
        "energy": {"class": "linear", "from": "energy_in", "n_out": 1, "activation": "tanh"},
        "att_w": {"class": "softmax_over_spatial", "from": "energy"},
        "att": {"class": "generic_attention", "weights": "att_w", "base": "base:enc"},
        "prob": {"class": "softmax", "from": ["s", "att"], "target": "classes"},
        "output": {"class": "choice", "from": "prob", "beam_size": 2, "target": "classes", "initial_output": 0},
        "after": {"class": "combine", "kind": "add", "from": ["embed", "att"], "is_output_layer": True},
        "end": {"class": "compare", "from": "output", "value": 0},
    })
    loop_net = net.layers["output"].cell.net
    cur = loop_net.layers["output"].search_choices
    assert isinstance(cur, SearchChoices) and cur.beam_size == 2
    prev_layer = loop_net.layers["prev:output"]  # not read by the unit: only the previous step's selection
    prev = prev_layer.search_choices
    assert RecLayer.is_prev_step_layer(prev.owner) and not RecLayer.is_prev_step_layer(loop_net.layers["output"])
    assert cur.get_src_choices_seq() == [cur, prev]
    assert prev.get_src_choices_seq() == [prev]
    for name in ("output", "end", "embed", "after"):
        assert loop_net.layers[name].get_search_choices() == cur, name
    for name in ("prev:embed", "prev:s", "s_tr", "energy_in", "s", "energy", "att_w", "att", "prob"):
        assert loop_net.layers[name].get_search_choices() == prev, name
    assert loop_net.layers["end"].get_search_choices() is not prev


def test_no_search_choices_in_training(session):
    config = Config({"extern_data": {"data": {"dim": 3, "sparse": True}, "classes": {"dim": 4, "sparse": True}}})
    net = TFNetwork(config=config, train_flag=True)
    net.construct_from_dict({"output": {"class": "rec", "from": [], "target": "classes", "unit": {
        "embed": {"class": "linear", "from": "prev:output", "n_out": 3, "activation": None},
        "prob": {"class": "softmax", "from": "embed", "target": "classes", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "beam_size": 2, "target": "classes", "initial_output": 0}}}})
    assert net.get_search_choices(src=net.layers["output"]) is None
