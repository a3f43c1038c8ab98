"""``dense_matmul``: forward and both gradients against numpy, in both gradient orders."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.ops.dense import dense_matmul


@pytest.mark.parametrize("n_in, n_out", [(7, 3), (3, 7), (5, 5)])
def test_dense_matmul_value_and_gradients_against_numpy(session, n_in, n_out):
    rng = np.random.RandomState(n_in * 10 + n_out)
    x_val = rng.randn(11, n_in).astype("float32")
    w_val = rng.randn(n_in, n_out).astype("float32")
    r_val = rng.randn(11, n_out).astype("float32")  # the upstream gradient
    x = tf.constant(x_val)
    w = tf.constant(w_val)
    y = dense_matmul(x, w)
    assert y.op.type == "MatMul"  # a plain MatMul op: Grappler may still fuse BiasAdd and the activation
    # the override only where it is the faster order (n_out < n_in)
    overridden = y.op.node_def.attr["_gradient_op_type"].s.decode() == "ReturnnDenseMatMul"
    assert overridden == (n_out < n_in)
    dx, dw = tf.gradients(y, [x, w], grad_ys=tf.constant(r_val))
    y_out, dx_out, dw_out = session.run([y, dx, dw])
    np.testing.assert_allclose(y_out, x_val @ w_val, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dx_out, r_val @ w_val.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw_out, x_val.T @ r_val, rtol=1e-5, atol=1e-5)
    assert dw_out.shape == (n_in, n_out)
