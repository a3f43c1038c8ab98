"""returnn.tf.ops.softmax_ce: the cross entropy per row and its gradient against numpy (float64 log-sum-exp)."""

import numpy
import tensorflow as tf

from returnn.tf.ops.softmax_ce import sparse_softmax_ce


def _numpy_ce_and_grad(z, labels, g):
    z = z.astype("float64")
    m = z.max(axis=-1, keepdims=True)
    lse = m[:, 0] + numpy.log(numpy.exp(z - m).sum(axis=-1))
    ce = lse - z[numpy.arange(len(labels)), labels]
    p = numpy.exp(z - lse[:, None])
    one_hot = numpy.eye(z.shape[1])[labels]
    return ce, g[:, None] * (p - one_hot)


def test_sparse_softmax_ce_values_and_gradient():
    rng = numpy.random.RandomState(7)
    n, f = 6, 11
    z = (rng.normal(size=(n, f)) * 4.0).astype("float32")
    z[2, 3] = 120.0  # a confident row: softmax's p at the other classes underflows; the CE stays finite
    labels = numpy.array([0, 10, 5, 3, 7, 7], dtype="int32")
    g = rng.uniform(0.5, 2.0, size=(n,)).astype("float32")
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        zs = tf.constant(z)
        ce = sparse_softmax_ce(zs, tf.constant(labels))
        dz, = tf.gradients(tf.reduce_sum(ce * tf.constant(g)), [zs])
        fused = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=zs)
        got_ce, got_dz, got_fused = session.run([ce, dz, fused])
    want_ce, want_dz = _numpy_ce_and_grad(z, labels, g)
    assert numpy.isfinite(got_ce).all() and got_ce[2] > 100.0  # label 5 of the row whose class 3 is at 120
    numpy.testing.assert_allclose(got_ce, want_ce, rtol=1e-6, atol=1e-5)
    numpy.testing.assert_allclose(got_ce, got_fused, rtol=1e-6, atol=1e-5)
    numpy.testing.assert_allclose(got_dz, want_dz, rtol=1e-5, atol=1e-6)


def test_sparse_softmax_ce_other_dtype_is_the_fused_kernel():
    z = numpy.array([[1.0, 2.0, 0.5]])
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        ce = sparse_softmax_ce(tf.constant(z, tf.float64), tf.constant([1]))
        assert ce.op.type == "SparseSoftmaxCrossEntropyWithLogits"
        got = session.run(ce)
    numpy.testing.assert_allclose(got, _numpy_ce_and_grad(z, numpy.array([1]), numpy.ones(1))[0], rtol=1e-12)


def test_sparse_softmax_ce_labels_computed_from_a_variable():
    """Labels that depend on a variable (e.g. a teacher's hypotheses): the gradient goes to the logits only."""
    z = numpy.array([[0.5, 2.0, -1.0], [1.0, 0.0, 3.0]], dtype="float32")
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        teacher = tf.compat.v1.get_variable("teacher", initializer=numpy.array([[0.0, 1.0, 0.0], [3.0, 0.0, 1.0]],
                                                                                dtype="float32"))
        labels = tf.argmax(teacher, axis=-1, output_type=tf.int32)  # [1, 0]
        student = tf.compat.v1.get_variable("student", initializer=z)
        ce = sparse_softmax_ce(student, labels)
        d_student, d_teacher = tf.gradients(tf.reduce_sum(ce), [student, teacher])
        assert d_teacher is None
        session.run(tf.compat.v1.global_variables_initializer())
        got_ce, got_dz = session.run([ce, d_student])
    want_ce, want_dz = _numpy_ce_and_grad(z, numpy.array([1, 0]), numpy.ones(2))
    numpy.testing.assert_allclose(got_ce, want_ce, rtol=1e-6)
    numpy.testing.assert_allclose(got_dz, want_dz, rtol=1e-5, atol=1e-7)
