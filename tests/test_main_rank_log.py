"""rnn.py's start-up leaves the distributed decision to returnn.tf.distributed.startup: for a task of the TF engine,
a worker of rank > 0 logs to ``<log>.rank<N>`` from its first line; ``nop`` imports no TensorFlow, even with
``use_horovod = True`` (run in a fresh interpreter, as rnn.py is)."""

import json
import os
import subprocess
import sys

SCRIPT = """
import sys
from returnn import __main__ as main
main.init_config(command_line_options=sys.argv[1:])
main.init_log()
print(main.config.list("log", []), "tensorflow" in sys.modules)
"""
TF_CONFIG_RANK1 = json.dumps({"cluster": {"worker": ["localhost:1", "localhost:2"]},
                              "task": {"type": "worker", "index": 1}})


def _start_up(tmp_path, *args):
    env = dict(os.environ, TF_CONFIG=TF_CONFIG_RANK1)
    log_file = str(tmp_path / "train.log")
    out = subprocess.run([sys.executable, "-c", SCRIPT, "++log", log_file, "++log_verbosity", "1", *args],
                         env=env, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1], log_file


def test_train_worker_rank1_logs_to_its_own_file(tmp_path):
    line, log_file = _start_up(tmp_path, "++task", "train", "++use_horovod", "True")
    assert line == f"[{log_file + '.rank1'!r}] True"


def test_train_not_distributed_keeps_the_log(tmp_path):
    line, log_file = _start_up(tmp_path, "++task", "train")
    assert line == f"[{log_file!r}] True"


def test_nop_imports_no_tensorflow(tmp_path):
    line, log_file = _start_up(tmp_path, "++task", "nop", "++use_horovod", "True")
    assert line == f"[{log_file!r}] False"
