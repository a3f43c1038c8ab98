"""Config ``search_train_network_layers``: in training, the named layers (and what they read) are also built with
the search flag, as ``"extra.search:<name>"`` layers of the network, as the reference's engine (observed: a rec
layer with ``only_on_search`` and a ``decide`` layer on it are built there; their losses are the network's)."""

from returnn.config import Config
from returnn.datasets.generating import DummyDataset
from returnn.tf.engine import Engine


def test_layers_built_in_the_extra_search_network(tmp_path):
    dataset = DummyDataset(input_dim=2, output_dim=4, num_seqs=2, seq_len=3)
    dataset.init_seq_order(epoch=1)
    net = {
        "encoder": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"},
        "enc_prob": {"class": "softmax", "from": "encoder", "loss": "ce", "target": "classes"},
        "output": {"class": "rec", "from": [], "only_on_search": True, "target": "classes",
                   "max_seq_len": "max_len_from('base:encoder')", "unit": {
                       "emb": {"class": "linear", "from": "prev:output", "n_out": 3},
                       "prob": {"class": "softmax", "from": ["emb", "base:enc_last"], "target": "classes"},
                       "output": {"class": "choice", "target": "classes", "beam_size": 2, "from": "prob",
                                  "initial_output": 0},
                       "end": {"class": "compare", "from": "output", "value": 0}}},
        "enc_last": {"class": "reduce", "mode": "max", "axis": "T", "from": "encoder"},
        "decision": {"class": "decide", "from": "output", "loss": "edit_distance", "only_on_search": True},
    }
    config = Config({"model": str(tmp_path / "model"), "num_epochs": 1, "batch_size": 100,
                     "extern_data": {"data": {"dim": 2}, "classes": {"dim": 4, "sparse": True}}, "network": net,
                     "search_train_network_layers": ["output", "decision"]})
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=dataset)
    layers = engine.network.layers
    assert "output" not in layers and "decision" not in layers  # only_on_search: not in the training network
    assert layers["extra.search:output"].network.search_flag
    assert layers["extra.search:output"].output.beam is not None
    assert "decision" in engine.network.losses_dict and "enc_prob" in engine.network.losses_dict
    # the params are shared: one encoder
    assert sorted(v.op.name for v in engine.network.get_params_list() if v.op.name.startswith("encoder")) == [
        "encoder/W", "encoder/b"]
    engine.finalize()
