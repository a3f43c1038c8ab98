"""A searched rec layer of fixed length (``size_target``) whose decided output is the ``size_target`` of a second
rec layer (the pattern of a training network that searches an alignment in ``extra.search`` and trains on it).

As the reference (observed): the decided output keeps the target's time axis (not a new axis of the chosen
lengths), so the second loop runs over the target's frames, its ``choice`` in training is one frame of the
target, and the trainable ``initial_output: "var"`` of a layer of both units is one variable of the frame shape.
Before, the second loop took the target's whole ``[B, T]`` as the frame: "Trying to share variable
output/rec/target_embed/init_target_embed_var, but specified shape (None, 6) and found shape (6,)".
"""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def _unit(search: bool, beam_size: int) -> dict:
    return {
        "s": {"class": "linear", "activation": "tanh", "from": ["prev:target_embed"], "n_out": 8},
        "prob": {"class": "softmax", "from": "s", "target": "classes", "loss": None if search else "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": beam_size,
                   "initial_output": 0},
        "target_embed": {"class": "linear", "activation": None, "with_bias": False, "from": "output", "n_out": 6,
                         "initial_output": "var"},
    }


def _net_dict(beam_size: int) -> dict:
    return {
        "extra.search:output": {"class": "rec", "from": [], "unit": _unit(True, beam_size), "target": "classes",
                                "size_target": "classes"},
        "extra.search:decided": {"class": "decide", "from": "extra.search:output"},
        "align": {"class": "copy", "from": "extra.search:decided", "register_as_extern_data": "align"},
        "output": {"class": "rec", "from": [], "unit": _unit(False, beam_size), "target": ["classes", "align"],
                   "size_target": "align"},
    }


def _build(beam_size: int) -> TFNetwork:
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 5}, "classes": {"dim": 7, "sparse": True}}}),
                    train_flag=True, eval_flag=True)
    net.construct_from_dict(_net_dict(beam_size))
    return net


# observed from the reference on this network (the same with beam size 1 and 3)
REFERENCE_PARAMS = {
    "output/rec/prob/W": [8, 7],
    "output/rec/prob/b": [7],
    "output/rec/s/W": [6, 8],
    "output/rec/s/b": [8],
    "output/rec/target_embed/W": [7, 6],
    "output/rec/target_embed/init_target_embed_var": [6],
}


@pytest.mark.parametrize("beam_size", [1, 3])
def test_decided_fixed_length_search_as_size_target_params_like_reference(session, beam_size):
    net = _build(beam_size)
    params = {v.name[:-2]: v.shape.as_list() for v in tf.compat.v1.trainable_variables()}
    assert params == REFERENCE_PARAMS
    classes_time = net.extern_data.data["classes"].get_time_dim_tag()
    decided = net.extra_nets["extra.search"].layers["decided"].output
    assert decided.get_time_dim_tag() == classes_time
    assert net.extern_data.data["align"].get_time_dim_tag() == classes_time
    assert net.layers["output"].output.get_time_dim_tag() == classes_time


def test_decided_fixed_length_search_values_like_reference(session):
    net = _build(3)
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(1)
    for var in sorted(tf.compat.v1.trainable_variables(), key=lambda v: v.name):
        var.load(rs.uniform(-2, 2, var.shape.as_list()), session)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    feed = {data.placeholder: np.zeros((2, 4, 5), "float32"), data.size_placeholder[0]: [4, 2],
            classes.placeholder: [[1, 2, 3, 4], [5, 6, 0, 0]], classes.size_placeholder[0]: [4, 2]}
    decided = net.extra_nets["extra.search"].layers["decided"].output
    dec, dec_lens, align, loss = session.run(
        [decided.placeholder, decided.get_sequence_lengths(), net.extern_data.data["align"].placeholder,
         net.get_total_loss()], feed)
    # observed from the reference with the same params (loaded in the order of the sorted names)
    assert dec.tolist() == [[2, 5, 3, 2], [2, 5, 0, 0]]
    assert dec_lens.tolist() == [4, 2]  # the target's lengths
    assert align.tolist() == dec.tolist()
    np.testing.assert_allclose(loss, 39.57253646850586, rtol=1e-5)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_decide_time_axis_of_searched_lengths(session, beam_size):
    """A search that ends by its ``end`` layer: with a beam of 1 the decided output has the rec layer's time axis
    (the reference: the same axis with any beam; here a beam of K > 1 gives a new axis, as its lengths are per
    sequence, not per hypothesis)."""
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}}),
                    train_flag=False, search_flag=True)
    net.construct_from_dict({
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": {
            "output": {"class": "choice", "target": "classes", "beam_size": beam_size, "from": "prob",
                       "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5}}},
        "dec": {"class": "decide", "from": "output", "is_output_layer": True}})
    rec_time = net.layers["output"].output.get_time_dim_tag()
    dec_time = net.layers["dec"].output.get_time_dim_tag()
    assert (dec_time == rec_time) == (beam_size == 1)
    assert dec_time != net.extern_data.data["classes"].get_time_dim_tag()
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    lens = session.run(net.layers["dec"].output.get_sequence_lengths(),
                       {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 4]})
    assert lens.shape == (2,)
