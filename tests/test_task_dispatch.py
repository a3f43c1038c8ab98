"""Tests for returnn.tasks: the task table and the TensorFlow start-up line."""

import re

import pytest

from returnn.errors import UnknownNameError
from returnn.tasks import TASKS, check_task, print_tensorflow_version, task_needs_tensorflow


def test_task_table():
    for task in ("train", "eval", "forward", "search", "compute_priors", "nop"):
        check_task(task)
    check_task("config:my_function")
    assert task_needs_tensorflow("train") and not task_needs_tensorflow("nop")
    with pytest.raises(UnknownNameError) as info:
        check_task("foward")
    assert info.value.suggestions == ("forward",) and "search" in info.value.known
    assert set(TASKS) >= {"train", "eval", "forward", "search"}


def test_tensorflow_version_line(capsys):
    import tensorflow as tf

    print_tensorflow_version()
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"TensorFlow: (\S+) \((\S+)\) \(<(site-package|dev)> in .+tensorflow\)", line), line
    assert line.startswith(f"TensorFlow: {tf.__version__} ")


def test_every_task_of_the_table_names_a_function_taking_the_config():
    """One table: each provided task's 'module:function' imports and takes the config; 'analyze' (the reference's,
    not provided) is rejected by check_task before anything runs, naming analyze_data."""
    import importlib
    import inspect

    from returnn.errors import ConfigValueError

    for task, info in TASKS.items():
        if info["run"] is None:
            continue
        module_name, func_name = info["run"].split(":")
        func = getattr(importlib.import_module(module_name), func_name)
        assert list(inspect.signature(func).parameters) == ["config"], task
    assert TASKS["hpx"]["run"] == TASKS["forward"]["run"]
    with pytest.raises(ConfigValueError) as info:
        check_task("analyze")
    assert "'analyze'" in str(info.value) and "analyze_data" in str(info.value)


@pytest.mark.parametrize("keys, expect_line", [({}, False), ({"use_tensorflow": True}, True),
                                               ({"backend": "tensorflow"}, True)])
def test_nop_prints_the_tensorflow_line_when_the_config_names_tensorflow(capsys, keys, expect_line):
    # observed on the reference: `rnn.py -x nop` prints no "TensorFlow: " line, with ++use_tensorflow 1 or
    # ++backend tensorflow it prints one
    from returnn.config import Config
    from returnn.tasks import run_task
    from returnn.util.backend import BackendEngine

    config = Config()
    config.update(dict(keys))
    BackendEngine.select_engine(config=config)
    try:
        run_task(config, "nop")
    finally:
        BackendEngine.select_engine(config=Config())
    out = capsys.readouterr().out
    assert ("TensorFlow: " in out) == expect_line, out
    assert "Task: No-operation" in out
