"""Tests for the name registry and did-you-mean suggestions."""

import pytest

from returnn.errors import UnknownNameError
from returnn.util.registry import Registry
from returnn.util.suggest import close_matches


def test_close_matches():
    assert close_matches("n_ot", ["n_out", "unit_opts", "from", "dropout"]) == ["n_out"]
    assert close_matches("newbob_multiepoch", ["newbob", "newbob_multi_epoch", "constant"]) == ["newbob_multi_epoch"]
    assert close_matches("xyz", ["n_out", "from"]) == []


def test_registry_lookup_and_error():
    reg = Registry("layer class", hints={"lstm": 'use {"class": "rec", "unit": "nativelstm2"}'})
    reg.register("linear", 1, aliases=["forward", "hidden"])
    reg.register("softmax", 2)
    assert reg.get("hidden") == 1 and "forward" in reg and reg.names() == ["forward", "hidden", "linear", "softmax"]
    with pytest.raises(UnknownNameError) as info:
        reg.get("sofmax")
    assert info.value.suggestions == ("softmax",) and isinstance(info.value, LookupError)
    assert "unknown layer class 'sofmax'" in str(info.value)
    with pytest.raises(UnknownNameError) as info:
        reg.get("lstm")
    assert "nativelstm2" in str(info.value)
    with pytest.raises(ValueError):
        reg.register("linear", 3)


def test_registry_normalize():
    reg = Registry("optimizer", normalize=lambda s: s.lower().replace("optimizer", ""))
    reg.register("Adam", "adam-impl")
    assert reg.get("adam") == "adam-impl" and reg.get("AdamOptimizer") == "adam-impl"
