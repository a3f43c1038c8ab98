"""``switch`` with a Python bool condition (or a function giving one): only the chosen branch is built and read,
as the reference (observed: the other branch's layer is not in the network, the output is the chosen layer's; a
constant chosen gives a scalar ``[]``)."""

import numpy as np

from tf_net_helpers import build_net


def _net(condition, false_from="b"):
    return build_net({"a": {"class": "linear", "n_out": 4, "from": "data"},
                      "b": {"class": "linear", "n_out": 5, "from": "data"},
                      "output": {"class": "switch", "condition": condition, "true_from": "a",
                                 "false_from": false_from}}, {"data": {"dim": 3}})


def test_only_the_chosen_branch_is_built(session):
    for condition, chosen, other in ((lambda **_kw: False, "b", "a"), (True, "a", "b")):
        net = _net(condition)
        assert chosen in net.layers and other not in net.layers
        out = net.get_default_output_layer()
        assert out.output.dim == net.layers[chosen].output.dim
        assert out.get_dep_layers() == [net.layers[chosen]]


def test_chosen_constant_is_a_scalar(session):
    net = _net(False, false_from=0.5)
    out = net.get_default_output_layer().output
    assert out.batch_ndim == 0 and out.dtype == "float32"
    assert "a" not in net.layers
    np.testing.assert_allclose(session.run(out.placeholder), 0.5)
