"""Beam search with a stateful layer after the choice (``rnn_cell`` fed by the chosen label's embedding, as the
2018-attention ``blocks-flstm`` decoders): each new hypothesis continues the cell state of the hypothesis it comes
from. The hypotheses (after backtracking) are those observed from the reference on the same net and params."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork

tf.compat.v1.disable_eager_execution()


def _search(with_prev_state: bool, self_att: bool = False):
    cfg = Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}}})
    net = TFNetwork(config=cfg, train_flag=False, search_flag=True)
    unit = {
        "emb": {"class": "linear", "from": "output", "n_out": 3, "activation": None, "initial_output": 0},
        "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["emb", "base:enc"], "n_out": 4},
        "prob": {"class": "softmax", "from": ["prev:s"], "target": "classes"},
        "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes"},
        "end": {"class": "compare", "from": "output", "value": 0}}
    if self_att:  # a decoder self-attention over the chosen labels: its keys/values history is the state
        unit["e2"] = {"class": "combine", "kind": "add", "from": ["emb", "base:encp"]}
        unit["s0"] = {"class": "self_attention", "from": "e2", "num_heads": 1, "total_key_dim": 4, "n_out": 4,
                      "attention_left_only": True}
        unit["s"] = {"class": "copy", "from": ["s0", "emb"]}
    if with_prev_state:
        unit["hs"] = {"class": "get_last_hidden_state", "from": "prev:s", "n_out": 8}
        unit["prob"]["from"] = ["prev:s", "hs"]
    net.construct_from_dict({
        "enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
        "encp": {"class": "linear", "from": "enc", "n_out": 3},
        "output": {"class": "rec", "from": [], "max_seq_len": 4, "target": "classes", "unit": unit}})
    return net


def _run(session, net):
    for v in sorted(tf.compat.v1.global_variables(), key=lambda v: v.name):
        shape = v.shape.as_list()
        session.run(v.assign(np.sin(np.arange(int(np.prod(shape))) * 1.3 + len(v.name)).reshape(shape) * 4.0))
    data = net.extern_data.data["data"]
    x = np.random.RandomState(3).randn(2, 3, 2).astype("float32")
    return session.run(net.get_layer("output").output.placeholder, {data.placeholder: x, data.size_placeholder[0]: [3, 2]})


def test_rnn_cell_after_choice_continues_the_source_hypothesis_state(session):
    beams = _run(session, _search(with_prev_state=False))  # [T, B*beam]
    assert beams.tolist() == [[1, 2, 1, 1, 2, 1], [1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [1, 1, 2, 1, 1, 2]]


def test_prev_hidden_state_in_search(session):
    beams = _run(session, _search(with_prev_state=True))
    assert beams.tolist() == [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 0, 1]]


def test_self_attention_after_choice_continues_the_source_hypothesis_history(session):
    beams = _run(session, _search(with_prev_state=False, self_att=True))
    assert beams.tolist() == [[1, 2, 0, 1, 1, 2], [0, 1, 0, 4, 0, 1], [0, 2, 0, 1, 0, 2], [0, 1, 0, 1, 0, 1]]
