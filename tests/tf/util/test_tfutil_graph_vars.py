"""Graph inspection, variables and optimizer update ops of returnn.tf.util.basic."""

import io

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_op_input_names_and_attribs(session):
    x = tf.matmul(tf.zeros((3, 4, 5)), tf.zeros((3, 5, 7)))
    assert tf_util.get_op_input_names(x.op) == ["x", "y"]
    assert set(tf_util.get_op_inputs_by_name(x.op)) == {"x", "y"}
    assert "T" in tf_util.get_op_attrib_keys(x) and "adj_x" in tf_util.get_op_attrib_keys(x.op)
    assert tf_util.get_op_input_names(tf.constant(1).op) == []
    s = tf.add_n([tf.constant(1), tf.constant(2), tf.constant(3)])
    assert tf_util.get_op_input_names(s.op) == ["inputs"] * 3
    assert len(tf_util.get_op_inputs_by_name(s.op)["inputs"]) == 3


def test_format_graph_output_observed_layout(session):
    x = tf.reshape(tf.zeros((3, 4), name="zeros"), [12], name="Reshape") + tf.constant(3.0, name="Const")
    y = tf_util.safe_log(tf.nn.softmax(x))
    # the layout observed from the reference's print_graph_output
    assert tf_util.format_graph_output(y, max_depth=0).splitlines() == [
        "fetch: <tf.Operation 'safe_log/LogSoftmax' type=LogSoftmax> [0], shape [12]",
        "  inputs[0] 'logits': <tf.Operation 'add' type=AddV2> [0], shape [12]",
    ]
    lines = tf_util.format_graph_output([y, y.op]).splitlines()
    assert lines[2] == "    inputs[0] 'x': <tf.Operation 'Reshape' type=Reshape> [0], shape [12]"
    assert "fetch: <tf.Operation 'safe_log/LogSoftmax' type=LogSoftmax>" in lines
    out = io.StringIO()
    tf_util.print_graph_output(y, file=out, max_depth=0)
    assert out.getvalue().startswith("fetch: ")


def test_find_ops_with_tensor_input(session):
    with tf1.variable_scope("find_ops"):
        x0 = tf.constant(1.0, name="x0")
        v1 = tf1.get_variable("v1", ())
        v2 = tf1.get_variable("v2", ())
        x1a = tf.add(x0, v1, name="x1a")
        x1b = tf.add(x1a, v2, name="x1b")
        x2a = tf.multiply(v1, v2, name="x2a")
        x2b = tf.multiply(x2a, x0, name="x2b")
    assert tf_util.find_ops_with_tensor_input(x0) == [x1a.op, x2b.op]
    assert tf_util.find_ops_with_tensor_input(v1) == [v1.initializer, x1a.op, x2a.op]
    assert tf_util.find_ops_with_tensor_input(v2, fetches=[x2b]) == [x2a.op]
    assert tf_util.find_ops_with_tensor_input(x1b) == []
    path = tf_util.find_ops_path_output_to_input(x0, fetches=x2b)
    assert path[0] is x2b.op and path[-1] is x2b.op


def test_var_update_ops_and_grads(session):
    with tf1.variable_scope("var_updates"):
        var = tf1.get_variable("var", (), initializer=tf1.zeros_initializer())
        loss = (var - 1.0) ** 2
        for opt in [tf1.train.AdamOptimizer(), tf1.train.GradientDescentOptimizer(learning_rate=1.0),
                    tf1.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)]:
            minimize = opt.minimize(loss=loss, var_list=[var])
            update_ops = tf_util.get_var_update_ops(var, fetches=minimize)
            assert len(update_ops) == 1 and update_ops[0].type.startswith("ResourceApply")
            grad = tf_util.get_variable_grad_from_update_ops(var, update_ops)
            session.run(tf1.global_variables_initializer())
            _, grad_v = session.run([minimize, grad])
            assert grad_v == -2.0  # d/dv (v - 1)^2 at v = 0
        with pytest.raises(AssertionError, match="one update op"):
            tf_util.get_variable_grad_from_update_ops(var, [])


def test_variable_value_copy_before_update_ops(session):
    with tf1.variable_scope("copy_before_update"):
        v = tf1.get_variable("v", (), initializer=tf1.zeros_initializer())
        minimize = tf1.train.GradientDescentOptimizer(learning_rate=1.0).minimize((v - 1.0) ** 2, var_list=[v])
        update_ops = tf_util.get_var_update_ops(v, fetches=minimize)
        with tf.control_dependencies(update_ops):
            before = tf_util.get_variable_value_copy_before_update_ops(v, update_ops)
            after = tf.identity(v.read_value())
    session.run(v.initializer)
    assert session.run([before, after, minimize])[:2] == [0.0, 2.0]


def test_variables_helpers(session):
    v = tf.Variable(initial_value=[[1.0, 2.0], [-4.0, -1.0]], name="vs")
    assert tf_util.get_variable_from_tensor(tf.identity(v)) is v
    assert tf_util.get_variable_from_tensor(tf.constant(1.0)) is None
    assert tf_util.var_handle_or_ref(v).dtype == tf.resource
    session.run(v.initializer)
    values = session.run(tf_util.variable_scalar_summaries_dict(v))
    x = np.array([[1.0, 2.0], [-4.0, -1.0]])
    np.testing.assert_allclose([values[f"vs_{k}"] for k in ("mean", "stddev", "rms", "l2", "max", "min")],
                               [x.mean(), x.std(), np.sqrt((x ** 2).mean()), np.sqrt((x ** 2).sum()), 2.0, -4.0],
                               rtol=1e-6)
    tf_util.variable_summaries(v)
    names = [t.name for t in tf1.get_collection(tf1.GraphKeys.SUMMARIES)]
    # names observed from the reference
    assert names == ["summaries_vs/vs_mean:0", "summaries_vs/vs_stddev:0", "summaries_vs/vs_rms:0",
                     "summaries_vs/vs_l2:0", "summaries_vs/vs_max:0", "summaries_vs/vs_min:0"]
    copied = tf_util.enforce_copy(v.read_value())
    with tf.control_dependencies([copied]):
        assign = tf1.assign(v, tf.zeros((2, 2)))
    assert session.run([copied, assign])[0].tolist() == x.tolist()


def test_variable_assigner_and_init_if_needed(session):
    v = tf1.get_variable("assign_me", shape=(2,), initializer=tf1.constant_initializer(1.0))
    init = tf_util.init_variable_if_needed(v)
    session.run(init)
    assigner = tf_util.VariableAssigner(v)
    assigner.assign([3.0, 4.0], session=session)
    assert session.run(v).tolist() == [3.0, 4.0]
    session.run(init)  # initialized already: keeps the value
    assert session.run(v).tolist() == [3.0, 4.0]


def test_py_print(session, capsys):
    x = tf.constant(3)
    y = tf_util.py_print(tf.constant(1.5), ["value:", x, "end"], message="msg")
    assert session.run(y) == 1.5
    assert capsys.readouterr().out == "msg value: 3 end\n"


def test_supported_devices_for_op():
    assert "CPU" in tf_util.supported_devices_for_op("MatMul")
    assert any(k.startswith("device='CPU'") for k in tf_util.kernels_registered_for_op("MatMul"))
    with pytest.raises(ValueError, match="NoSuchOp"):
        tf_util.supported_devices_for_op("NoSuchOp")


def test_grad_registry_and_copy_op(session):
    assert tf_util.lookup_grad_func_by_name("Identity") is not None
    with pytest.raises(LookupError):
        tf_util.lookup_grad_func_by_name("NoSuchOpForGradients")

    def grad(op, g):
        return 7.0 * g

    tf_util.opt_register_grad_func("TestTfutilSevenGrad", grad)
    tf_util.opt_register_grad_func("TestTfutilSevenGrad", grad)  # the same again: fine
    with pytest.raises(AssertionError, match="another gradient function"):
        tf_util.opt_register_grad_func("TestTfutilSevenGrad", lambda op, g: g)
    x = tf.constant([1.0, 2.0])
    sm = tf.nn.softmax(x)
    log_sm = tf_util.copy_op(sm.op, op_type="LogSoftmax").outputs[0]
    np.testing.assert_allclose(session.run(log_sm), session.run(tf.nn.log_softmax(x)), rtol=1e-6)
    doubled = tf_util.copy_op(tf.sqrt(x).op, inputs=[x * 4.0]).outputs[0]
    assert session.run(doubled).tolist() == [2.0, np.sqrt(8.0).astype(np.float32)]


def test_collection_keys_identity_nested_auto_init(session):
    assert tf_util.CollectionKeys.STATE_VARS == "_RETURNN_state_vars"  # as the reference
    nested = tf_util.identity_op_nested({"a": tf.constant(1), "b": [tf.constant(2)]})
    assert nested["a"].op.type == "Identity" and session.run(nested) == {"a": 1, "b": [2]}
    v = tf1.get_variable("auto_init_me", shape=(), initializer=tf1.constant_initializer(3.0))
    assert session.run(tf_util.auto_init_var(v)) == 3.0
    assert tf_util.is_gpu_available_in_session(session) is any(
        d.device_type == "GPU" for d in session.list_devices())
    assert tf_util.get_device_attr("/cpu:0").device_type == "CPU"
    with pytest.raises(KeyError):
        tf_util.get_device_attr("/cpu:99")


def test_star_import_names():
    namespace = {}
    exec("from returnn.tf.util.basic import *", namespace)
    for name in ["tf", "tf_compat", "numpy", "contextlib", "os", "sys", "threading", "typing", "util", "init_ops",
                 "device_lib", "NotSpecified", "Tensor", "Data", "Dim", "T", "dataclass", "Optional"]:
        assert name in namespace, name
    assert namespace["util"].__name__ == "returnn.util.basic"
