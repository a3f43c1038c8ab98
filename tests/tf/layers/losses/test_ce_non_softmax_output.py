"""``ce`` on an output that is not a softmax: the reference's safe log (``log(max(p, 1e-20))``, gradient through
the bound); values observed from the reference on the same network (a ``linear`` layer, params from
``RandomState(0)``)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed


@pytest.mark.parametrize("activation, objective, grad_norms", [
    ("softmax", 6.000128, [4.18966, 1.01234]),
    ("sigmoid", 2.642392, [2.23476, 1.03359]),
    # log-probs read as probabilities: -log(1e-20) per frame; the gradient 1e20 times that of the softmax case
    # (the reference's float32 norm of it overflows: printed as inf)
    ("log_softmax", 230.2585, [4.18966e20, 1.01234e20]),
])
def test_ce_on_non_softmax_output_like_reference(session, activation, objective, grad_norms):
    net = build_net({"output": {"class": "linear", "activation": activation, "from": "data", "n_out": 4,
                                "loss": "ce"}}, {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    params = tf.compat.v1.trainable_variables()
    for var in params:
        var.load(rs.uniform(-1, 1, var.shape.as_list()), session)
    feed = make_feed(net, {"data": rs.randn(2, 3, 3).astype("float32"), "classes": [[0, 1, 2], [3, 1, 0]]},
                     {"data": [3, 2], "classes": [3, 2]})
    obj = net.get_objective()
    value, grads = session.run([obj, tf.compat.v1.gradients(obj, params)], feed)
    np.testing.assert_allclose(value, objective, rtol=1e-5)
    norms = [np.sqrt(np.sum(np.square(g.astype("float64")))) for g in grads]
    np.testing.assert_allclose(norms, grad_norms, rtol=1e-4)
