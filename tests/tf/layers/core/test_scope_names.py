"""The TF scope of a layer with the layer arg ``name_scope`` (forms observed from the reference, RETURNN
1.20261022: a linear layer's ``W`` is ``<scope>/W``)."""

import pytest

from returnn.tf.layers.core.scope_names import get_layer_scope_name, scope_prefix_of


@pytest.mark.parametrize("net_prefix, name, name_scope, expected", [
    ("", "output", None, "output"),
    ("", "_in", None, ".95.in"),
    ("output/", "layer1", None, "output/layer1"),
    ("", "output", "custom_name", "custom_name"),  # relative
    ("", "output", "a/b", "a/b"),
    ("output/", "layer3", "rel", "output/rel"),
    ("output/", "layer2", "/custom_name", "custom_name"),  # absolute
    ("", "output", "/abs", "abs"),
    ("", "output", "", ""),  # the network's own scope: the root at the top
    ("output/rec/", "layer2", "", "output/rec"),
])
def test_get_layer_scope_name(net_prefix, name, name_scope, expected):
    assert get_layer_scope_name(net_prefix, name, name_scope) == expected


def test_scope_prefix_of():
    assert scope_prefix_of("a/b") == "a/b/"
    assert scope_prefix_of("") == ""


def test_get_layer_scope_name_rejects_non_str():
    with pytest.raises(TypeError, match="name_scope"):
        get_layer_scope_name("", "x", 3)
