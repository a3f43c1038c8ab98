"""returnn.tf.util.gradient_checkpoint: the gradient of a consumer of a checkpoint scope's values uses recomputed
copies of the scope's ops; the gradient values do not change."""

import numpy as np
import tensorflow as tf

from returnn.tf.util.gradient_checkpoint import (gradient_checkpoint_exclude_scope, gradient_checkpoint_scope,
                                                  prepare_gradient_checkpointing)


def _build(checkpoint: bool):
    tf.compat.v1.set_random_seed(7)
    x = tf.constant(np.random.RandomState(0).randn(4, 3).astype("float32"))
    w = tf.compat.v1.get_variable("w", initializer=np.random.RandomState(1).randn(3, 5).astype("float32"))
    with gradient_checkpoint_scope() if checkpoint else tf.name_scope("plain"):
        with tf.name_scope("w_dropout"):
            w_used = tf.nn.dropout(tf.tanh(tf.convert_to_tensor(w)), rate=0.5)
    y = tf.matmul(x, w_used)
    if checkpoint:
        prepare_gradient_checkpointing()
    loss = tf.reduce_sum(tf.square(y))
    return w, w_used, loss, tf.gradients(loss, [w, x])


def test_gradients_unchanged_with_recomputation():
    values = {}
    for checkpoint in (False, True):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
            w, w_used, loss, grads = _build(checkpoint)
            session.run(tf.compat.v1.global_variables_initializer())
            # one run: the same random mask for the forward value and its recomputation
            used, grad_w, grad_x = session.run([w_used] + grads)
            # numpy: d/dw sum((x @ w_used)^2) = ...; w_used = tanh(w) * mask / 0.5
            x = np.random.RandomState(0).randn(4, 3).astype("float32")
            w0 = np.random.RandomState(1).randn(3, 5).astype("float32")
            mask_scaled = np.where(used != 0, 2.0, 0.0)
            g_used = x.T @ (2 * (x @ used))
            np.testing.assert_allclose(grad_w, g_used * mask_scaled * (1 - np.tanh(w0) ** 2), rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(grad_x, 2 * (x @ used) @ used.T, rtol=1e-4, atol=1e-5)
            names = [op.name for op in graph.get_operations()]
            values[checkpoint] = names
    # with checkpointing, the scope's stateless ops were copied for the backward pass (w_dropout/Tanh_1 etc.)
    assert "w_dropout/Tanh_1" in values[True] and "w_dropout/Tanh_1" not in values[False]


def test_matmul_gradient_reads_the_recomputed_value():
    with tf.Graph().as_default():
        _, w_used, _, grads = _build(True)
        grad_x = grads[1]
        # the gradient w.r.t. x is grad_y @ w_used^T: with checkpointing it reads the copy, not the forward value
        matmul_grad = grad_x.op
        assert all(inp is not w_used for inp in matmul_grad.inputs)
        assert any(inp.op.name.startswith("w_dropout/") for inp in matmul_grad.inputs)


def test_exclude_scope_not_recorded():
    with tf.Graph().as_default() as graph:
        x = tf.constant([1.0, 2.0])
        with gradient_checkpoint_scope():
            a = tf.sin(x, name="a")
            with gradient_checkpoint_exclude_scope():
                b = tf.cos(a, name="b")
        y = tf.reduce_sum(b * 2.0)
        prepare_gradient_checkpointing()
        tf.gradients(y, x)
        names = {op.name for op in graph.get_operations()}
        assert "a_1" in names  # a is recomputed for b's gradient (b consumes it, outside the recorded ops)
        assert "b_1" not in names


def test_scope_with_cond_left_as_is():
    with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
        x = tf.constant([1.0, 2.0])
        flag = tf.compat.v1.placeholder_with_default(True, ())
        with gradient_checkpoint_scope():
            a = tf.cond(flag, lambda: tf.sin(x), lambda: x)
        y = tf.reduce_sum(a * a)
        prepare_gradient_checkpointing()
        (g,) = tf.gradients(y, x)
        assert not any(op.name.endswith("Sin_1") for op in graph.get_operations())
        np.testing.assert_allclose(session.run(g), 2 * np.sin([1.0, 2.0]) * np.cos([1.0, 2.0]), rtol=1e-5)
