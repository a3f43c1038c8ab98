"""The start-up warning about misspelled config keys (returnn.options.unknown_keys)."""

from __future__ import annotations

from returnn.config import Config
from returnn.options.unknown_keys import closest_key, edit_distance, find_misspelled_keys

CONFIG = '''#!rnn.py
import os
import numpy as np
task = "nop"
learning_rate_controll = "newbob_multi_epoch"
batch_szie = 5000
num_epochs = 10
# helper globals: far from every key, or read by the config itself
enc_layers = 6
dim_model = 512
lr = 1e-3
learning_rate = lr
max_seq_len = 75
max_seq = 300  # close to max_seqs, but read below
max_seqs = max_seq
_privat_batch_size = 3
def get_netwrok(epoch, **kwargs):
    return {"output": {"class": "softmax", "loss": "ce", "n_out": dim_model * enc_layers}}
class MyLayer:
    def read(self, network):
        return network.get_config().typed_value("my_custom_setting")
my_custom_settin = 1
my_custom_setting = 2
'''


def _load(tmp_path, text=CONFIG, argv=()):
    path = tmp_path / "test.config"
    path.write_text(text)
    config = Config()
    files = config.parse_cmd_args(list(argv))
    for filename in [str(path)] + files:
        config.load_file(filename)
    config.apply_cmd_overrides()
    return config


def test_edit_distance():
    assert edit_distance("batch_szie", "batch_size", 2) == 1  # a swap of neighbours is one edit
    assert edit_distance("num_epoch", "num_epochs", 2) == 1
    assert edit_distance("learning_rate_controll", "learning_rate_control", 2) == 1
    assert edit_distance("abc", "xyz", 1) == 2  # above the limit: limit + 1
    assert edit_distance("max_seq_len", "max_seq_length", 5) == 3


def test_closest_key_limits():
    known = ["num_epochs", "batch_size", "max_seqs", "model", "task", "learning_rate_control"]
    assert closest_key("num_epoch", known) == "num_epochs"
    assert closest_key("learning_rate_contrl", known) == "learning_rate_control"
    assert closest_key("modl", known) == "model"
    assert closest_key("tsk", known) is None  # shorter than 4: never
    assert closest_key("nm_epoc", known) is None  # two edits in a name of up to 9 characters
    assert closest_key("learning_rate_ctrl", known) is None  # three edits


def test_python_config(tmp_path):
    found = find_misspelled_keys(_load(tmp_path))
    assert found == [("batch_szie", "batch_size", False), ("get_netwrok", "get_network", False),
                     ("learning_rate_controll", "learning_rate_control", False)]


def test_helper_globals_stay_silent(tmp_path):
    """Names far from every key, names the config reads (also as a string in a custom layer), private names and
    modules are never warned about."""
    names = {name for name, _, _ in find_misspelled_keys(_load(tmp_path))}
    assert not names & {"enc_layers", "dim_model", "lr", "max_seq_len", "max_seq", "_privat_batch_size", "os", "np",
                        "my_custom_settin", "my_custom_setting", "MyLayer"}


def test_command_line(tmp_path):
    config = _load(tmp_path, argv=["++num_epoch", "3", "++max_seq", "10", "++num_epochs", "4"])
    found = find_misspelled_keys(config)
    assert ("num_epoch", "num_epochs", True) in found
    assert not [f for f in found if f[0] in ("max_seq", "num_epochs")]  # max_seq: read by the config


def test_line_based_and_json_configs(tmp_path):
    lines = tmp_path / "a.txt"
    lines.write_text("task nop\nnum_epoh 3\nsave_intervall 2\n")
    config = Config()
    config.load_file(str(lines))
    assert find_misspelled_keys(config) == [("save_intervall", "save_interval", False)]  # num_epoh: 2 edits
    js = tmp_path / "b.json"
    js.write_text('{"learning_rate_fil": "lr.txt", "model": "m"}')
    config = Config()
    config.load_file(str(js))
    assert find_misspelled_keys(config) == [("learning_rate_fil", "learning_rate_file", False)]


def test_warning_lines_at_start_up(tmp_path, capsys):
    """rnn.py prints one line per misspelled key after the banner (verbosity 2), then runs the task."""
    import returnn.__main__ as main_mod

    path = tmp_path / "test.config"
    path.write_text(CONFIG)
    main_mod.main(["rnn.py", str(path), "++num_epoch", "3", "++log_verbosity", "2"])
    out = capsys.readouterr().out.splitlines()
    warnings = [line for line in out if line.startswith("Warning: config key")]
    assert warnings == [
        "Warning: config key 'batch_szie' is not used by RETURNN; did you mean 'batch_size'?",
        "Warning: config key 'get_netwrok' is not used by RETURNN; did you mean 'get_network'?",
        "Warning: config key 'learning_rate_controll' is not used by RETURNN; did you mean 'learning_rate_control'?",
        "Warning: config key 'num_epoch' (set by ++num_epoch) is not used by RETURNN; did you mean 'num_epochs'?",
    ]
    assert "Task: No-operation" in out
