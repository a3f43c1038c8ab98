"""The layer/loss registry registers each name once: a second class under a taken name raises (naming both
classes) instead of silently replacing the first (which one won depended on import order). ``"rec"`` is one
class, :class:`returnn.tf.layers.rec.RecLayer`, for string units and unit dicts alike."""

import importlib
import pkgutil

import numpy as np
import pytest

import returnn
from returnn.config import Config
from returnn.tf.layers.base import LayerBase, Loss
from returnn.tf.layers.basic import get_layer_class
from returnn.tf.layers.core.registry import LAYERS, LOSSES, LayerClassRegistrationError, register_layer, register_loss
from returnn.tf.network import TFNetwork


def _fresh_class(name, **attrs):
    return type(name, (LayerBase,), {"__module__": "returnn.tf.layers.test_only", **attrs})


def test_second_builtin_class_under_taken_name_raises():
    first = register_layer(_fresh_class("First", layer_class="test_registry_x"))
    try:
        with pytest.raises(LayerClassRegistrationError) as exc_info:
            register_layer(_fresh_class("Second", layer_class="test_registry_x"))
        assert str(exc_info.value).splitlines()[0] == (
            "cannot register layer class returnn.tf.layers.test_only.Second as 'test_registry_x': that name is "
            "already taken by returnn.tf.layers.test_only.First")
        assert isinstance(exc_info.value, AssertionError)  # as the reference's assert
        assert LAYERS.get("test_registry_x") is first  # the first one stays
        with pytest.raises(LayerClassRegistrationError, match="'linear': that name is already taken by "
                                                              "returnn.tf.layers.linear.linear.LinearLayer"):
            register_layer(_fresh_class("Third", layer_class="test_registry_y"), aliases=["linear"])
        assert "test_registry_y" not in LAYERS
        assert register_layer(first) is first  # the same class again: fine
    finally:
        LAYERS._entries.pop("test_registry_x", None)  # noqa: SLF001 (test cleanup)


def test_second_loss_class_under_taken_name_raises():
    cls = type("MyCe", (Loss,), {"class_name": "ce", "__module__": "returnn.tf.layers.test_only"})
    with pytest.raises(LayerClassRegistrationError, match="cannot register loss class returnn.tf.layers.test_only"
                                                          ".MyCe as 'ce'"):
        register_loss(cls)
    assert LOSSES.get("ce").__name__ == "CrossEntropyLoss"


def test_every_module_imports_without_a_registration_clash():
    """Importing every module of the package registers each layer/loss name once (a clash raises at import)."""
    for info in pkgutil.walk_packages(returnn.__path__, "returnn."):
        importlib.import_module(info.name)
    names = LAYERS.names()
    assert len(names) == len(set(names))


def test_rec_is_one_class():
    from returnn.tf.layers import rec as rec_module
    from returnn.tf.layers.recurrent import RecLayer as family_rec
    from returnn.tf.layers.recurrent.rec_layer import StringUnitRecLayer

    assert get_layer_class("rec") is rec_module.RecLayer is family_rec
    assert issubclass(rec_module.RecLayer, StringUnitRecLayer)
    assert [cls for cls in set(LAYERS._entries.values()) if getattr(cls, "layer_class", None) == "rec"] == [  # noqa
        rec_module.RecLayer]


def test_rec_string_unit_and_unit_dict_build_the_registered_class(session):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=False)
    net.construct_from_dict({
        "lstm": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": "data"},
        "loop": {"class": "rec", "from": "data", "unit": {
            "output": {"class": "linear", "activation": None, "n_out": 2, "from": ["data:source", "prev:output"]}}},
        "output": {"class": "copy", "from": "lstm"}})
    from returnn.tf.layers.rec import RecLayer

    assert type(net.get_layer("lstm")) is RecLayer and type(net.get_layer("loop")) is RecLayer
    session.run(__import__("tensorflow").compat.v1.global_variables_initializer())
    x = np.ones((1, 2, 3), "float32")
    feed = {net.extern_data.data["data"].placeholder: x,
            net.extern_data.data["data"].get_sequence_lengths(): [2]}
    lstm, loop = session.run([net.get_layer("lstm").output.placeholder, net.get_layer("loop").output.placeholder],
                             feed_dict=feed)
    assert lstm.shape == (2, 1, 4) and loop.shape == (2, 1, 2)  # time-major, as the reference
