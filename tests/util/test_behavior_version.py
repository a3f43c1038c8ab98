"""Tests for BehaviorVersion: deprecation warnings for old configs, errors for new ones."""

import pytest

from returnn.errors import ConfigError
from returnn.util.basic import BehaviorVersion


@pytest.fixture(autouse=True)
def _reset():
    BehaviorVersion._reset()
    yield
    BehaviorVersion._reset()


def test_unset_warns(capsys):
    assert BehaviorVersion.get() == 0 and not BehaviorVersion.is_set()
    BehaviorVersion.require(False, "old thing", 5)
    assert capsys.readouterr().out == "DEPRECATION WARNING: old thing\nThis will be disallowed with behavior_version 5.\n"


def test_set_raises_for_newer_rules():
    BehaviorVersion.set(12)
    assert BehaviorVersion.get() == 12 and BehaviorVersion.get_if_set() == 12
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied) as info:
        BehaviorVersion.require(False, "old thing", 5)
    assert str(info.value) == "old thing (required since behavior_version >= 5)"
    BehaviorVersion.require(False, "newer thing", 20)  # only a warning
    BehaviorVersion.require(True, "fine", 1)
    with pytest.raises(ConfigError):
        BehaviorVersion.set(13)
    BehaviorVersion.set(12)  # same value is fine
