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
