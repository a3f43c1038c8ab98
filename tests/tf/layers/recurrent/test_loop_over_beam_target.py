"""A training loop over the frames of a target that holds a search's hypotheses (batch ``B*K``, e.g. a teacher's
beam registered as data): the layers outside the loop are tiled into the beam, as the reference (observed:
test_target_with_beam, the student's output has ``K`` times the input's batch)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_student_loop_over_teacher_hypotheses(session):
    beam = 3
    teacher_unit = {
        "embed": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
        "prob": {"class": "softmax", "from": ["embed", "base:enc_sum"], "target": "classes"},
        "output": {"class": "choice", "from": "prob", "beam_size": beam, "target": "classes", "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
    }
    student_unit = {
        "embed": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
        "x": {"class": "combine", "kind": "add", "from": ["embed", "base:enc_sum"]},
        "prob": {"class": "softmax", "from": "x", "target": "hyps", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "beam_size": beam, "target": "hyps", "initial_output": 0},
    }
    net_dict = {
        "enc": {"class": "linear", "from": "data", "n_out": 4, "activation": None},
        "enc_sum": {"class": "reduce", "mode": "sum", "axis": "T", "from": "enc"},
        "teacher": {"class": "rec", "from": [], "unit": teacher_unit, "target": "classes", "max_seq_len": 4,
                    "trainable": False},
        "hyps": {"class": "copy", "from": "extra.search:teacher", "register_as_extern_data": "hyps"},
        "student": {"class": "rec", "from": [], "unit": student_unit, "target": "hyps"},
        "output": {"class": "copy", "from": "student"},
    }
    config = Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True,
                                                                      "available_for_inference": False}}})
    net = TFNetwork(config=config, train_flag=True)
    net.construct_from_dict(net_dict)
    session.run(tf.compat.v1.global_variables_initializer())
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    rnd = np.random.RandomState(1)
    feed = {data.placeholder: rnd.normal(size=(2, 5, 2)), data.size_placeholder[0]: [5, 3],
            classes.placeholder: [[1, 2, 0], [3, 0, 0]], classes.size_placeholder[0]: [3, 2]}
    hyps = net.extern_data.data["hyps"]
    out, hyps_value, loss = session.run((net.layers["output"].output.placeholder, hyps.placeholder,
                                         net.get_total_loss()), feed_dict=feed)
    assert out.shape[1] == 2 * beam  # [T, B*K]
    np.testing.assert_array_equal(out, hyps_value)  # in training, the choice gives its target: the hypotheses
    assert np.isfinite(loss)
