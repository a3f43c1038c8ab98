"""ctc_loss layer: -log p(targets | logits) per sequence, values observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

# observed from the reference: logits of a linear layer (4 classes, the blank last), targets [[0, 1, 2], [2, 2]]
LOGITS = np.array([
    [[-0.23244126, -0.11003204, 0.20224072, 0.17740709], [0.58959651, -0.92946464, -1.83044767, -2.16040254],
     [-0.36456087, 0.221102, 0.76491535, 0.91749221], [1.00177968, -0.7104882, -1.79467642, -0.81288886],
     [-0.324396, 0.38392586, 0.74737805, 0.47437876]],
    [[-0.13365775, -0.45887119, -0.61162692, -1.76919580], [0.42529327, -0.37999240, -0.85217637, -0.47741875],
     [0.6078819, 0.37585825, 0.11665328, 2.08965516], [-0.35102016, -0.02274169, 0.34524423, -0.0441184],
     [-0.26150203, 0.10088058, 0.25744885, -0.43273070]]], "float32")
EXTERN = {"data": {"dim": 4}, "classes": {"dim": 3, "sparse": True}}


def test_ctc_loss_per_sequence_observed(session):
    net = build_net({"output": {"class": "ctc_loss", "logits": "data", "targets": "data:classes", "loss": "as_is"}},
                    EXTERN, train_flag=False)
    out = net.get_default_output_layer().output
    assert out.batch_shape == (None,) and out.dtype == "float32"
    feed = make_feed(net, {"data": LOGITS, "classes": np.array([[0, 1, 2], [2, 2, 0]], "int32")},
                     {"data": [5, 4], "classes": [3, 2]})
    np.testing.assert_allclose(session.run(out.placeholder, feed), [4.0181885, 3.798764], rtol=1e-5)


def test_ctc_loss_max_approx_not_provided():
    with pytest.raises(LayerArgError, match="max_approx"):
        build_net({"output": {"class": "ctc_loss", "logits": "data", "targets": "data:classes", "max_approx": True}},
                  EXTERN)


def test_as_is_loss_as_error_with_custom_inv_norm_factor(session):
    """loss_opts as_error: the value is the loss's error (no value: not trained); custom_inv_norm_factor: the sum of
    that layer's output is the number of frames (here the target lengths), as the reference."""
    net = build_net({"len": {"class": "length", "from": "data:classes"},
                     "output": {"class": "edit_distance", "a": "data:a", "b": "data:classes", "loss": "as_is",
                                "loss_opts": {"custom_inv_norm_factor": "len", "as_error": True}}},
                    {"data": {"dim": 2}, "a": {"dim": 3, "sparse": True}, "classes": {"dim": 3, "sparse": True}})
    losses, _total, _constraints = net.get_losses_initialized(with_total=True)
    holder = losses["output"]
    assert holder.get_loss_value() is None
    feed = make_feed(net, {"a": np.array([[0, 1, 2], [1, 1, 0]], "int32"),
                           "classes": np.array([[0, 2, 0, 0], [1, 0, 0, 0]], "int32")},
                     {"a": [3, 2], "classes": [2, 1]})
    error, frames = session.run([holder.get_error_value(), holder.get_num_frames()], feed)
    assert error == 1 + 1 and frames == 2 + 1  # distances [0 1 2]/[0 2]: 1 deletion; [1 1]/[1]: 1 deletion
