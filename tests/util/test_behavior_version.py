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
    from returnn.log import log

    log._printed_warning_history.discard("old thing")
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


def test_warning_once_per_message(capsys):
    from returnn.log import log

    log._printed_warning_history.discard("h1 repeated thing")
    BehaviorVersion.require(False, "h1 repeated thing", 5)
    BehaviorVersion.require(False, "h1 repeated thing", 5)
    assert capsys.readouterr().out == ("DEPRECATION WARNING: h1 repeated thing\n"
                                       "This will be disallowed with behavior_version 5.\n")


def test_require_at_version_zero_raises_even_unset():
    # observed: get() is 0 when unset, and 0 >= 0
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match=r"^x \(required since behavior_version >= 0\)$"):
        BehaviorVersion.require(False, "x", 0)


def test_set_errors_and_reset_messages():
    BehaviorVersion.set(None)  # no-op while unset
    assert BehaviorVersion._get_state() == (None, 0)
    BehaviorVersion.set(3)
    with pytest.raises(ConfigError, match=r"^behavior_version already set to 3, cannot reset to 4$"):
        BehaviorVersion.set(4)
    with pytest.raises(ConfigError, match=r"^behavior_version already set to 3, cannot reset to None$"):
        BehaviorVersion.set(None)
    BehaviorVersion.set(3.0)  # equal value
    BehaviorVersion._reset()
    with pytest.raises(ConfigError, match="non-negative integer"):
        BehaviorVersion.set(-1)
    with pytest.raises(ConfigError, match="non-negative integer"):
        BehaviorVersion.set("3")


def test_min_behavior_version():
    BehaviorVersion.set_min_behavior_version(7)
    assert BehaviorVersion._get_state() == (None, 7)
    assert BehaviorVersion.get() == 7 and not BehaviorVersion.is_set() and BehaviorVersion.get_if_set() is None
    with pytest.raises(ConfigError, match="below the minimum behavior_version 7"):
        BehaviorVersion.set(5)
    BehaviorVersion.set(8)
    BehaviorVersion.set_min_behavior_version(2)
    assert BehaviorVersion._get_state() == (8, 7)
    with pytest.raises(ConfigError, match=r"^set_min_behavior_version\(9\) not allowed with explicit "
                                          r"behavior_version 8$"):
        BehaviorVersion.set_min_behavior_version(9)


def test_callbacks():
    calls = []
    BehaviorVersion.handle_new_min_version_callbacks.append(lambda: calls.append(("min", BehaviorVersion._get_state())))
    BehaviorVersion.reset_callbacks.append(lambda: calls.append(("reset", BehaviorVersion._get_state())))
    try:
        BehaviorVersion._reset()
        BehaviorVersion.set_min_behavior_version(3)
        BehaviorVersion.set_min_behavior_version(2)
        BehaviorVersion.set_min_behavior_version(4)
        BehaviorVersion._reset((5, 1))
    finally:
        BehaviorVersion.handle_new_min_version_callbacks.pop()
        BehaviorVersion.reset_callbacks.pop()
    # the order observed from the reference
    assert calls == [("reset", (None, 0)), ("min", (None, 0)), ("min", (None, 3)), ("min", (None, 4)),
                     ("reset", (5, 1)), ("min", (5, 1))]


def test_newer_than_latest_warns(capsys):
    BehaviorVersion.set(100)
    out = capsys.readouterr().out
    assert out.startswith("WARNING: behavior_version 100 > latest known behavior_version 38. Your RETURNN version "
                          "is too old (")


def _build_net_without_from():
    import tensorflow as tf

    from returnn.config import Config
    from returnn.tf.network import TFNetwork

    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 5}}}), train_flag=False)
        net.construct_from_dict({"a_no_from": {"class": "linear", "activation": None, "n_out": 2},
                                 "output": {"class": "copy", "from": "a_no_from"}})
        return net


def test_missing_from_warns_below_version_1(capsys):
    """Observed from the reference (behavior_version unset): the warning below, once per text; the network builds
    with "from": "data"."""
    from returnn.log import log

    log.initialize(verbosity=[5])
    log._printed_warning_history.discard('Missing "from" in layer definition: /a_no_from')
    net = _build_net_without_from()
    assert net.get_layer("a_no_from").sources[0].name == "data"
    _build_net_without_from()
    out = capsys.readouterr().out
    assert out.count('DEPRECATION WARNING: Missing "from" in layer definition: /a_no_from\n'
                     'This will be disallowed with behavior_version 1.\n') == 1


def test_missing_from_raises_from_version_1():
    """Observed from the reference with behavior_version = 1: BehaviorVersion.RequirementNotSatisfied with this
    exact message."""
    BehaviorVersion.set(1)
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied) as exc_info:
        _build_net_without_from()
    assert str(exc_info.value) == 'Missing "from" in layer definition: /a_no_from (required since behavior_version >= 1)'
    assert isinstance(exc_info.value, ConfigError)  # rnn.py prints it without traceback


def test_util_package_names_behavior_version_backend_numbers_dict():
    # as the reference's returnn.util (observed: BackendEngine, BehaviorVersion, NumbersDict)
    import returnn.util as util
    from returnn.util.backend import BackendEngine
    from returnn.util.behavior_version import BehaviorVersion
    from returnn.util.numbers_dict import NumbersDict

    assert (util.BehaviorVersion, util.BackendEngine, util.NumbersDict) == (BehaviorVersion, BackendEngine, NumbersDict)
