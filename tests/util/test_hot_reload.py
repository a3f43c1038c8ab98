import functools
import importlib
import sys

from returnn.util.hot_reload import ConfigHotReloader


def test_reload_changed_module(tmp_path, monkeypatch):
    mod_name = "own_hot_reload_test_mod"
    (tmp_path / f"{mod_name}.py").write_text("def main(x, *, f):\n    return f(x)\n\ndef other(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, mod_name, raising=False)
    mod = importlib.import_module(mod_name)
    try:
        config = {"func": functools.partial(mod.main, 42, f=mod.other), "lst": [mod.other], "n": 1, "len": len}
        reloader = ConfigHotReloader(config)
        assert reloader.modules == [mod_name]  # not builtins, nor the stdlib
        assert not reloader.any_module_changed()
        assert config["func"]() == 43
        (tmp_path / f"{mod_name}.py").write_text(
            "def main(x, *, f):\n    return f(x // 2)\n\ndef other(x):\n    return x - 1\n")
        assert reloader.any_module_changed()
        assert reloader.reload_changed_modules() == [mod_name]
        assert config["func"]() == 20 and config["lst"][0](5) == 4 and config["len"] is len
        assert not reloader.any_module_changed()
    finally:
        sys.modules.pop(mod_name, None)
