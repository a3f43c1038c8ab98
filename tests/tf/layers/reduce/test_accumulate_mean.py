"""accumulate_mean: param name/init as observed from the reference; the running update against numpy."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed


def test_accumulate_mean(session):
    net = build_net({"a": {"class": "accumulate_mean", "exp_average": 0.5, "from": "data", "is_output_layer": True},
                     "p": {"class": "accumulate_mean", "exp_average": 0.1, "is_prob_distribution": True,
                           "from": "data", "is_output_layer": True}}, {"data": {"dim": 3}})
    a = net.get_layer("a")
    assert repr(a.output) == "Tensor{'a_output', [F|F'feature:data'(3)]}"
    assert [v.name for v in tf.compat.v1.trainable_variables()] == ["a/mean_1:0", "p/mean_1:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.arange(18, dtype="float32").reshape(2, 3, 3)
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    np.testing.assert_allclose(session.run(net.get_layer("p").output.placeholder, feed), [1 / 3] * 3, rtol=1e-6)
    assert session.run(a.output.placeholder, feed).tolist() == [0, 0, 0]  # fetching does not update
    session.run(a.custom_update_op, feed)
    mean = np.concatenate([x[0], x[1, :2]]).mean(0)  # padded frame excluded
    np.testing.assert_allclose(session.run(a.output.placeholder, feed), 0.5 * mean, rtol=1e-6)
