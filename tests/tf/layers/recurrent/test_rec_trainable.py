"""A recurrent unit in a ``rec`` layer with ``"trainable": False``: none of its layers' params is trainable, also
those of layers marked ``"trainable": True`` (moved out of the loop or not), as observed from the reference."""

import tensorflow as tf

from tf_net_helpers import build_net

tf.compat.v1.disable_eager_execution()


def _net(trainable):
    return build_net({"output": {"class": "rec", "from": "data", "trainable": trainable, "unit": {
        "inp": {"class": "linear", "from": "data:source", "n_out": 3, "trainable": True},  # moved out (input)
        "acc": {"class": "linear", "from": ["prev:acc", "inp"], "n_out": 3, "trainable": True},  # in the loop
        "out": {"class": "linear", "from": "acc", "n_out": 2, "trainable": True},  # moved out (output)
        "output": {"class": "copy", "from": "out"}}}})


def test_untrainable_rec_layer_overrides_sub_layers(session):
    net = _net(False)
    params = net.get_layer("output").params
    assert {"inp/W", "acc/W", "out/W"} <= set(params)
    trainable = set(net.get_trainable_params())
    assert not any(params[k] in trainable for k in ("inp/W", "acc/W", "out/W"))


def test_trainable_rec_layer_sub_layers_trainable(session):
    net = _net(True)
    params = net.get_layer("output").params
    trainable = set(net.get_trainable_params())
    assert all(params[k] in trainable for k in ("inp/W", "acc/W", "out/W"))


def test_untrainable_rec_layer_sharing_the_scope_of_a_trainable_one(session):
    """as the reference's test_partly_trainable_reclayer: an untrainable rec layer with the name_scope of another
    (trainable) one leaves that one's params trainable"""
    net = build_net({
        "output": {"class": "rec", "from": "data", "unit": {
            "a": {"class": "linear", "from": "data:source", "n_out": 3}, "output": {"class": "copy", "from": "a"}}},
        "label_model": {"class": "rec", "from": "output", "trainable": False, "name_scope": "output/rec",
                        "is_output_layer": True, "unit": {
                            "b": {"class": "linear", "from": "data:source", "n_out": 2, "trainable": False},
                            "output": {"class": "copy", "from": "b"}}}})
    assert sorted(v.op.name for v in net.get_trainable_params()) == ["output/rec/a/W", "output/rec/a/b"]


def test_in_loop_layer_with_absolute_name_scope_is_a_param_of_the_network(session):
    """A layer in the loop with ``"name_scope": "/enc_ctx"`` (its variables outside the rec layer's scope): its params
    are in the network's params and get initialized (the reference lists ``enc_ctx/W``, ``enc_ctx/b`` too)."""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "ctx": {"class": "linear", "from": ["data:source", "prev:ctx"], "n_out": 3, "name_scope": "/enc_ctx"},
        "output": {"class": "copy", "from": "ctx"}}}})
    names = {p.name for p in net.get_params_list()}
    assert {"enc_ctx/W:0", "enc_ctx/b:0"} <= names
    net.initialize_params(session)
    assert session.run(tf.compat.v1.report_uninitialized_variables()).size == 0
