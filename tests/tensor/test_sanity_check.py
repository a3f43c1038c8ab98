"""Tensor.sanity_check: consistent descriptions pass, inconsistent raw tensors raise (naming the problem)."""

import pytest
import tensorflow as tf

from returnn.errors import TensorArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor, batch_dim


def test_sanity_check_ok_and_placeholder_mismatch():
    time, feat = SpatialDim("time"), FeatureDim("feat", 3)
    with tf.Graph().as_default():
        x = Tensor("x", dims=[batch_dim, time, feat])
        x.sanity_check()
        x.placeholder = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        x.sanity_check()
        x.placeholder = tf.compat.v1.placeholder(tf.float32, [None, None, 4])
        with pytest.raises(TensorArgError, match="size of axis 2"):
            x.sanity_check()
        x.sanity_check(ignore_placeholder=True)
        x.placeholder = tf.compat.v1.placeholder(tf.float32, [None, 3])
        with pytest.raises(TensorArgError, match="rank"):
            x.sanity_check()
        x.placeholder = tf.compat.v1.placeholder(tf.int32, [None, None, 3])
        with pytest.raises(TensorArgError, match="dtype"):
            x.sanity_check()


def test_sanity_check_sparse_dtype():
    with pytest.raises(TensorArgError, match="non-integer"):
        Tensor("y", dims=[batch_dim], sparse_dim=FeatureDim("c", 5), dtype="float32").sanity_check()
    Tensor("y", dims=[batch_dim], sparse_dim=FeatureDim("c", 5), dtype="int32").sanity_check()
