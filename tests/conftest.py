"""Shared pytest fixtures."""

import os
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@pytest.fixture
def config_dir():
    """Directory of the config-file fixtures (one file per syntax, and broken ones)."""
    return os.path.join(REPO_ROOT, "tests", "data", "configs")


@pytest.fixture(autouse=True)
def _reset_global_state():
    """Each test starts with no global config and the default log (stdout, verbosity 3)."""
    from returnn.config import set_global_config
    from returnn.log import log

    yield
    set_global_config(None)
    log.close()


@pytest.fixture
def latest_behavior():
    """The test runs with the newest behavior_version (the reference's strictest checks); reset after."""
    from returnn.util.behavior_version import BehaviorVersion

    state = BehaviorVersion._get_state()  # noqa: SLF001 (test fixture)
    BehaviorVersion.set_min_behavior_version(BehaviorVersion._latest_behavior_version)  # noqa: SLF001
    yield
    BehaviorVersion._reset(state)  # noqa: SLF001
