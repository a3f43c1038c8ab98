"""Tests for returnn.config: the three syntaxes, merge order, ++ parsing, named options, typed getters."""

import os

import pytest

from returnn.config import Config, get_config_file_type, get_global_config, global_config_ctx, parse_literal
from returnn.errors import ConfigFileError, ConfigValueError


def _load(config_dir, *names, args=()):
    config = Config()
    files = config.parse_cmd_args([os.path.join(config_dir, n) for n in names] + list(args))
    for f in files:
        config.load_file(f)
    config.apply_cmd_overrides()
    return config


def test_file_type_detection(config_dir):
    assert get_config_file_type(os.path.join(config_dir, "python.config")) == "py"
    assert get_config_file_type(os.path.join(config_dir, "json.config")) == "js"
    assert get_config_file_type(os.path.join(config_dir, "lines.config")) == "txt"


def test_python_config(config_dir):
    config = _load(config_dir, "python.config")
    assert config.value("task") == "nop"
    assert config.bool("use_tensorflow") is True
    assert config.int("num_epochs") == 3
    assert config.typed_value("network") == {"output": {"class": "softmax", "loss": "ce", "n_out": 10}}
    assert config.typed_value("my_function")() == 42
    assert "/returnn-test/model" in config.value("model")
    assert callable(config.typed_value("get_login_username"))
    # as the reference: the typed dict is the config's global namespace (private names and `config` included)
    assert config.typed_value("_private") == "not a key"
    assert config.typed_value("config") is config
    assert config.typed_value("__name__") == "__returnn_config__"
    assert config.typed_value("my_function").__globals__ is config.typed_dict


def test_python_config_sees_cmd_overrides(config_dir):
    config = _load(config_dir, "python.config", args=["++layer_dim", "7", "++num_epochs", "2"])
    assert config.typed_value("network")["output"]["n_out"] == 7  # read via config.int inside the config
    assert config.int("num_epochs") == 2


def test_json_config(config_dir):
    config = _load(config_dir, "json.config")
    assert config.int("num_epochs") == 7
    assert config.float("learning_rate") == 0.5
    assert config.typed_value("train")["class"] == "DummyDataset"
    assert config.int_list("flags") == [1, 2, 3]
    assert config.value("flags") == "1,2,3"


def test_line_config(config_dir):
    config = _load(config_dir, "lines.config")
    assert config.value("task") == "nop"
    assert config.int("num_epochs") == 4
    assert config.float("learning_rate") == 0.25
    assert config.int_list("hidden_sizes") == [500, 500, 300]
    assert config.value("description") == "two words"
    assert config.typed_value("num_epochs") is None  # line values are strings, not typed


def test_merge_order_later_files_win(config_dir):
    config = _load(config_dir, "json.config", "override.config")
    assert config.int("num_epochs") == 9
    assert config.int("batch_size") == 100
    assert config.float("learning_rate") == 0.5  # only in the first file
    config = _load(config_dir, "override.config", "json.config")
    assert config.int("num_epochs") == 7
    config = _load(config_dir, "lines.config", "json.config")
    assert config.int("num_epochs") == 7 and config.is_typed("num_epochs")


def test_cmd_overrides_win_over_all_files(config_dir):
    config = _load(config_dir, "json.config", "lines.config", args=["++num_epochs", "11"])
    assert config.typed_value("num_epochs") == 11


@pytest.mark.parametrize("text, expected", [
    ("5", 5), ("-3", -3), ("1.5", 1.5), ("1e-3", 0.001), ("None", None), ("True", True),
    ("{'class': 'DummyDataset', 'num_seqs': 3}", {"class": "DummyDataset", "num_seqs": 3}),
    ('{"a": [1, 2]}', {"a": [1, 2]}), ("[1, 2]", [1, 2]), ("abc", "abc"), ("/tmp/model", "/tmp/model"),
    ("newbob_multi_epoch", "newbob_multi_epoch"), ("'quoted'", "quoted"), ("", ""),
])
def test_parse_literal(text, expected):
    assert parse_literal(text) == expected
    assert type(parse_literal(text)) is type(expected)


def test_plus_plus_args():
    config = Config()
    files = config.parse_cmd_args(["a.config", "++num_epochs", "2", "++train", "None",
                                   "++dev", "{'class': 'DummyDataset'}", "++model", "/tmp/x/model",
                                   "b.config", "++learning_rate", "0.01"])
    assert files == ["a.config", "b.config"]
    assert config.typed_value("num_epochs") == 2
    assert config.has("train") and config.typed_value("train") is None
    assert config.typed_value("dev") == {"class": "DummyDataset"}
    assert config.value("model") == "/tmp/x/model"
    assert config.float("learning_rate") == 0.01


@pytest.mark.parametrize("args, key, expected", [
    (["-n", "3"], "num_epochs", 3), (["--num_epochs", "4"], "num_epochs", 4),
    (["--num_epochs=5"], "num_epochs", 5), (["-l", "/tmp/log.txt"], "log", "/tmp/log.txt"),
    (["--task", "eval"], "task", "eval"), (["-x", "forward"], "task", "forward"),
    (["--device", "cpu"], "device", "cpu"), (["-L", "/tmp/m.003"], "load", "/tmp/m.003"),
    (["-o", "sorted"], "order", "sorted"), (["--learning_rate", "0.1"], "learning_rate", 0.1),
    (["--log_verbosity", "5"], "log_verbosity", 5), (["-v", "4"], "log_verbosity", 4),
    (["-b", "5000"], "batch_size", 5000), (["-z", "20"], "max_seqs", 20),
])
def test_named_options(args, key, expected):
    config = Config()
    assert config.parse_cmd_args(args) == []
    assert config.typed_value(key) == expected


def test_typed_getters_and_defaults():
    config = Config({"i": 3, "f": 2.5, "s": "abc", "b": "yes", "l": [1, 2], "n": None, "d": {"a": 1}})
    assert config.int("i") == 3 and config.int("missing", 7) == 7 and config.int("n", 8) == 8
    assert config.float("i") == 3.0 and config.float("f") == 2.5
    assert config.bool("b") is True and config.bool("missing", False) is False
    assert config.value("i") == "3" and config.value("missing", "x") == "x" and config.value("n", "dflt") == "dflt"
    assert config.list("l") == [1, 2] and config.list("i") == [3] and config.list("missing") == []
    assert config.dict_value("d") == {"a": 1}
    assert config.has("n") and not config.has("missing")
    assert config.is_true("b") and not config.is_true("missing")
    assert config.opt_typed_value("s") == "abc"
    assert Config({"c": "50:25"}).int_pair("c") == (50, 25) and Config({"c": 7}).int_pair("c") == (7, 7)
    config.set("x", 1)
    config.update({"y": 2})
    assert config.typed_dict["x"] == 1 and config.typed_dict["y"] == 2


@pytest.mark.parametrize("value, truth", [("true", True), ("False", False), ("1", True), ("0", False),
                                          ("YES", True), ("no", False), (1, True), (0, False)])
def test_bool_strings(value, truth):
    assert Config({"k": value}).bool("k") is truth


def test_int_on_wrong_type_names_key():
    config = Config({"num_epochs": "abc"})
    with pytest.raises(ConfigValueError) as info:
        config.int("num_epochs")
    assert info.value.key == "num_epochs"
    assert "num_epochs" in str(info.value) and "an integer" in str(info.value) and "'abc'" in str(info.value)
    with pytest.raises(ConfigValueError):
        Config({"x": 1.5}).int("x")
    with pytest.raises(ConfigValueError):
        Config({"x": "maybe"}).bool("x")
    with pytest.raises(ConfigValueError):
        Config({"x": [1, "a"]}).int_list("x")
    with pytest.raises(ConfigValueError):
        Config({"x": "1.0.0"}).float("x")


def test_missing_file():
    with pytest.raises(ConfigFileError) as info:
        Config().load_file("/nonexistent/dir/my.config")
    assert "/nonexistent/dir/my.config" in str(info.value) and "does not exist" in str(info.value)


def test_unreadable_file(tmp_path):
    path = tmp_path / "x.config"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(str(path))
    assert "UTF-8" in str(info.value)
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(str(tmp_path))
    assert "directory" in str(info.value)


def test_python_config_that_raises_shows_its_line(config_dir):
    path = os.path.join(config_dir, "raises.config")
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(path)
    err = info.value
    assert err.line == 5 and err.filename == path
    assert "IndexError" in str(err) and "dim = layers[5]" in str(err)


def test_python_config_syntax_error(config_dir):
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(os.path.join(config_dir, "syntax_error.config"))
    assert "SyntaxError" in str(info.value) and info.value.line == 3


def test_malformed_json(config_dir):
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(os.path.join(config_dir, "bad_json.config"))
    assert info.value.line == 3 and "malformed JSON" in str(info.value)


def test_line_without_value(config_dir):
    with pytest.raises(ConfigFileError) as info:
        Config().load_file(os.path.join(config_dir, "bad_lines.config"))
    assert info.value.line == 2 and "'num_epochs' has no value" in str(info.value)


def test_plus_plus_without_value():
    with pytest.raises(ConfigValueError) as info:
        Config().parse_cmd_args(["a.config", "++num_epochs"])
    assert info.value.key == "num_epochs" and "a value after '++num_epochs'" in str(info.value)


def test_unknown_option_suggests():
    with pytest.raises(ConfigValueError) as info:
        Config().parse_cmd_args(["--num_epoch", "3"])
    assert "--num_epochs" in info.value.suggestions


def test_global_config():
    assert get_global_config(raise_exception=False) is None
    config = Config({"a": 1})
    with global_config_ctx(config):
        assert get_global_config() is config
    with pytest.raises(RuntimeError):
        get_global_config()


PY_CONFIG = """#!rnn.py
num_epochs = 3
name = "x"
def my_func(x):
    return x * num_epochs
"""


def test_load_file_object():
    import io

    config = Config()
    config.load_file(io.StringIO(PY_CONFIG))
    assert config.files == ["<config string>"] and config.typed_value("__file__") == "<config string>"
    assert config.typed_value("my_func")(2) == 6
    config = Config()
    config.load_file(io.StringIO('{"num_epochs": 4}'))
    assert config.typed_value("num_epochs") == 4
    config = Config()
    config.load_file(io.StringIO("num_epochs 5\n"))
    assert config.int("num_epochs") == 5 and not config.is_typed("num_epochs")


def test_config_functions_see_later_changes():
    import io

    config = Config()
    config.load_file(io.StringIO(PY_CONFIG))
    config.set("num_epochs", 7)  # the function's globals are the typed dict (as the reference)
    assert config.typed_value("my_func")(1) == 7


def test_python_configs_share_one_namespace(tmp_path):
    (tmp_path / "a.config").write_text("#!rnn.py\na = 1\ndef f():\n    return a\n")
    (tmp_path / "b.config").write_text("#!rnn.py\nb = a + 1\n")
    config = Config()
    config.load_file(str(tmp_path / "a.config"))
    config.load_file(str(tmp_path / "b.config"))
    assert config.typed_value("b") == 2 and config.typed_value("__file__") == str(tmp_path / "b.config")
    assert config.files == [str(tmp_path / "a.config"), str(tmp_path / "b.config")]


def test_override_of_string_value_stays_string(tmp_path):
    (tmp_path / "c.config").write_text(PY_CONFIG)
    config = _load(str(tmp_path), "c.config", args=["++name", "5", "++num_epochs", "5"])
    assert config.typed_value("name") == "5"  # a str config value keeps the text (reference)
    assert config.typed_value("num_epochs") == 5
    assert config.typed_value("my_func")(1) == 5


def test_typed_getters_with_index():
    # observed from the reference
    config = Config({"l": [1, 2]})
    config.add_line("lines", "1,2")
    assert config.int("l", 0) == 1 and config.float("l", 0, index=1) == 2.0
    assert config.int("lines", 0) == 1 and config.int("lines", 0, index=1) == 2
    assert config.bool("missing", "D") == "D"


@pytest.mark.parametrize("key, types, expected", [
    ("i", int, 3), ("i", float, "DEF"), ("i", (int, float), 3), ("f", int, "DEF"), ("s", str, "abc"),
    ("s", int, "DEF"), ("l", list, [1, 2]), ("l", (list, tuple), [1, 2]), ("t", list, "DEF"), ("d", dict, {"a": 1}),
    ("n", int, "DEF"), ("missing", int, "DEF"), ("line", int, "DEF"), ("line", str, "DEF"), ("i", str, "DEF"),
])
def test_get_of_type(key, types, expected):
    # observed from the reference: only typed values count, a wrong type gives the default
    config = Config({"i": 3, "f": 2.5, "s": "abc", "l": [1, 2], "d": {"a": 1}, "n": None, "t": (1, 2)})
    config.add_line("line", "5")
    assert config.get_of_type(key, types, "DEF") == expected
    assert config.is_of_type(key, types) is (expected != "DEF")


def test_is_of_type_none_and_class_file_type(config_dir):
    assert Config({"n": None}).is_of_type("n", type(None))
    assert Config.get_config_file_type(os.path.join(config_dir, "python.config")) == "py"


def test_network_json_from_config():
    from returnn.config import network_json_from_config

    assert network_json_from_config(Config({"network": {"out": {"class": "copy"}}})) == {"out": {"class": "copy"}}
    with pytest.raises(ConfigValueError, match="define `network`"):
        network_json_from_config(Config())


def test_json_config_with_comments():
    """JSON configs may have // comments (outside strings), as the reference's; single quotes are not JSON."""
    import io

    from returnn.errors import ConfigFileError

    config = Config()
    config.load_file(io.StringIO('{\n  // comment\n  "num_inputs": 3, // more\n  "url": "http://x",\n'
                                 '  "hidden_type": ["forward", "lstm"]\n}'))
    assert config.int("num_inputs", -1) == 3 and config.value("url", None) == "http://x"
    assert config.value("hidden_type", "x") == "forward,lstm"
    assert config.typed_value("hidden_type") == ["forward", "lstm"]
    with pytest.raises(ConfigFileError, match="line 2"):
        Config().load_file(io.StringIO("{\n 'a': 1}\n"))


def test_python_config_after_blank_lines(tmp_path):
    # observed on the reference: "\n#!rnn.py\nnetwork = {\n ...\n}\n" loads as a Python config (tests/test_tools.py
    # writes its configs this way); without "#!" the same text is a line-based config
    from returnn.config import Config
    from returnn.errors import ConfigFileError
    fn = tmp_path / "a.config"
    fn.write_text('\n\n#!rnn.py\nnetwork = {\n "a": 1\n}\n')
    config = Config()
    config.load_file(str(fn))
    assert config.typed_dict["network"] == {"a": 1}
    fn.write_text('\nnetwork = {\n "a": 1\n}\n')
    with pytest.raises(ConfigFileError):
        Config().load_file(str(fn))
