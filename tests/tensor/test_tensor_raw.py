"""Tests for the raw-tensor methods of returnn.tensor.Tensor (lengths, masks, layouts) with the TF backend.
Expected values observed from the reference (returnn 1.20261022) for the same calls on the same inputs."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.util.data  # noqa: F401  (the public path installs the TF raw backend)
from returnn.errors import TensorArgError
from returnn.tensor import Data, Dim, SpatialDim

X = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3)
LENS = [4, 2]


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g, tf.compat.v1.Session(graph=g) as sess:
        x_ph = tf.compat.v1.placeholder(tf.float32, (None, None, 3), name="x_ph")
        x_len = tf.compat.v1.placeholder(tf.int32, (None,), name="x_len")
        x = Data("x", dim=3, placeholder=x_ph, size_placeholder={0: x_len})

        def run(t):
            return sess.run(t, feed_dict={x_ph: X, x_len: LENS})

        yield x, x_len, run


def test_lengths_and_shape_values_like_reference(graph):
    x, x_len, run = graph
    assert repr(x) == "Tensor{'x', [B,T|\"time:var:'x_len:0':x\"[B],F|F'feature:x'(3)]}"
    assert x.get_sequence_lengths() is x_len and x.get_dynamic_size(1) is x_len
    assert Dim.get_tag_from_size_tensor(x_len) is x.dims[1]
    assert run(x.time_dimension()) == 4 and run(x.get_dim(1)) == 4 and x.get_dim(2) == 3 and run(x.get_dim(0)) == 2
    assert run(x.get_batch_dim()) == 2
    assert run(x.get_sequence_lengths_broadcast()).tolist() == [[[4]], [[2]]]
    assert run(x.dims[1].get_dim_value()) == 4 and x.dims[2].get_dim_value() == 3


def test_masks_like_reference(graph):
    x, _, run = graph
    assert run(x.get_sequence_mask()).tolist() == [[True, True, True, True], [True, True, False, False]]
    assert run(x.get_sequence_mask_broadcast()).tolist() == [[[True], [True], [True], [True]],
                                                             [[True], [True], [False], [False]]]
    masked = run(x.copy_masked(0.).placeholder)
    expected = X.copy()
    expected[1, 2:] = 0.
    np.testing.assert_array_equal(masked, expected)
    mask = x.get_sequence_mask_tensor(1)
    assert mask.dims[1] is x.dims[1] and mask.dtype == "bool"


def test_layouts_like_reference(graph):
    x, x_len, run = graph
    np.testing.assert_array_equal(run(x.get_placeholder_as_batch_major()), X)
    np.testing.assert_array_equal(run(x.get_placeholder_as_time_major()), X.transpose(1, 0, 2))
    tm = x.copy_as_time_major()
    assert tm.size_placeholder == {0: x_len} and tm.is_time_major
    np.testing.assert_array_equal(run(x.copy_add_spatial_dim(1).placeholder), X[:, None])
    np.testing.assert_array_equal(run(x.copy_add_feature_dim().placeholder), X[..., None])
    np.testing.assert_array_equal(run(x.copy_add_dim_by_tag(SpatialDim("new", 2), unbroadcast=True).placeholder),
                                  np.repeat(X[:, :, None], 2, axis=2))
    np.testing.assert_array_equal(run(x.copy_add_dim_by_tag(SpatialDim("new", 2)).placeholder), X[:, :, None])
    other = Data("y", dim=3, batch_dim_axis=1)
    compat = x.copy_compatible_to(other)
    np.testing.assert_array_equal(run(compat.placeholder), X.transpose(1, 0, 2))
    assert compat.size_placeholder == {0: x_len}
    expanded = x.copy_compatible_to(Data("y", shape=(None, 2, 3)))
    assert repr(expanded) == ("Tensor{'x', [B,T|\"time:var:'x_len:0':x\"[B],'spatial1:static2:y_dummy_dim1'(1),"
                              "F|F'feature:x'(3)]}")
    np.testing.assert_array_equal(run(expanded.placeholder), X[:, :, None])
    split = x.copy_split_feature_dim(3)
    assert repr(split) == ("Tensor{'x', [B,T|\"time:var:'x_len:0':x\"[B],'feature_split_rem_1'(1),"
                           "F|F'feature_split_new_3'(3)]}")
    np.testing.assert_array_equal(run(split.placeholder), X[:, :, None])


def test_data_from_lengths_of_another_data_shares_its_time_dim(graph):
    x, x_len, run = graph
    y = Data("x3", dim=3, size_placeholder={0: x_len})
    assert y.dims[1] is x.dims[1] and repr(y) == "Tensor{'x3', [B,T|\"time:var:'x_len:0':x\"[B],F|F'feature:x3'(3)]}"
    z = Data("x5", dim=5, sparse=True, size_placeholder={0: x_len + 1})
    assert z.dims[1] != x.dims[1] and repr(z) == (
        "Tensor{'x5', [B,T|\"time:var:'add:0':x5\"[B]], dtype='int32', sparse_dim=Dim{F'x5:sparse-dim'(5)}}")


def test_template_methods_need_the_raw_tensor():
    with pytest.raises(TensorArgError, match="needs the raw tensor"):
        Data("x", dim=3).get_placeholder_as_batch_major()
    with pytest.raises(TensorArgError, match="not known"):
        Data("x", dim=3).get_sequence_lengths()
