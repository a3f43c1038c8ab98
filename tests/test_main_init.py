"""Tests for the library entry points of returnn.__main__ (init / init_config / finalize and the module globals
config, engine, train_data, ...), with the behaviour observed from the reference's returnn.__main__."""

import pytest

import returnn.__main__ as rnn
from returnn.config import get_global_config
from returnn.errors import DataFileError
from returnn.log import log
from returnn.util.behavior_version import BehaviorVersion

CONFIG = """#!rnn.py
use_tensorflow = True
task = "train"
train = {"class": "Task12AXDataset", "num_seqs": 5}
dev = {"class": "Task12AXDataset", "num_seqs": 3, "fixed_random_seed": 1}
network = {"output": {"class": "softmax", "loss": "ce", "from": "data"}}
num_epochs = 2
log_verbosity = 4
"""


@pytest.fixture(autouse=True)
def _reset_main_globals():
    yield
    for name in ("config", "engine", "train_data", "dev_data", "eval_data"):
        setattr(rnn, name, None)
    rnn.quit_returnn = False
    BehaviorVersion._reset()


def test_init_builds_config_data_and_engine(tmp_path, capsys):
    from returnn.tf.engine import Engine

    path = tmp_path / "a.config"
    path.write_text(CONFIG)
    assert rnn.init(config_filename=str(path), config_updates={"zz": 1}, extra_greeting="HELLO") is None
    assert rnn.config is get_global_config() and rnn.config.typed_value("zz") == 1
    assert isinstance(rnn.engine, Engine) and rnn.engine.config is rnn.config
    assert type(rnn.train_data).__name__ == "Task12AXDataset" and rnn.dev_data.get_total_num_seqs() == 3
    assert rnn.eval_data is None and rnn.engine.train_data is rnn.train_data and rnn.engine.dev_data is rnn.dev_data
    lines = capsys.readouterr().out.splitlines()
    # the order of the reference: the extra greeting, the start-up line, the config file, the options
    assert lines[0] == "HELLO" and lines[1].startswith("RETURNN starting up, version ")
    assert lines[2] == f"RETURNN config: {path}" and lines[3] == "RETURNN command line options: ()"
    assert "Train data:" in lines and any(line.startswith("TensorFlow: ") for line in lines)
    rnn.finalize()
    assert rnn.quit_returnn is True and capsys.readouterr().out == "Quitting\n"


def test_init_raises_for_a_dataset_it_cannot_load(tmp_path):
    path = tmp_path / "a.config"
    path.write_text(CONFIG.replace('{"class": "Task12AXDataset", "num_seqs": 5}',
                                   f'{{"class": "HDFDataset", "files": ["{tmp_path}/missing.hdf"]}}'))
    with pytest.raises(DataFileError, match="missing.hdf"):
        rnn.init(config_filename=str(path))


def test_init_without_data(tmp_path):
    path = tmp_path / "a.config"
    path.write_text(CONFIG.replace('{"class": "Task12AXDataset", "num_seqs": 5}',
                                   f'{{"class": "HDFDataset", "files": ["{tmp_path}/missing.hdf"]}}'))
    rnn.init(config_filename=str(path), command_line_options=["++need_data", "False"])
    assert rnn.train_data is None and rnn.dev_data is None and rnn.engine is not None
    rnn.config.set("need_data", True)
    for task, expected in (("nop", False), ("cleanup_old_models", False), ("nop_init_net_train", False),
                           ("train", True), ("forward", True), ("search", True), ("compute_priors", True)):
        rnn.config.set("task", task)
        assert rnn.need_data() is expected, task


def test_init_config_signature(tmp_path):
    (tmp_path / "a.config").write_text("#!rnn.py\na = 1\nbehavior_version = 3\n")
    (tmp_path / "b.config").write_text("#!rnn.py\nb = a + 1\n")
    cfg = rnn.init_config(config_filename=str(tmp_path / "a.config"), command_line_options=["++a", "5"],
                          default_config={"zz": 1, "a": 0}, extra_updates={"yy": 2})
    assert cfg is rnn.config is get_global_config()
    assert (cfg.typed_value("a"), cfg.typed_value("zz"), cfg.typed_value("yy")) == (5, 1, 2)
    assert BehaviorVersion.get() == 3
    BehaviorVersion._reset()
    cfg = rnn.init_config(command_line_options=[str(tmp_path / "a.config"), str(tmp_path / "b.config")])
    assert cfg.files == [str(tmp_path / "a.config"), str(tmp_path / "b.config")] and cfg.typed_value("b") == 2


def test_legacy_rnn_module_name():
    from returnn import rnn as legacy  # as scripts do: `from returnn import rnn; rnn.init(...); rnn.engine`

    assert legacy is rnn


def test_script_helpers_as_demo_iter_dataset(tmp_path, capsys, monkeypatch):
    """The calls of the reference's demos/demo-iter-dataset.py: init_config, init_log, init_data (silent),
    print_task_properties (the dataset summary, as the reference prints it), init_better_exchook,
    init_faulthandler."""
    import sys

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    path = tmp_path / "a.config"
    path.write_text(CONFIG)
    rnn.init_better_exchook()
    from returnn.util import better_exchook

    assert sys.excepthook is better_exchook.better_exchook
    rnn.init_config(str(path), [])
    rnn.init_log()
    rnn.init_faulthandler()
    rnn.init_thread_join_hack()
    capsys.readouterr()
    rnn.init_data()
    assert capsys.readouterr().out == ""
    rnn.print_task_properties()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Train data:" and "Dev data:" in out and "Eval data:" not in out
    assert out[1] == "  input: 9 x 1"  # as the reference prints it for this dataset


@pytest.mark.parametrize("cache_size, expected", [
    # observed from the reference's get_cache_byte_sizes
    ("0", 0), ("0G", 0), ("1000", 1001), ("1.5", 2), ("2K", 2049), ("3M", 3145729), ("1G", 1073741825),
    (None, 17179869185),  # default 16G
])
def test_get_cache_byte_sizes(cache_size, expected):
    from returnn.config import Config

    rnn.config = Config({"cache_size": cache_size} if cache_size is not None else {})
    assert rnn.get_cache_byte_sizes() == [expected] * 3


def test_get_cache_byte_sizes_bad_value():
    from returnn.config import Config
    from returnn.errors import ConfigValueError

    rnn.config = Config({"cache_size": "2k"})  # lower-case unit: rejected, as the reference's float("2k") fails
    with pytest.raises(ConfigValueError, match="cache_size"):
        rnn.get_cache_byte_sizes()
