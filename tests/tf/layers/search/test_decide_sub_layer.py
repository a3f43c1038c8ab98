"""``decide`` from a layer of a searched rec unit (``"output/t"``, an ``is_output_layer`` of the loop): the chosen
hypothesis's frames, one row per sequence, as observed from the reference on the same network and params."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_decide_sub_layer_of_searched_loop_like_reference(session):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}}),
                    train_flag=False, search_flag=True)
    net.construct_from_dict({
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": {
            "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "prob", "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0},
            "t": {"class": "eval", "from": "output", "eval": "source(0) * 10 + 1", "is_output_layer": True,
                  "out_type": {"dtype": "int32", "sparse": False, "dim": None}},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5}}},
        "dec": {"class": "decide", "from": "output", "is_output_layer": True},
        "dec_t": {"class": "decide", "from": "output/t", "is_output_layer": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in tf.compat.v1.trainable_variables():
        var.load(rs.uniform(-2, 2, var.shape.as_list()), session)
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 4]}
    dec, dec_t = session.run([net.layers[n].output.copy_as_batch_major().placeholder for n in ("dec", "dec_t")],
                             feed)
    assert dec.tolist() == [[3] * 6] * 2
    assert dec_t.tolist() == [[31] * 6] * 2  # before: all 6 hypotheses, [B*K, T]
