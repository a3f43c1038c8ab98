"""dropout_axis: the dropout noise is independent over the given axes and shared over the others."""

import numpy
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_dropout_axis_shares_the_mask_over_batch():
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 50}}}), train_flag=True)
        net.construct_from_dict({"output": {"class": "dropout", "dropout": 0.5, "dropout_axis": ["T", "F"],
                                            "from": "data"}})
        data = net.extern_data.get_data("data")
        out = session.run(net.get_default_output_layer().output.placeholder,
                          feed_dict={data.placeholder: numpy.ones((3, 20, 50), "float32"),
                                     data.get_sequence_lengths(): [20, 20, 20]})
    assert set(numpy.unique(out)) <= {0.0, 2.0}
    numpy.testing.assert_array_equal(out[0], out[1])  # the same mask for each sequence
    numpy.testing.assert_array_equal(out[0], out[2])
    assert 0.2 < (out[0] == 0).mean() < 0.8  # independent over T and F
    assert not (out[0] == out[0][:1]).all()
