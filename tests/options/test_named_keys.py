"""returnn.options.named_keys: the value of a config key the user names (a tool's --data config:<key>, task
config:<function>), which no options group can declare."""

from __future__ import annotations

from returnn.config import Config
from returnn.options.named_keys import named_value


def test_named_value_is_the_python_value():
    dev_set = {"class": "Task12AXDataset", "num_seqs": 5}
    config = Config({"my_dev_set": dev_set, "my_function": len})
    assert named_value(config, "my_dev_set") is dev_set
    assert named_value(config, "my_function") is len


def test_named_value_default_when_not_set_or_only_a_string(tmp_path):
    config = Config()
    assert named_value(config, "missing") is None
    assert named_value(config, "missing", {"a": 1}) == {"a": 1}
    line_config = tmp_path / "line.config"
    line_config.write_text("my_dev_set dev.hdf\n")  # a line-based config: strings only
    config.load_file(str(line_config))
    assert config.value("my_dev_set", None) == "dev.hdf"
    assert named_value(config, "my_dev_set", "default") == "default"
