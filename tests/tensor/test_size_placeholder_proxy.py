"""Tensor.size_placeholder writes through on item assignment and has as_dict() (as the reference)."""

import tensorflow as tf

from returnn.tensor import Tensor


def test_size_placeholder_item_assignment():
    with tf.Graph().as_default():
        x = Tensor("x", shape=(None, 3))
        sizes = tf.constant([2, 3])
        x.size_placeholder = {}
        x.size_placeholder[0] = sizes
        assert x.size_placeholder.as_dict() == {0: sizes}
        assert type(x.size_placeholder.as_dict()) is dict
        assert x.dims[1].dyn_size is sizes
