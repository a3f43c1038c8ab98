"""Loss names of layers in extra networks (``"extra.test:aux"``): the name in the extra network (``"aux"``), or
the full name where the main network has a loss of that name too, as observed from the reference (these names
are the keys of the scores in the training log and the learning-rate file)."""

from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 2, "sparse": True}}
AUX = {"class": "softmax", "from": "data", "loss": "ce", "target": "classes", "n_out": 2}


def test_extra_net_losses_named_as_in_the_extra_net(session):
    net = build_net({"output": {"class": "softmax", "from": "data", "loss": "ce"},
                     "extra.test:aux": dict(AUX),
                     "extra.test:aux2": {**AUX, "from": "extra.test:aux", "is_output_layer": True}}, EXTERN)
    losses, _, _ = net.get_losses_initialized()
    assert sorted(losses) == ["aux", "aux2", "output"]
    assert losses["aux"].layer is net.layers["extra.test:aux"]


def test_extra_net_loss_keeps_its_prefix_on_a_name_clash(session):
    net = build_net({"output": {"class": "softmax", "from": "data", "loss": "ce"},
                     "extra.test:aux": dict(AUX), "aux": dict(AUX)}, EXTERN)
    losses, _, _ = net.get_losses_initialized()
    assert sorted(losses) == ["aux", "extra.test:aux", "output"]
    assert losses["aux"].layer is net.layers["aux"]
