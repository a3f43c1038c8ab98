"""``choice`` with ``input_type="regression"`` in a search: the chosen value is the source's value itself (no labels,
the hypotheses' scores unchanged), so the loop feeds back its own predictions: the same network without search,
given those predictions as the target frames, gives the same outputs (as the reference's test_regression_choice
searches with such a network)."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.tf.network import TFNetwork

UNIT = {
    "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["prev:c", "feedback"], "n_out": 4},
    "c_in": {"class": "linear", "activation": "tanh", "from": ["s"], "n_out": 4},
    "c": {"class": "dot_attention", "from": ["c_in"], "base": "base:encoder", "base_ctx": "base:encoder"},
    "output": {"class": "linear", "from": ["s", "c"], "n_out": 2, "activation": None},
    "choice": {"class": "choice", "beam_size": 1, "input_type": "regression", "from": "output", "target": "data",
               "n_out": 2},
    "feedback": {"class": "linear", "from": "prev:choice", "n_out": 3, "activation": "tanh"},
}
EXTERN = {"data": {"dim": 2}, "classes": {"dim": 3, "sparse": True}}


def _run(search, values, feed_fn):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, search_flag=search)
        net.construct_from_dict({
            "encoder": {"class": "linear", "activation": "tanh", "from": "data:classes", "n_out": 4},
            "output": {"class": "rec", "from": [], "unit": UNIT, "max_seq_len": 4, "target": "data"}})
        params = {v.name[:-2]: v for v in tf.compat.v1.global_variables()}
        session.run(tf.compat.v1.global_variables_initializer())
        rs = np.random.RandomState(7)
        for name in sorted(params):
            params[name].load(values.setdefault(name, rs.uniform(-1, 1, params[name].shape.as_list())), session)
        out = net.get_layer("output").output.copy_as_batch_major()
        return session.run(out.placeholder, feed_fn(net.extern_data.data))


def test_regression_choice_feeds_back_its_own_values():
    values = {}
    classes = {"classes": np.array([[1, 2, 0], [2, 1, 1]]), "classes_len": np.array([3, 2])}

    def search_feed(ed):
        return {ed["classes"].placeholder: classes["classes"], ed["classes"].size_placeholder[0]: classes["classes_len"]}

    def search_feed_with_dummy_data(ed):  # the search does not read the data's values (only its batch size here)
        return {**search_feed(ed), ed["data"].placeholder: np.full((2, 1, 2), np.nan, "float32"),
                ed["data"].size_placeholder[0]: np.array([1, 1])}

    pred = _run(True, values, search_feed_with_dummy_data)  # [B, T=4, 2]: runs for max_seq_len (no end layer)
    assert pred.shape == (2, 4, 2) and np.abs(pred).sum() > 0

    def forced_feed(ed):
        return {**search_feed(ed), ed["data"].placeholder: pred, ed["data"].size_placeholder[0]: np.array([4, 4])}

    forced = _run(False, values, forced_feed)
    np.testing.assert_allclose(forced, pred, rtol=1e-5, atol=1e-6)
