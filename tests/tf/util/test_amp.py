"""Mixed precision (``tf_amp``, returnn/tf/util/amp.py): product dtypes in the graph, float32 variables and
checkpoints, one clear error for bad values, training in bfloat16 (and float16 loss scaling, on CPU)."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.tf.network import TFNetwork
from returnn.tf.updater import Updater
from returnn.tf.util import amp as amp_mod
from returnn.tf.util.amp import AmpPolicy, DynamicLossScale

TF = tf.compat.v1
PRODUCT_OPS = ("MatMul", "BatchMatMulV2", "Conv2D", "Einsum", "_FusedMatMul")
EXTERN = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}
# every layer kind that follows the policy: linear, conv, the LSTM units (loop kernel: > 64 cells on CPU, and the
# rec-loop step), self_attention, dot, softmax
NET = {
    "lin": {"class": "linear", "activation": "relu", "n_out": 12, "from": "data"},
    "conv": {"class": "conv", "filter_size": (3,), "n_out": 8, "padding": "same", "from": "lin"},
    "lstm": {"class": "rec", "unit": "nativelstm2", "n_out": 70, "from": "conv"},
    "loop": {"class": "rec", "from": "conv", "unit": {
        "s": {"class": "rec", "unit": "nativelstm2", "n_out": 8, "from": ["data:source", "prev:output"]},
        "output": {"class": "copy", "from": "s"}}},
    "att": {"class": "self_attention", "num_heads": 2, "total_key_dim": 8, "n_out": 8, "from": "lstm"},
    "dot": {"class": "dot", "from": ["att", "att"], "red1": "F", "red2": "F", "var1": None, "var2": None,
            "add_var2_if_empty": False},  # [B, T]: per frame <att, att>
    "scaled": {"class": "combine", "kind": "mul", "from": ["att", "dot"]},
    "cat": {"class": "copy", "from": ["scaled", "loop"]},
    "output": {"class": "softmax", "loss": "ce", "from": "cat", "target": "classes"},
}


SMALL_NET = {"lin": NET["lin"], "lstm": {**NET["lstm"], "from": "lin"},
             "output": {"class": "softmax", "loss": "ce", "from": "lstm", "target": "classes"}}


def _build(tf_amp, net_dict=None, seed=1, **config):
    """:return: (network, updater) in the current default graph"""
    cfg = Config({"extern_data": EXTERN, "optimizer": {"class": "adam"}, **config})
    if tf_amp is not None:
        cfg.set("tf_amp", tf_amp)
    TF.set_random_seed(seed)
    net = TFNetwork(config=cfg, train_flag=True)
    net.construct_from_dict(net_dict or NET)
    updater = Updater(cfg, network=net, initial_learning_rate=0.01)
    updater.get_optim_op()
    return net, updater


def _feed(net, seed=0, batch=3, length=7):
    rnd = np.random.RandomState(seed)
    lens = np.array([length, length - 2, length - 4], "int32")[:batch]
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    return {data.placeholder: rnd.randn(batch, length, 5).astype("float32"),
            classes.placeholder: rnd.randint(0, 4, (batch, length)).astype("int32"),
            data.get_sequence_lengths(): lens, classes.get_sequence_lengths(): lens}


def _product_dtypes(graph):
    """:return: {op type: {dtype names}} of the matmuls/convolutions in ``graph`` (loop bodies included)"""
    result = {}
    for op in graph.get_operations():
        if op.type in PRODUCT_OPS:
            result.setdefault(op.type, set()).add(op.get_attr("T").name)
    return result


@pytest.mark.parametrize("tf_amp, dtype", [(None, "float32"), ("bfloat16", "bfloat16")])
def test_product_dtypes_follow_tf_amp(tf_amp, dtype):
    with tf.Graph().as_default() as graph:
        net, _ = _build(tf_amp)
        found = _product_dtypes(graph)
        # forward and gradient: MatMul (linear, softmax, LSTM input projection/recurrence/backward loop, rec step,
        # self-attention input), BatchMatMulV2 (attention energies/weights), Conv2D (conv, 1-d as 2-d), Einsum (dot)
        assert set(found) == {"MatMul", "BatchMatMulV2", "Conv2D", "Einsum"}, found
        assert all(dtypes == {dtype} for dtypes in found.values()), found
        # float32 softmax, loss and layer outputs
        for op in graph.get_operations():
            if op.type in ("Softmax", "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits"):
                assert op.get_attr("T") == tf.float32, op.name
        for name, layer in net.layers.items():
            assert layer.output.dtype == "float32" or layer.output.sparse, name
            assert layer.output.placeholder.dtype in (tf.float32, tf.int32), name
        assert net.get_objective().dtype == tf.float32


MORE_NET = {
    "tconv": {"class": "transposed_conv", "filter_size": [3], "strides": [2], "n_out": 4, "activation": "relu",
              "from": "data"},
    "loop": {"class": "rec", "from": "data", "unit": {
        "lstm": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 4, "from": ["data:source", "prev:gru"]},
        "gru": {"class": "rnn_cell", "unit": "gru", "n_out": 3, "from": "lstm"},
        "output": {"class": "copy", "from": ["lstm", "gru"]}}},
    "output": {"class": "reduce", "mode": "sum", "axis": "T", "from": "tconv"},
}


def test_transposed_conv_and_rnn_cell_in_bfloat16():
    """transposed_conv (Conv2DBackpropInput) and the rnn_cell LSTM/GRU gate matmuls follow the policy and train."""
    values = {}
    for tf_amp in (None, "bfloat16"):
        with tf.Graph().as_default() as graph:
            cfg = Config({"extern_data": EXTERN, "tf_amp": tf_amp})
            TF.set_random_seed(1)
            net = TFNetwork(config=cfg, train_flag=True)
            net.construct_from_dict(MORE_NET)
            outputs = [net.get_layer(name).output.placeholder for name in ("output", "loop")]
            loss = sum(tf.reduce_sum(tf.square(y)) for y in outputs)
            grads = tf.gradients(loss, net.get_trainable_params())
            types = {(op.type, op.get_attr("T").name) for op in graph.get_operations()
                     if op.type in ("MatMul", "Conv2DBackpropInput")}
            dtype = tf_amp or "float32"
            assert types == {("MatMul", dtype), ("Conv2DBackpropInput", dtype)}, types
            with TF.Session() as session:
                session.run(TF.global_variables_initializer())
                values[tf_amp] = session.run(outputs + grads, _feed(net))
    for v32, v16 in zip(values[None], values["bfloat16"]):
        np.testing.assert_allclose(v16, v32, rtol=0.05, atol=0.05)


@pytest.mark.parametrize("tf_amp", [None, "bfloat16"])
def test_variables_are_float32_with_the_same_names(tf_amp):
    with tf.Graph().as_default():
        net, updater = _build(tf_amp)
        variables = {v.op.name: (v.dtype.base_dtype.name, tuple(v.shape.as_list())) for v in TF.global_variables()}
    with tf.Graph().as_default():
        _build(None)
        reference = {v.op.name: (v.dtype.base_dtype.name, tuple(v.shape.as_list())) for v in TF.global_variables()}
    assert variables == reference
    assert {dtype for dtype, _ in variables.values()} <= {"float32", "int64"}
    assert "lstm/rec/W_re" in variables and "output/W" in variables


def _run_outputs(tf_amp, values=None, net_dict=None):
    """:return: (output of the net, objective, param values) for fixed params ``values`` (or the initial ones)"""
    with tf.Graph().as_default():
        net, _ = _build(tf_amp, net_dict)
        params = net.get_params_list()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            if values is not None:
                for p in params:
                    p.load(values[p.op.name], session)
            feed = _feed(net)
            out, loss = session.run([net.get_default_output_layer().output.placeholder, net.get_objective()], feed)
            return out, loss, {p.op.name: session.run(p) for p in params}


def test_bfloat16_outputs_close_to_float32():
    out32, loss32, values = _run_outputs(None)
    out16, loss16, _ = _run_outputs("bfloat16", values)
    assert not np.array_equal(out32, out16)  # computed differently
    np.testing.assert_allclose(out16, out32, atol=0.03)  # bfloat16 has 8 bits of mantissa: ~1e-2 relative
    assert abs(loss16 - loss32) < 0.02 * abs(loss32)


def test_checkpoint_interchange(tmp_path):
    """One Adam step with tf_amp bfloat16, saved; a float32 network loads it: the same values (and vice versa)."""
    prefix = str(tmp_path / "amp-model")
    with tf.Graph().as_default():
        net, updater = _build("bfloat16", SMALL_NET)
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            before = session.run(net.get_params_list())
            session.run(updater.get_optim_op(), _feed(net))
            saved = {v.op.name: session.run(v) for v in TF.global_variables()}
            TF.train.Saver(var_list={v.op.name: v for v in TF.global_variables()}).save(session, prefix)
    assert saved["global_step"] == 1
    assert not np.allclose(before[0], saved[net.get_params_list()[0].op.name])  # the step changed the params
    reader = TF.train.NewCheckpointReader(prefix)
    assert {k for k, dt in reader.get_variable_to_dtype_map().items() if dt != tf.float32} == {"global_step"}
    for tf_amp in (None, "bfloat16"):
        with tf.Graph().as_default():
            net, updater = _build(tf_amp, SMALL_NET)
            with TF.Session() as session:
                TF.train.Saver(var_list={v.op.name: v for v in TF.global_variables()}).restore(session, prefix)
                for v in TF.global_variables():
                    np.testing.assert_array_equal(session.run(v), saved[v.op.name], err_msg=v.op.name)
                session.run(net.get_objective(), _feed(net))  # evaluates


@pytest.mark.parametrize("value", ["int8", "bf16", "float32", 16, True])
def test_bad_value_one_clear_error(value):
    config = Config({"extern_data": EXTERN, "tf_amp": value})
    with pytest.raises(ConfigValueError) as exc_info:
        AmpPolicy.from_config(config)
    msg = str(exc_info.value)
    assert "tf_amp" in msg and repr(value) in msg and "'bfloat16'" in msg and "'float16'" in msg, msg
    with tf.Graph().as_default():  # building a network raises the same error at the first layer that computes
        with pytest.raises(ConfigValueError, match="tf_amp"):
            TFNetwork(config=config).construct_from_dict({"output": {"class": "softmax", "loss": "ce"}})


def test_misspelled_value_gets_the_choices_suggested():
    with pytest.raises(ConfigValueError) as exc_info:
        AmpPolicy.from_config(Config({"tf_amp": "bfloat61"}))
    assert "did you mean: 'bfloat16'" in str(exc_info.value)


def test_off_and_line_based_values():
    assert AmpPolicy.from_config(Config()) == amp_mod.OFF and not amp_mod.OFF.enabled
    assert AmpPolicy.from_config(Config({"tf_amp": None})) == amp_mod.OFF
    config = Config()
    config.add_line("tf_amp", "bfloat16")  # a line-based config / ++tf_amp bfloat16
    assert AmpPolicy.from_config(config).compute_dtype == tf.bfloat16


@pytest.mark.skipif(bool(tf.config.list_physical_devices("GPU")), reason="float16 is accepted with a GPU")
def test_float16_without_gpu_is_one_clear_error():
    with pytest.raises(ConfigValueError) as exc_info:
        AmpPolicy.from_config(Config({"tf_amp": "float16"}))
    msg = str(exc_info.value)
    assert "tf_amp" in msg and "'float16'" in msg and "GPU" in msg and "bfloat16" in msg, msg


def test_float16_device_cpu_is_an_error_even_with_gpu(monkeypatch):
    monkeypatch.setattr(tf.config, "list_physical_devices", lambda kind=None: ["GPU:0"] if kind == "GPU" else [])
    monkeypatch.delenv("TF_DEVICE", raising=False)
    assert AmpPolicy.from_config(Config({"tf_amp": "float16"})).loss_scaling
    with pytest.raises(ConfigValueError, match="GPU"):
        AmpPolicy.from_config(Config({"tf_amp": "float16", "device": "cpu"}))


FF_NET = {"h": {"class": "linear", "activation": "tanh", "n_out": 16, "from": "data"},
          "output": {"class": "softmax", "loss": "ce", "from": "h", "target": "classes"}}


@pytest.mark.parametrize("tf_amp", ["bfloat16", "float16"])
def test_training_decreases_the_loss(tf_amp, monkeypatch):
    """Adam steps on one batch: the loss goes down; float16 (on CPU here, GPU check patched out) with loss scaling."""
    monkeypatch.setattr(amp_mod, "_gpu_in_use", lambda config: True)
    with tf.Graph().as_default() as graph:
        net, updater = _build(tf_amp, FF_NET)
        assert _product_dtypes(graph)["MatMul"] == {tf_amp}
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            feed = _feed(net)
            losses = [session.run([net.get_objective(), updater.get_optim_op()], feed)[0] for _ in range(30)]
            names = {v.op.name for v in TF.global_variables()}
            assert ("loss_scale" in names) == (tf_amp == "float16")
            if tf_amp == "float16":
                # starts at 2**15; a step whose scaled float16 gradients overflow halves it (and is skipped)
                assert session.run(updater._loss_scale.scale) in [2.0 ** k for k in range(10, 16)]
    assert losses[-1] < 0.7 * losses[0], losses


def test_dynamic_loss_scale_skips_non_finite_steps():
    with tf.Graph().as_default():
        v = TF.Variable(1.0, use_resource=True)
        c = TF.placeholder(tf.float32, ())
        scale = DynamicLossScale(initial_scale=8.0, growth_interval=2)
        scaled = scale.scale_loss(v * c)
        grads, finite = scale.unscale([(tf.gradients(scaled, [v])[0], v)])
        step = scale.apply_if_finite(lambda: v.assign_sub(0.1 * grads[0][0]).op, finite)
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            states = []
            for value in (2.0, np.inf, 1.0, 1.0, 1.0):
                session.run(step, {c: value})
                states.append(tuple(float(x) for x in session.run([v, scale.scale, scale.good_steps])))
    np.testing.assert_allclose(states, [(0.8, 8.0, 1), (0.8, 4.0, 0), (0.7, 4.0, 1), (0.6, 8.0, 0),
                                        (0.5, 8.0, 1)], rtol=1e-6)


def _dev_scores(out: str):
    return [float(x) for x in re.findall(r"^dev: score ([0-9.]+)", out, re.M)]


ENGINE_CONFIG = """#!rnn.py
task = "train"
use_tensorflow = True
train = {"class": "Task12AXDataset", "num_seqs": 30, "fixed_random_seed": 1}
dev = {"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2}
num_inputs = 9
num_outputs = 2
batch_size = 2000
max_seqs = 10
network = {"h": {"class": "linear", "activation": "tanh", "n_out": 16, "from": "data"},
           "output": {"class": "softmax", "loss": "ce", "from": "h"}}
optimizer = {"class": "adam"}
learning_rate = 0.01
num_epochs = 3
log_verbosity = 4
"""


def _rnn(config_file, *args):
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    proc = subprocess.run([sys.executable, os.path.join(root, "rnn.py"), config_file, *args], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def test_rnn_py_train_bfloat16_then_eval_float32(tmp_path):
    """rnn.py's train task with ``++tf_amp bfloat16``: the dev score goes down; its checkpoint evaluates in a
    float32 run (no tf_amp) with nearly the same score."""
    config_file = tmp_path / "amp.config"
    config_file.write_text(ENGINE_CONFIG + f"model = {str(tmp_path / 'model')!r}\n")
    out = _rnn(str(config_file), "++tf_amp", "bfloat16")
    assert "tf_amp: matmuls and convolutions in bfloat16, variables float32." in out
    scores = _dev_scores(out)
    assert len(scores) == 3 and scores[-1] < scores[0], scores
    out = _rnn(str(config_file), "++task", "eval", "++load_epoch", "3")
    assert "tf_amp" not in out
    score32 = _dev_scores(out)
    assert len(score32) == 1 and abs(score32[0] - scores[-1]) < 0.01, (score32, scores)


# a conformer feed-forward and convolution module: products with element-wise layers (bias, swish, dropout, GLU)
# between them, as the published conformer configs write them
CHAIN_NET = {
    "ln": {"class": "layer_norm", "from": "data"},
    "ff1": {"class": "linear", "activation": None, "n_out": 16, "from": "ln"},
    "swish": {"class": "activation", "activation": "swish", "from": "ff1"},
    "drop": {"class": "dropout", "dropout": 0.1, "from": "swish"},
    "ff2": {"class": "linear", "activation": None, "n_out": 8, "from": "drop"},
    "glu": {"class": "gating", "activation": "identity", "from": "ff2"},
    "dconv": {"class": "conv", "filter_size": (3,), "groups": 4, "n_out": 4, "padding": "same", "from": "glu"},
    "output": {"class": "softmax", "loss": "ce", "from": "dconv", "target": "classes"},
}


def test_no_casts_back_and_forth_between_products(monkeypatch):
    """With tf_amp = "float16" (GPU check patched out; the graph runs on CPU), each product reads the previous one's
    compute-dtype result (after bias, swish, dropout, GLU in that dtype): a float32 -> float16 cast only of the first
    product's input and of the weights, and the training step computes no float32 cast of the intermediate results.
    (Under bfloat16 the biases and sigmoid-like activations run in float32 instead: the next test.)"""
    monkeypatch.setattr(amp_mod, "_gpu_in_use", lambda config: True)
    with tf.Graph().as_default() as graph:
        net, updater = _build("float16", CHAIN_NET)
        casts_to_compute = [op for op in graph.get_operations() if op.type == "Cast"
                            and op.get_attr("DstT") == tf.float16 and not op.name.startswith("optimize")]
        # besides the weights and biases (ReadVariableOp) and the dropout mask ([1, 1, F]): only the layer norm's
        # output (the first product's input)
        frames = [op.name for op in casts_to_compute if op.inputs[0].op.type != "ReadVariableOp"
                  and op.inputs[0].shape.rank and op.inputs[0].shape[0] != 1]
        assert len(frames) == 1 and frames[0].startswith("ff1/"), frames
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            meta = TF.RunMetadata()
            session.run(updater.get_optim_op(), _feed(net), options=TF.RunOptions(trace_level=TF.RunOptions.FULL_TRACE),
                        run_metadata=meta)
    ran = {node.node_name for dev in meta.step_stats.dev_stats for node in dev.node_stats}
    for layer in ("ff1", "swish", "drop", "ff2", "glu"):  # their float32 output casts are never computed
        casts = [op.name for op in graph.get_operations() if op.type == "Cast" and op.name.startswith(layer + "/")
                 and op.get_attr("SrcT") == tf.float16 and op.get_attr("DstT") == tf.float32]
        assert casts and not (set(casts) & ran), (layer, casts)


def _ops_dtypes(graph, op_type, attr="T", forward=True):
    """:return: the dtype names of ``op_type``'s ops in ``graph`` (forward: outside ``optimize/``, else inside)"""
    return {op.get_attr(attr).name for op in graph.get_operations()
            if op.type == op_type and op.name.startswith("optimize/") != forward}


def test_bfloat16_computes_sigmoid_like_activations_and_biases_in_float32(monkeypatch):
    """Under bfloat16, swish and the GLU's sigmoid gate run in float32 (TensorFlow's CPU bfloat16 ``Sigmoid`` and
    its gradient take 2-3x the float32 kernel's time) between the products, which still compute in bfloat16; a
    linear layer's bias is a float32 ``BiasAdd`` on the cast of the product's result (a bfloat16 product fused with
    its bias addition takes twice the plain product's CPU time), its gradient a float32 ``BiasAddGrad``. Float16
    keeps them in float16."""
    with tf.Graph().as_default() as graph:
        _build("bfloat16", CHAIN_NET)
        assert _ops_dtypes(graph, "Sigmoid") == {"float32"}
        assert _ops_dtypes(graph, "SigmoidGrad", forward=False) == {"float32"}
        assert _product_dtypes(graph) == {"MatMul": {"bfloat16"}, "Conv2D": {"bfloat16"}}
        biases = [op for op in graph.get_operations() if op.type == "BiasAdd" and not op.name.startswith("optimize")]
        assert sorted(op.name.split("/")[0] for op in biases) == ["ff1", "ff2", "output"]
        assert {op.get_attr("T") for op in biases} == {tf.float32}
        assert _ops_dtypes(graph, "BiasAddGrad", forward=False) == {"float32"}
        assert not [op for op in graph.get_operations() if op.name in ("ff1/add", "ff2/add", "output/add")]
    monkeypatch.setattr(amp_mod, "_gpu_in_use", lambda config: True)
    with tf.Graph().as_default() as graph:  # with float16 (a GPU's policy), swish, the gate and biases in float16
        _build("float16", CHAIN_NET)
        assert _ops_dtypes(graph, "Sigmoid") == {"float16"}
        assert {op.get_attr("T") for op in graph.get_operations() if op.name in ("ff1/add", "ff2/add")} == {tf.float16}


def test_bfloat16_chain_with_float32_activations_keeps_values():
    """The conformer chain (swish, GLU, the biases in float32) in bfloat16: the same outputs and loss
    as float32 within bfloat16's precision, with the same parameters."""
    net_dict = {**CHAIN_NET, "drop": {"class": "copy", "from": "swish"}}  # no random mask: the same function
    out32, loss32, values = _run_outputs(None, net_dict=net_dict)
    out16, loss16, _ = _run_outputs("bfloat16", values, net_dict=net_dict)
    assert not np.array_equal(out32, out16)
    np.testing.assert_allclose(out16, out32, atol=0.03)
    assert abs(loss16 - loss32) < 0.02 * abs(loss32)


LOOP_LINEAR_NET = {
    "output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
        "lin": {"class": "linear", "activation": None, "with_bias": False, "n_out": 2, "from": "data:source"},
        "output": {"class": "copy", "from": "lin"}}},
}


def test_weight_in_a_loop_is_cast_once_outside_and_its_gradient_summed_in_float32():
    """A layer's weight used in every step of a rec loop is cast to bfloat16 once, outside the loop; the steps'
    weight gradients are summed in float32: 300 steps of gradient 1 give 300 (a bfloat16 sum stops at 256)."""
    with tf.Graph().as_default() as graph:
        cfg = Config({"extern_data": {"data": {"dim": 2}}, "tf_amp": "bfloat16"})
        net = TFNetwork(config=cfg, train_flag=True)
        net.construct_from_dict(LOOP_LINEAR_NET)
        from returnn.tf.util.control_flow import has_control_flow_context

        weight_casts = [op for op in graph.get_operations() if op.type == "Cast"
                        and op.get_attr("DstT") == tf.bfloat16 and op.inputs[0].op.type == "ReadVariableOp"]
        assert len(weight_casts) == 1 and not has_control_flow_context(weight_casts[0]), weight_casts
        assert _product_dtypes(graph) == {"MatMul": {"bfloat16"}}
        (weight,) = net.get_trainable_params()
        out = net.get_layer("output").output.placeholder
        (grad,) = tf.gradients(tf.reduce_sum(out), [weight])
        data = net.extern_data.data["data"]
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            grad_value = session.run(grad, {data.placeholder: np.ones((1, 300, 2), "float32"),
                                            data.get_sequence_lengths(): [300]})
    np.testing.assert_array_equal(grad_value, np.full((2, 2), 300.0, "float32"))
