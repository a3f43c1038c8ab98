"""The layers a rec layer's ``max_seq_len`` refers to (``max_len_from('base:enc')``) are built with it, also
when the loop's length comes from the target or input and the expression is not evaluated, as the reference
(observed: ``enc`` is among the network's layers and its params exist)."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}
UNITS = {
    "moved_out": {"output": {"class": "linear", "from": "data:source", "n_out": 5, "activation": "softmax",
                             "loss": "ce", "target": "classes"}},
    "loop": {"output": {"class": "choice", "target": "classes", "beam_size": 2, "from": "prob", "initial_output": 0},
             "end": {"class": "compare", "from": "output", "value": 0},
             "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
             "prob": {"class": "softmax", "from": "emb", "target": "classes", "loss": "ce"}},
}


@pytest.mark.parametrize("train_flag", [True, False])
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_max_len_from_layer_is_built(session, unit, train_flag):
    net = build_net({"enc": {"class": "linear", "from": "data", "n_out": 4, "L2": 0.1},
                     "output": {"class": "rec", "from": "data" if unit == "moved_out" else [], "target": "classes",
                                "max_seq_len": "max_len_from('base:enc') * 2", "unit": UNITS[unit]}},
                    EXTERN, train_flag=train_flag)
    assert "enc" in net.layers
    assert {"enc/W:0", "enc/b:0"} <= {v.name for v in tf.compat.v1.global_variables()}
    session.run(tf.compat.v1.global_variables_initializer())
    assert session.run(net.get_total_constraints()) > 0  # enc's L2 counts, as in the reference


def test_max_seq_len_without_layer_reference(session):
    net = build_net({"enc": {"class": "linear", "from": "data", "n_out": 4},
                     "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 7,
                                "unit": UNITS["loop"]}}, EXTERN, train_flag=True)
    assert "enc" not in net.layers
