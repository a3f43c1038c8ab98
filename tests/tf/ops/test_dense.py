"""``dense_matmul``: forward and both gradients against numpy, in both gradient orders."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.ops.dense import dense_matmul


@pytest.mark.parametrize("n_in, n_out", [(7, 3), (3, 7), (5, 5), (2, 17), (512, 4097), (512, 4096)])
def test_dense_matmul_value_and_gradients_against_numpy(session, n_in, n_out):
    rng = np.random.RandomState(n_in * 10 + n_out)
    x_val = rng.randn(11, n_in).astype("float32")
    w_val = rng.randn(n_in, n_out).astype("float32")
    r_val = rng.randn(11, n_out).astype("float32")  # the upstream gradient
    x = tf.constant(x_val)
    w = tf.constant(w_val)
    y = dense_matmul(x, w)
    assert y.op.type == "MatMul"  # a plain MatMul op: Grappler may still fuse BiasAdd and the activation
    # float32: the override in every case (dx through the transposed weight when n_out >= n_in, dW transposed
    # when n_out < n_in or for a wide output layer of an unaligned size)
    assert y.op.node_def.attr["_gradient_op_type"].s.decode() == "ReturnnDenseMatMul"
    dx, dw = tf.gradients(y, [x, w], grad_ys=tf.constant(r_val))
    # dx's product reads the weight transposed by an op that Grappler does not fold into transpose_b
    assert (dx.op.inputs[1].op.type == "Einsum") == (n_out >= n_in)
    assert dx.op.get_attr("transpose_b") == (n_out < n_in)
    assert (dw.op.type == "Transpose") == (n_out < n_in or (n_in, n_out) == (512, 4097))
    y_out, dx_out, dw_out = session.run([y, dx, dw])
    atol = 1e-5 * np.sqrt(max(n_in, n_out))  # float32 rounding of sums of n_in / n_out products of randn
    np.testing.assert_allclose(y_out, x_val @ w_val, rtol=1e-5, atol=atol)
    np.testing.assert_allclose(dx_out, r_val @ w_val.T, rtol=1e-5, atol=atol)
    np.testing.assert_allclose(dw_out, x_val.T @ r_val, rtol=1e-5, atol=atol)
    assert dw_out.shape == (n_in, n_out)


@pytest.mark.parametrize("n_in, n_out", [(7, 3), (3, 7)])
def test_dense_matmul_float64_and_in_loops_keep_tensorflows_orders(session, n_in, n_out):
    """Other dtypes than float32 (the bfloat16 of tf_amp) and products inside a while loop: TensorFlow's own
    gradient, except dW transposed for n_out < n_in."""
    rng = np.random.RandomState(1)
    x_val = rng.randn(4, n_in)
    w_val = rng.randn(n_in, n_out)
    y = dense_matmul(tf.constant(x_val), tf.constant(w_val))
    overridden = y.op.node_def.attr["_gradient_op_type"].s.decode() == "ReturnnDenseMatMul"
    assert overridden == (n_out < n_in)

    w32 = tf.constant(w_val.astype("float32"))

    def body(i, acc):
        step = dense_matmul(tf.constant(x_val.astype("float32")) * tf.cast(i + 1, tf.float32), w32)
        return i + 1, acc + step

    _, total = tf.compat.v1.while_loop(lambda i, _: i < 3, body, (tf.constant(0), tf.zeros([4, n_out])))
    (dw,) = tf.gradients(total, [w32])
    types = {op.type for op in tf.compat.v1.get_default_graph().get_operations()}
    assert "Einsum" not in types
    np.testing.assert_allclose(session.run(dw), (x_val.T @ np.ones((4, n_out))) * 6, rtol=1e-4)


def test_one_input_feature_in_a_loop_trains_with_grappler_on():
    """A [1, n_out] weight read in a while loop, as the attention-weight feedback of the published attention
    decoders (accumulated attention weights [B, T, 1] -> [B, T, n_out] at every decoder step): its gradient is
    accumulated over the loop's steps. With a MatMul there, Grappler's remapper fused the accumulating Add into a
    bias-add kernel that failed ("bias must be 1-dimensional [1,1024]", TensorFlow 2.21) in the published
    BLSTM-attention config's graph (benchmarks/real-configs-speed/README.md); this small graph does not trigger
    that fusion, so it checks that the broadcast product (no MatMul) gives the values and the weight gradient
    (against numpy and central differences) in a loop, with Grappler on."""
    tf1 = tf.compat.v1
    rng = np.random.RandomState(3)
    n_out = 8
    enc_value = rng.standard_normal((2, 6, n_out)).astype("float32")  # [B, T, n_out]
    w_value = rng.standard_normal((1, n_out)).astype("float32")
    v_value = rng.standard_normal((n_out,)).astype("float32")
    graph = tf.Graph()
    with graph.as_default():
        enc = tf1.placeholder(tf.float32, [None, None, n_out])
        weights = tf1.get_variable("w", initializer=w_value, use_resource=True)
        w_read = weights.read_value()  # read outside the loop, entered into it (as the rec layer does)

        def body(step, acc_weights, total):
            shape = tf.shape(acc_weights)
            product = dense_matmul(tf.reshape(acc_weights, [-1, 1]), w_read)
            assert product.op.type == "Mul"
            feedback = tf.reshape(product, [shape[0], shape[1], n_out])
            hidden = tf.tanh(enc + feedback)
            att = tf.nn.softmax(tf.reduce_sum(hidden * v_value, axis=-1))  # [B, T]
            return step + 1, acc_weights + att[:, :, None], total + tf.reduce_sum(hidden)

        init = (tf.constant(0), tf.zeros_like(enc[:, :, :1]), tf.constant(0.0))
        _, _, total = tf1.while_loop(lambda step, *_: step < 4, body, init)
        (grad,) = tf.gradients(total, [weights])
        with tf1.Session(config=tf1.ConfigProto()) as session:  # TensorFlow's defaults: Grappler on
            session.run(tf1.global_variables_initializer())
            total_value, grad_value = session.run([total, grad], {enc: enc_value})

    def numpy_total(w):
        acc, out = np.zeros(enc_value.shape[:2] + (1,), "float64"), 0.0
        for _ in range(4):
            hidden = np.tanh(enc_value + acc * w[0])
            energy = (hidden * v_value).sum(-1)
            att = np.exp(energy - energy.max(-1, keepdims=True))
            acc = acc + (att / att.sum(-1, keepdims=True))[:, :, None]
            out += hidden.sum()
        return out

    np.testing.assert_allclose(total_value, numpy_total(w_value.astype("float64")), rtol=1e-4)
    eps, expected = 1e-4, np.zeros((1, n_out))
    for j in range(n_out):  # central differences
        delta = np.zeros((1, n_out))
        delta[0, j] = eps
        expected[0, j] = (numpy_total(w_value + delta) - numpy_total(w_value - delta)) / (2 * eps)
    np.testing.assert_allclose(grad_value, expected, rtol=1e-3, atol=1e-3)
