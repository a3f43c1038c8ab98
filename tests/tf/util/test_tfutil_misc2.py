"""Parameter split infos, tensor arrays, positional encoding, linear alignment, attention cross entropy, custom
gradients, initializer formulas and event writers of returnn.tf.util.basic."""

import tempfile
import threading

import numpy as np
import pytest
import tensorflow as tf

from returnn.tensor import Data
from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_transform_param_axes_split_info_observed():
    t = tf_util.transform_param_axes_split_info_to_new_shape
    # cases from the reference's tests and observed from the reference
    assert t([[7], [7] * 4], [14, 56]) == [[14], [14] * 4]
    assert t([[3, 7], [7] * 4], [17, 56]) == [[3, 14], [14] * 4]
    assert t([[3, 7], [7] * 4], [15, 56]) == [[1, 14], [14] * 4]
    assert t([[7, 7], [7] * 4], [17, 56]) == [[3, 14], [14] * 4]
    assert t([[7, 7], [7] * 4], [28, 56]) == [[14, 14], [14] * 4]
    assert t([[7], [7] * 4], [7, 56]) == [[7], [14] * 4]
    assert t([[1000, 621, 1280], [1000]], (2645, 1000)) == [[1000, 621, 1024], [1000]]
    assert t([[512, 128, 32], [544]], (512, 544)) == [[512, 0, 0], [544]]
    assert t([[4, 2]], [9]) == [[4, 5]] and t([[4, 2]], [3]) == [[3, 0]]
    with pytest.raises(AssertionError, match="one list of parts per axis"):
        t([[4, 2]], [3, 4])


def test_copy_with_new_split_axes():
    old = np.arange(8 * 20).reshape(8, 20)
    new = tf_util.copy_with_new_split_axes([[3, 5], [5] * 4], [[5, 7], [7] * 4], old)
    assert new.shape == (12, 28)
    for p in range(4):
        np.testing.assert_array_equal(new[:3, p * 7:p * 7 + 5], old[:3, p * 5:p * 5 + 5])
        np.testing.assert_array_equal(new[5:10, p * 7:p * 7 + 5], old[3:, p * 5:p * 5 + 5])
        assert (new[3:5] == 0).all() and (new[:, p * 7 + 5:p * 7 + 7] == 0).all()
    # observed from the reference: shrinking keeps the leading entries of each part
    assert tf_util.copy_with_new_split_axes([[2, 3]], [[3, 2]], np.arange(5.0)).tolist() == [0, 1, 0, 2, 3]
    assert tf_util.copy_with_new_split_axes([[2, 3]], [[3, 2]], np.arange(5.0),
                                            new_values=np.full((5,), -1.0)).tolist() == [0, 1, -1, 2, 3]


def test_param_axes_split_info_on_variable(session):
    v = tf1.get_variable("split_param", shape=(3, 8))
    assert tf_util.get_param_axes_split_info(v) is None
    tf_util.set_param_axes_split_info(v, [[3], [2] * 4])
    assert tf_util.get_param_axes_split_info(v) == [[3], [2, 2, 2, 2]]
    with pytest.raises(AssertionError, match="sum up"):
        tf_util.set_param_axes_split_info(v, [[3], [2, 2]])


def test_tensor_array_helpers(session):
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False, element_shape=tf.TensorShape([None, 13]))
    assert not tf_util.tensor_array_is_dynamic_size(ta) and not tf_util.tensor_array_is_clear_after_read(ta)
    assert tf_util.tensor_array_element_shape(ta).as_list() == [None, 13]
    ta2 = tf_util.tensor_array_like(ta)
    assert session.run(ta2.size()) == 3 and ta2.dtype == tf.float32
    assert tf_util.tensor_array_element_shape(ta2).as_list() == [None, 13]
    ta3 = tf_util.tensor_array_like(tf.TensorArray(tf.int32, size=0, dynamic_size=True), size=2)
    assert tf_util.tensor_array_is_dynamic_size(ta3) and tf_util.tensor_array_is_clear_after_read(ta3)
    ta4 = tf.TensorArray(tf.int32, size=4).unstack(tf.constant([1, 2, 3, 4]))
    assert session.run(tf_util.tensor_array_stack(ta4, start=1, stop=3)).tolist() == [2, 3]


def test_positional_encoding_observed(session):
    # observed from the reference
    np.testing.assert_allclose(session.run(tf_util.get_positional_encoding(num_channels=5, length=2)), [
        [0.0, 0.0, 1.0, 1.0, 0.0], [0.8414709568023682, 9.99999901978299e-05, 0.5403022766113281, 1.0, 0.0]],
        rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(session.run(tf_util.get_positional_encoding(
        num_channels=6, length=3, min_timescale=2.0, max_timescale=4.0))[2], [
        -0.756802499294281, 0.3080717921257019, 0.9092974066734314, -0.6536436080932617, -0.9513630867004395,
        -0.416146844625473], rtol=1e-5, atol=1e-6)
    pos = tf.constant([[0, 1, 2], [5, 6, 7]])
    both, single = session.run([tf_util.get_positional_encoding(num_channels=8, position=pos),
                                tf_util.get_positional_encoding(num_channels=8, position=pos[1])])
    assert both.shape == (2, 3, 8)
    np.testing.assert_allclose(both[1], single)
    with pytest.raises(AssertionError, match="length or position"):
        tf_util.get_positional_encoding(num_channels=4)


def test_linear_alignment_out_to_in_indices(session):
    f = tf_util.get_linear_alignment_out_to_in_indices
    assert session.run(f(input_lens=[7, 3, 1], output_lens=[3, 3, 3])).tolist() == [[1, 3, 5], [0, 1, 2], [0, 0, 0]]
    assert session.run(f(input_lens=[7, 4, 2, 1], output_lens=[3, 4, 4, 2], pad_value=-1)).tolist() == [
        [1, 3, 5, -1], [0, 1, 2, 3], [0, 0, 1, 1], [0, 0, -1, -1]]
    in_lens, out_lens = [13, 5, 8], [4, 9, 8]
    got = session.run(f(input_lens=in_lens, output_lens=out_lens))
    for b in range(3):
        assert got[b, :out_lens[b]].tolist() == [int((i + 0.5) * in_lens[b] / out_lens[b]) for i in range(out_lens[b])]


def test_softmax_cross_entropy_over_size_against_numpy(session):
    rng = np.random.RandomState(42)
    dec_lens, enc_lens = [2, 1], [4, 3]
    energy = rng.normal(size=(2, 2, 4, 1)).astype(np.float32)
    weights = rng.uniform(size=(2, 2, 4, 1)).astype(np.float32)
    sizes = {0: tf.constant(dec_lens), 1: tf.constant(enc_lens)}
    logits = Data(name="energy", shape=(None, None, 1), placeholder=tf.constant(energy), size_placeholder=sizes)
    labels = Data(name="att", shape=(None, None, 1), placeholder=tf.constant(weights), size_placeholder=sizes)
    for stable in (True, False):
        res = session.run(tf_util.softmax_cross_entropy_over_size(logits=logits, labels=labels,
                                                                  stable_gradient=stable))
        assert res.shape == (2, 2, 1)
        for b in range(2):
            for t in range(dec_lens[b]):
                e = energy[b, t, :enc_lens[b], 0]
                log_p = e - np.log(np.exp(e).sum())
                np.testing.assert_allclose(res[b, t, 0], -(weights[b, t, :enc_lens[b], 0] * log_p).sum(), rtol=1e-5)


def test_custom_gradient_generic_loss_and_error_signal(session):
    tf_util.custom_gradient.register_generic_loss_and_error_signal()
    x = tf.constant([5.0, 1.0])
    y = tf_util.custom_gradient.generic_loss_and_error_signal(loss=2.0, x=x, grad_x=[3.0, -1.0])
    (grad,) = tf.gradients(2.0 * y, x)
    assert session.run([y, grad])[0] == 2.0 and session.run(grad).tolist() == [6.0, -2.0]


def test_custom_gradient_register(session):
    def grad_op(op, grad):
        (a,) = op.inputs
        return [grad * 10.0 * tf.ones_like(a)]

    f = tf_util.CustomGradient().register([tf.float32], op=lambda a: a * a, grad_op=grad_op, name="square_10")
    x = tf.constant([1.0, 2.0])
    y = f(x)
    (grad,) = tf.gradients(tf.reduce_sum(y * 2.0), x)
    assert session.run(y).tolist() == [1.0, 4.0] and session.run(grad).tolist() == [20.0, 20.0]


def test_get_initializer_formulas(session):
    # kinds observed from the reference
    init = tf_util.get_initializer("log(1.0 / 4.0)")
    np.testing.assert_allclose(session.run(init((2, 3))), np.full((2, 3), np.log(0.25)), rtol=1e-6)
    init = tf_util.get_initializer("RandomUniform(-0.01, 0.01)")
    assert init.get_config()["minval"] == -0.01 and init.get_config()["maxval"] == 0.01
    assert np.abs(session.run(init((20, 3)))).max() <= 0.01
    init = tf_util.get_initializer("RandomNormal(0.0, 0.01)")
    assert init.get_config()["mean"] == 0.0 and init.get_config()["stddev"] == 0.01
    init = tf_util.get_initializer('VarianceScaling(scale=6.0, mode="fan_avg", distribution="normal")')
    assert init.get_config()["scale"] == 6.0 and init.get_config()["mode"] == "fan_avg"
    assert session.run(tf_util.get_initializer(0.0)((2, 3))).tolist() == [[0.0] * 3] * 2
    assert session.run(tf_util.get_initializer("constant")((2,))).tolist() == [0.0, 0.0]
    with pytest.raises(Exception, match="at most 2 positional"):
        tf_util.get_initializer("RandomUniform(-1, 1, 3, 4, 5)")
    with pytest.raises(Exception, match="nosuchinit"):
        tf_util.get_initializer("nosuchinit")


def test_stop_event_writer_thread():
    from tensorflow.python.summary.writer.event_file_writer import _EventLoggerThread

    def count():
        return len([t for t in threading.enumerate() if isinstance(t, _EventLoggerThread)])

    before = count()
    with tf.Graph().as_default():
        writer = tf1.summary.FileWriter(tempfile.mkdtemp())
        assert count() == before + 1
        tf_util.stop_event_writer_thread(writer)
    assert count() == before


def test_op_code_compiler_cuda_available():
    assert tf_util.OpCodeCompiler.cuda_available() is False


def test_bleu_score_per_sequence_observed(session):
    h = [[1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 0, 0]]
    t = [[1, 2, 3, 4, 6, 7], [5, 4, 3, 2, 1, 0], [1, 2, 3, 4, 0, 0], [1, 2, 1, 3, 0, 0]]
    res = session.run(tf_util.bleu_score(hypothesis=h, truth=t, hyp_seq_lens=[5, 5, 6, 4], truth_seq_lens=[6, 6, 4, 4]))
    # observed from the reference
    np.testing.assert_allclose(res, [0.547518253326416, 0.13078059256076813, 0.5081327557563782, 0.18995891511440277],
                               rtol=1e-6)
    assert session.run(tf_util.bleu_score(hypothesis=[[]], truth=[[2, 3]], hyp_seq_lens=[0],
                                          truth_seq_lens=[2])).tolist() == [0.0]


def test_softmax_cross_entropy_over_size_keeps_time_major_layout(session):
    # observed with the reference: time-major logits (dec, enc, batch, 1) give (dec, batch, 1); labels batch-major
    rng = np.random.RandomState(1)
    dec_lens, enc_lens = [3, 2], [4, 3]
    energy = rng.normal(size=(3, 4, 2, 1)).astype(np.float32)
    weights = rng.uniform(size=(2, 3, 4, 1)).astype(np.float32)
    logits = Data(name="energy", shape=(None, None, 1), batch_dim_axis=2, placeholder=tf.constant(energy),
                  size_placeholder={0: tf.constant(dec_lens), 1: tf.constant(enc_lens)})
    labels = Data(name="att", shape=(None, None, 1), placeholder=tf.constant(weights),
                  size_placeholder={0: tf.constant(dec_lens), 1: tf.constant(enc_lens)})
    res = session.run(tf_util.softmax_cross_entropy_over_size(logits=logits, labels=labels))
    assert res.shape == (3, 2, 1)
    for b in range(2):
        for t in range(dec_lens[b]):
            e = energy[t, :enc_lens[b], b, 0]
            log_p = e - np.log(np.exp(e).sum())
            np.testing.assert_allclose(res[t, b, 0], -(weights[b, t, :enc_lens[b], 0] * log_p).sum(), rtol=1e-5)
