"""Tests for pickling a Config with the functions and classes of its Python config (returnn.config_pickle), as
the reference does: by value inside a pickled Config, by name through the ``__returnn_config__`` module."""

import io
import os
import pickle
import subprocess
import sys
import textwrap
import threading

import pytest

from returnn.config import Config, get_global_config, set_global_config

SRC = """#!rnn.py
import os
num_epochs = 3
_private = 5
def my_func(x):
    return x * num_epochs
def make_adder(n):
    def add(x):
        return x + n
    return add
add2 = make_adder(2)
class MyCls:
    scale = 10
    def f(self):
        return num_epochs * self.scale
obj = MyCls()
network = {"out": {"class": "softmax", "loss": "ce", "from": "data"}}
"""


def _config():
    config = Config()
    config.load_file(io.StringIO(SRC))
    return config


def test_round_trip_same_process():
    config = _config()
    copy = pickle.loads(pickle.dumps(config))
    assert copy is not config and copy.typed_value("config") is copy
    func = copy.typed_value("my_func")
    assert func is not config.typed_value("my_func") and func(5) == 15
    assert func.__globals__ is copy.typed_dict and func.__module__ == "__returnn_config__"
    assert copy.typed_value("add2")(1) == 3
    assert copy.typed_value("obj").f() == 30 and isinstance(copy.typed_value("obj"), copy.typed_value("MyCls"))
    assert copy.typed_value("os") is os and copy.typed_value("_private") == 5
    assert copy.typed_value("network") == config.typed_value("network")
    copy.set("num_epochs", 4)
    assert copy.typed_value("my_func")(1) == 4 and config.typed_value("my_func")(1) == 3
    assert get_global_config(raise_exception=False) is None  # not global: stays so


def test_round_trip_keeps_line_values_and_files(tmp_path):
    config = _config()
    config.add_line("task", "train")
    copy = pickle.loads(pickle.dumps(config))
    assert copy.value("task") == "train" and copy.files == ["<config string>"]


def test_unpicklable_value_raises():
    config = _config()
    config.set("lock", threading.Lock())
    with pytest.raises(TypeError, match="lock"):
        pickle.dumps(config)


def test_function_by_name_through_global_config():
    config = _config()
    func = config.typed_value("my_func")
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(func)  # no global config: '__returnn_config__' has no my_func (as the reference)
    set_global_config(config)
    assert pickle.loads(pickle.dumps(func)) is func
    import __returnn_config__

    assert __returnn_config__.num_epochs == 3


def test_round_trip_into_fresh_process(tmp_path):
    config = _config()
    set_global_config(config)
    path = tmp_path / "c.pkl"
    with open(path, "wb") as f:
        pickle.dump({"config": config, "func": config.typed_value("my_func")}, f)
    script = textwrap.dedent(f"""
        import pickle
        import returnn.config
        d = pickle.load(open({str(path)!r}, "rb"))
        c = d["config"]
        assert returnn.config.get_global_config() is c
        print(c.typed_value("my_func")(5), d["func"](2), c.typed_value("obj").f(), c.typed_value("add2")(1))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["15", "6", "30", "3"]


def test_class_using_super_pickles_by_value():
    """A method using super() has a __class__ cell holding its class: the class pickles without endless recursion,
    and the copy is a new class whose methods refer to the copy (as the reference's test_pickle_config)."""
    src = textwrap.dedent("""\
        #!rnn.py
        class Base:
            def __init__(self):
                self.base_init = True

        class CustomClass(Base):
            x = 43

            def __init__(self):
                super().__init__()
                CustomClass.x = 44

            def get_value(self):
                return CustomClass.x
        """)
    config = Config()
    config.load_file(io.StringIO(src))
    obj = config.typed_dict["CustomClass"]()
    copy = pickle.loads(pickle.dumps(config))
    cls = copy.typed_dict["CustomClass"]
    assert cls is not type(obj) and cls.__mro__[1] is copy.typed_dict["Base"]
    obj2 = cls()
    assert obj2.base_init and obj2.get_value() == 44 and cls.x == 44
    assert cls.__init__.__closure__[0].cell_contents is cls
