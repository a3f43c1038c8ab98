"""returnn/tf/tools/rec_step_by_step.py (``tools/compile_tf_graph.py --rec_step_by_step``): the state vars and the
JSON description as the reference's tool writes them, and the values of a step-by-step decoding (init, update,
scores, choice, decode) equal to those observed with the reference's graph (same params, inputs and labels)."""

import zlib

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.options import DataOptions
from returnn.tf.engine import network_setup
from returnn.tf.tools.rec_step_by_step import build_step_by_step_network

# the unit of test_tools.py's encoder-decoder config (an LSTM whose input is the previous label's embedding)
LSTM_UNIT = {
    "embed": {"class": "linear", "from": "prev:output", "activation": "sigmoid", "n_out": 3},
    "s": {"class": "rec", "unit": "lstm", "from": ["embed", "base:enc1"], "n_out": 3},
    "prob": {"class": "softmax", "from": "s", "loss": "ce", "target": "classes"},
    "output": {"class": "choice", "beam_size": 4, "from": "prob", "target": "classes", "initial_output": 0},
    "end": {"class": "compare", "from": "output", "value": 0},
}
# a unit whose "embed" reads the step's own choice: it is kept for the next step via the delayed update
DELAYED_UNIT = {
    "embed": {"class": "linear", "from": "output", "activation": "sigmoid", "n_out": 3},
    "s": {"class": "linear", "from": ["prev:embed", "base:enc1", "prev:s"], "activation": "tanh", "n_out": 3},
    "prob": {"class": "softmax", "from": "s", "loss": "ce", "target": "classes"},
    "output": {"class": "choice", "beam_size": 4, "from": "prob", "target": "classes", "initial_output": 0},
    "end": {"class": "compare", "from": "output", "value": 0},
}
# the transducer unit of test_tools.py's "time sync delayed" config: two LSTMs, one after the choice
TSD_UNIT = {
    "s": {"class": "rec", "unit": "lstm", "from": ["prev:embed", "prev:s2", "data:source"], "n_out": 3},
    "prob": {"class": "softmax", "from": "s", "loss": "ce", "target": "classes"},
    "output": {"class": "choice", "beam_size": 4, "from": "prob", "target": "classes", "initial_output": 0},
    "embed": {"class": "linear", "from": "output", "activation": "sigmoid", "n_out": 3},
    "s2": {"class": "rec", "unit": "lstm", "from": ["embed", "prev:s"], "n_out": 3},
}


def _net_dict(unit, rec_from=()):
    return {
        "enc0": {"class": "linear", "from": "data", "activation": "sigmoid", "n_out": 3},
        "enc1": {"class": "reduce", "mode": "max", "axis": "t", "from": "enc0"},
        "output": {"class": "rec", "from": list(rec_from), "target": "classes", "unit": unit},
        "decision": {"class": "decide", "from": "output", "loss": "edit_distance"},
    }


def _build(net_dict, rec_name="output"):
    config = Config()
    config.update({"network": net_dict, "num_inputs": 5, "num_outputs": 3})
    extern_data = network_setup.create_extern_data(DataOptions.from_config(config))
    return build_step_by_step_network(config, extern_data=extern_data, net_dict=net_dict, rec_name=rec_name)


def _var(shape, dtype="float32", name=""):
    return {"dtype": dtype, "shape": shape, "var_op": "IO/" + name}


def test_json_as_reference():
    """The description of the LSTM unit, as the reference's tool wrote it for the same config."""
    with tf.Graph().as_default():
        _, step = _build(_net_dict(LSTM_UNIT))
        state_vars = {"base_value_enc1": ([None, 3], "float32"), "cond": ([], "bool"),
                      "dyn_seq_len": ([None], "int32"), "end_flag": ([None], "bool"), "i": ([], "int32"),
                      "state/s/extra/state/c": ([None, 3], "float32"), "state/s/extra/state/h": ([None, 3], "float32"),
                      "state_delayed/output/output": ([None], "int32"),
                      "stochastic_var_choice_output": ([None], "int32"),
                      "stochastic_var_scores_output": ([None, 3], "float32")}
        assert step.info() == {
            "init_op": "rec_step_by_step_init_op",
            "state_vars": {k: _var(shape, dtype, k) for k, (shape, dtype) in state_vars.items()},
            "stochastic_var_order": ["output"],
            "stochastic_vars": {"output": {"calc_scores_op": "final_state_var_stochastic_var_scores_output",
                                           "choice_state_var": "stochastic_var_choice_output",
                                           "scores_state_var": "stochastic_var_scores_output"}}}
        # the collections a decoder reads (the reference's graph has these)
        names = lambda key: [getattr(x, "name", x) for x in tf.compat.v1.get_collection(key)]  # noqa: E731
        assert names("_RETURNN_state_vars") == [
            "IO/dyn_seq_len:0", "IO/end_flag:0", "IO/state/s/extra/state/c:0", "IO/state/s/extra/state/h:0",
            "IO/state_delayed/output/output:0"]
        assert names("encode_ops") == ["rec_step_by_step_init_op"]
        assert names("decode_ops") == ["group_deps"]
        assert names("decoder_input_vars") == ["IO/stochastic_var_choice_output:0"]
        assert names("decoder_output_vars") == ["IO/stochastic_var_scores_output:0"]
        assert [p.name for p in step.params] == [
            "output/rec/embed/W:0", "output/rec/embed/b:0", "output/rec/prob/W:0", "output/rec/prob/b:0",
            "output/rec/s/rec/W:0", "output/rec/s/rec/W_re:0", "output/rec/s/rec/b:0"]


def test_delayed_state_vars_of_transducer_as_reference():
    """Layers after the choice that the next step reads (``embed``, ``s2``) are delayed; ``s``, read by ``s2`` via
    ``prev:``, gets delayed copies (as the reference's state vars, observed)."""
    net_dict = _net_dict(TSD_UNIT, rec_from=["enc0"])
    with tf.Graph().as_default():
        _, step = _build(net_dict)
        assert sorted(step.info()["state_vars"]) == [
            "base_size_time__var__extern_data__data", "base_value_enc0", "cond", "i",
            "state/s/extra/state/c", "state/s/extra/state/h", "state/s/output", "state_delayed/embed/output",
            "state_delayed/s/extra/state/c", "state_delayed/s/extra/state/h", "state_delayed/s/output",
            "state_delayed/s2/extra/state/c", "state_delayed/s2/extra/state/h", "state_delayed/s2/output",
            "stochastic_var_choice_output", "stochastic_var_scores_output"]
        assert step.info()["state_vars"]["base_value_enc0"]["shape"] == [None, None, 3]


def test_decoding_values_as_reference():
    """init, then per step: update, scores, the labels written, decode, ``i`` + 1; params set by name (a seed per
    name), values observed with the reference's graph of the same config."""
    with tf.Graph().as_default() as graph:
        network, step = _build(_net_dict(DELAYED_UNIT))
        session = tf.compat.v1.Session(graph=graph)
        params = sorted([v for v in tf.compat.v1.global_variables() if not v.name.startswith("IO/")],
                        key=lambda v: v.name)
        assert [v.name for v in params] == [
            "enc0/W:0", "enc0/b:0", "output/rec/embed/W:0", "output/rec/embed/b:0", "output/rec/prob/W:0",
            "output/rec/prob/b:0", "output/rec/s/W:0", "output/rec/s/b:0"]
        for v in params:
            value = np.random.RandomState(zlib.crc32(v.name.encode())).uniform(-0.5, 0.5, v.shape.as_list())
            session.run(v.initializer)
            v.load(value.astype("float32"), session)
        data = network.extern_data.data["data"]
        x = np.random.RandomState(1).randn(2, 4, 5).astype("float32")
        session.run(step.init_op, feed_dict={data.placeholder: x, data.get_sequence_lengths(): [4, 3]})
        state = {name: var.var for name, var in step.state_vars.items()}
        label = tf.compat.v1.placeholder(tf.int32, [None])
        set_label = tf.raw_ops.AssignVariableOp(resource=state["stochastic_var_choice_output"].handle, value=label)
        new_i = tf.compat.v1.placeholder(tf.int32, [])
        set_i = tf.raw_ops.AssignVariableOp(resource=state["i"].handle, value=new_i)
        scores_op = step.stochastic_vars["output"]["calc_scores_op"]
        scores, after_update, after_decode = [], {}, {}
        for i, labels in enumerate([[1, 2], [2, 1], [0, 1], [1, 1]]):
            session.run(step.update_op)
            after_update[i] = session.run({k: v.read_value() for k, v in state.items() if k.startswith("state")})
            session.run(graph.get_operation_by_name(scores_op))
            scores.append(session.run(state["stochastic_var_scores_output"].read_value()))
            session.run(set_label, feed_dict={label: labels})
            session.run(step.decode_op)
            after_decode[i] = session.run({k: state[k].read_value() for k in ("cond", "end_flag", "dyn_seq_len")})
            session.run(set_i, feed_dict={new_i: i + 1})
    np.testing.assert_allclose(scores, [
        [[-0.931261, -1.43162, -1.002334], [-0.937261, -1.45275, -0.982498]],
        [[-0.898857, -1.401277, -1.059344], [-0.889895, -1.401571, -1.06976]],
        [[-0.887004, -1.384819, -1.08547], [-0.904741, -1.424862, -1.036168]],
        [[-0.918604, -1.393851, -1.041837], [-0.901384, -1.425154, -1.039811]]], atol=1e-5)
    # update at i=1: "embed" of the labels of step 0 ([1, 2]) into state_delayed
    np.testing.assert_allclose(after_update[1]["state_delayed/embed/output"],
                               [[0.420965, 0.467491, 0.389972], [0.544985, 0.673136, 0.452034]], atol=1e-5)
    np.testing.assert_allclose(after_update[1]["state/s/output"],
                               [[0.021939, 0.273633, -0.526969], [0.077813, 0.228229, -0.548532]], atol=1e-5)
    # at i=0 nothing is updated (the initial output stays)
    np.testing.assert_array_equal(after_update[0]["state_delayed/embed/output"], np.zeros((2, 3)))
    # label 0 ends a sequence: sequence 0 at step 2 (length 2), sequence 1 never (length 4)
    assert after_decode[2]["end_flag"].tolist() == [True, False] and after_decode[2]["dyn_seq_len"].tolist() == [2, 3]
    assert after_decode[3]["end_flag"].tolist() == [True, False] and after_decode[3]["dyn_seq_len"].tolist() == [2, 4]
    assert after_decode[3]["cond"]


def test_bad_rec_name():
    with tf.Graph().as_default():
        with pytest.raises(LayerArgError, match="rec layer with a unit dict") as exc:
            _build(_net_dict(LSTM_UNIT), rec_name="enc0")
    assert list(exc.value.suggestions) == ["output"]


# test_tools.py's attention config: MLP attention with fertility, accumulated weights, an LSTM decoder
ATT_NET = {
    "encoder": {"class": "linear", "from": "data", "activation": "sigmoid", "n_out": 3},
    "enc_ctx": {"class": "linear", "from": "encoder", "n_out": 10},
    "inv_fertility": {"class": "linear", "activation": "sigmoid", "with_bias": False, "from": "encoder", "n_out": 1},
    "output": {"class": "rec", "from": [], "target": "classes", "unit": {
        "weight_feedback": {"class": "linear", "activation": None, "with_bias": False,
                            "from": "prev:accum_att_weights", "n_out": 10},
        "prev_s_transformed": {"class": "linear", "activation": None, "with_bias": False, "from": "prev:s",
                               "n_out": 10},
        "energy_in": {"class": "combine", "kind": "add", "n_out": 10,
                      "from": ["base:enc_ctx", "weight_feedback", "prev_s_transformed"]},
        "energy_tanh": {"class": "activation", "activation": "tanh", "from": "energy_in"},
        "energy": {"class": "linear", "activation": None, "with_bias": False, "from": "energy_tanh", "n_out": 1},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy"},
        "accum_att_weights": {"class": "eval", "from": ["prev:accum_att_weights", "att_weights", "base:inv_fertility"],
                              "eval": "source(0) + source(1) * source(2) * 0.5",
                              "out_type": {"dim": 1, "shape": (None, 1)}},
        "att": {"class": "generic_attention", "weights": "att_weights", "base": "base:encoder", "auto_squeeze": True},
        "s": {"class": "rec", "unit": "lstm", "from": ["att", "prev:embed"], "n_out": 3},
        "prob": {"class": "softmax", "from": "s", "loss": "ce", "target": "classes"},
        "output": {"class": "choice", "beam_size": 4, "from": "prob", "target": "classes", "initial_output": 0},
        "embed": {"class": "linear", "from": "prev:output", "activation": "sigmoid", "n_out": 3},
        "end": {"class": "compare", "from": "output", "value": 0}}},
}
LABELS = [[1, 2], [2, 1], [0, 1], [1, 1]]  # [T, B]


def _set_params(session, params):
    for v in params:
        value = np.random.RandomState(zlib.crc32(v.name.encode())).uniform(-0.5, 0.5, v.shape.as_list())
        v.load(value.astype("float32"), session)


def test_attention_scores_equal_the_loop():
    """Step by step with given labels, the scores are the log-probabilities the rec loop computes with those labels
    as target (the same params)."""
    from returnn.tf.network import TFNetwork

    config = Config()
    config.update({"network": ATT_NET, "num_inputs": 5, "num_outputs": 3})
    x = np.random.RandomState(1).randn(2, 4, 5).astype("float32")
    with tf.Graph().as_default() as graph:
        extern_data = network_setup.create_extern_data(DataOptions.from_config(config))
        net = TFNetwork(config=config, extern_data=extern_data, train_flag=False, eval_flag=True)
        net.construct_from_dict(dict(ATT_NET, lp={"class": "copy", "from": "output/prob", "is_output_layer": True}))
        session = tf.compat.v1.Session(graph=graph)
        session.run(tf.compat.v1.global_variables_initializer())
        _set_params(session, net.get_params_list())
        data = net.extern_data.data
        feed = {data["data"].placeholder: x, data["data"].get_sequence_lengths(): [4, 3],
                data["classes"].placeholder: np.array(LABELS).T, data["classes"].get_sequence_lengths(): [4, 4]}
        expected = np.log(session.run(net.layers["lp"].output.copy_as_time_major().placeholder, feed_dict=feed))
    with tf.Graph().as_default() as graph:
        network, step = _build(ATT_NET)
        session = tf.compat.v1.Session(graph=graph)
        _set_params(session, step.params + network.get_params_list())
        data = network.extern_data.data["data"]
        session.run(step.init_op, feed_dict={data.placeholder: x, data.get_sequence_lengths(): [4, 3]})
        scores_var = step.state_vars["stochastic_var_scores_output"].var
        label = tf.compat.v1.placeholder(tf.int32, [None])
        set_label = tf.raw_ops.AssignVariableOp(resource=step.state_vars["stochastic_var_choice_output"].var.handle,
                                                value=label)
        step_up = step.state_vars["i"].var.assign_add(1)
        scores = []
        for labels in LABELS:
            session.run(step.update_op)
            session.run(graph.get_operation_by_name(step.stochastic_vars["output"]["calc_scores_op"]))
            scores.append(session.run(scores_var.read_value()))
            session.run(set_label, feed_dict={label: labels})
            session.run(step.decode_op)
            session.run(step_up)
    np.testing.assert_allclose(scores, expected, atol=1e-5)
