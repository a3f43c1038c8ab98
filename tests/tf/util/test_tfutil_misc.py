"""Legacy TFUtil names configs import: OpCodeCompiler, get_shared_vocab, get_initializer, get_activation_function,
scopes, gradient noise."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ReturnnError
from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1

# every name the published configs import from TFUtil / returnn.tf.util.basic
_CONFIG_NAMES = [
    "where_bc", "Data", "DimensionTag", "OpCodeCompiler", "nd_indices", "tile_transposed",
    "get_rnnt_linear_aligned_output", "create_random_warp_flow_2d", "dense_image_warp", "get_shape", "dropout",
    "get_initializer", "flatten_with_seq_len_mask", "compute_sampled_logits", "matrix_triangular", "to_int32_64", "dot",
    "get_shared_vocab", "safe_exp", "safe_log", "filter_ended_scores", "get_shape_dim", "check_input_dim",
    "check_shape_equal", "expand_dims_unbroadcast", "add_scaled_noise_to_gradients", "sequence_mask_time_major",
    "swapaxes", "OutputWithActivation"]


def test_legacy_module_has_config_names():
    import TFUtil  # noqa: F401  (legacy name, installed by returnn)

    for name in _CONFIG_NAMES:
        assert getattr(TFUtil, name) is getattr(tf_util, name), name


def test_op_code_compiler_raises_clear_error():
    with pytest.raises(ReturnnError) as exc:
        tf_util.OpCodeCompiler(base_name="GetFilteredScore", code_version=1, code="// c++", is_cpp=True,
                               use_cuda_if_available=False, verbose=False)
    assert "GetFilteredScore" in str(exc.value) and "native ops are not compiled here" in str(exc.value)


def test_get_shared_vocab(session):
    labels = ["a", "b@@", ""]
    vocab = tf_util.get_shared_vocab(labels)
    assert tf_util.get_shared_vocab(list(labels)) is vocab
    assert tf_util.get_shared_vocab(["x"]) is not vocab
    assert session.run(vocab).tolist() == [b"a", b"b@@", b""]
    assert vocab.device.endswith("CPU:0")
    # created outside loops: usable in a while loop and after it
    _, res = tf.while_loop(lambda i, _: i < 2, lambda i, acc: (i + 1, tf.gather(tf_util.get_shared_vocab(labels), i)),
                           [0, tf.constant("")])
    assert session.run(res) == b"b@@"
    assert session.run(tf.gather(tf_util.get_shared_vocab(labels), 0)) == b"a"

    class Vocab:
        labels = ["u", "v"]

    assert session.run(tf_util.get_shared_vocab(Vocab())).tolist() == [b"u", b"v"]


def test_get_initializer_eval_local_ns(session):
    init = tf_util.get_initializer("random_normal_initializer(mean=0, stddev=layer)", seed=3,
                                   eval_local_ns={"layer": 0.1})
    assert init.get_config()["stddev"] == 0.1
    assert tf_util.get_initializer("glorot_uniform(seed=2)", seed=3).get_config()["seed"] == 2  # as the reference
    # observed from the reference: glorot_uniform with seed 3 on shape (3, 4)
    values = session.run(tf_util.get_initializer("glorot_uniform", seed=3)((3, 4)))
    np.testing.assert_allclose(values, [[-0.20936608, -0.25918102, 0.88300943, -0.7656229],
                                        [0.00703853, -0.26200354, -0.53822756, -0.87556195],
                                        [-0.13998139, 0.01422334, -0.28760195, -0.03239828]], rtol=1e-6)
    with pytest.raises(ReturnnError):
        tf_util.get_initializer("nope_bad")


def test_get_activation_function():
    assert tf_util.get_activation_function(None) is tf.identity
    assert tf_util.get_activation_function("relu") is tf.nn.relu


@pytest.mark.parametrize("spec, expected", [  # observed from the reference on x = [-1, 0.5, 2]: sums of products
    ("identity + 1", [0.0, 1.5, 3.0]), ("relu+tanh", [-0.7615942, 0.96211714, 2.9640276]),
    ("2*sigmoid", [0.53788286, 1.2449187, 1.7615942]), ("relu + 2*tanh", [-1.5231884, 1.4242343, 3.9280553]),
    ("1 + identity", [0.0, 1.5, 3.0]), ("identity + 2.5", [1.5, 3.0, 4.5]), ("identity*3", [-3.0, 1.5, 6.0])])
def test_activation_sum_of_products_observed(session, spec, expected):
    x = tf.constant([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(session.run(tf_util.get_activation_function(spec)(x)), expected, rtol=1e-6)


def test_activation_constant_in_int_dtype(session):
    x = tf.constant([1, 2], tf.int32)  # observed: [2, 3] int32 (a counter in a rec loop: "identity + 1")
    y = tf_util.get_activation_function("identity + 1")(x)
    assert y.dtype == tf.int32 and session.run(y).tolist() == [2, 3]


def test_reuse_name_scope(session):
    with tf1.variable_scope("outer"):
        with tf.name_scope("ns"):
            assert tf_util.get_current_var_scope_name() == "outer"
            with tf_util.reuse_name_scope("inner") as scope:  # observed: relative to the name scope
                assert scope.name == "outer/ns/inner" and tf_util.get_current_var_scope_name() == "outer/ns/inner"
                assert tf.constant(1, name="c").name == "outer/ns/inner/c:0"
        with tf_util.reuse_name_scope("outer/inner2", absolute=True):
            assert tf.constant(1, name="c").name == "outer/inner2/c:0"
            with tf_util.reuse_name_scope("outer/inner2", absolute=True):  # re-entered: no "_1" suffix
                assert tf.constant(1, name="d").name == "outer/inner2/d:0"
    assert tf_util.get_current_var_scope_name() == ""


def test_add_scaled_noise_to_gradients(session):
    var = tf1.Variable(tf.zeros((5000,)))
    other = tf1.Variable(tf.zeros((2,)))
    out = tf_util.add_scaled_noise_to_gradients([(tf.ones((5000,)), var), (None, other)], 0.1)
    assert out[1] == (None, other) and out[0][1] is var
    noisy = session.run(out[0][0])
    noise = noisy - 1.0
    assert np.all(np.abs(noise) <= 0.2 + 1e-6)  # truncated at 2 stddev
    assert 0.07 < noise.std() < 0.1 and abs(noise.mean()) < 0.01

