"""The reference's legacy top-level module names resolve to the same module objects as the new paths."""

import importlib
import sys

import pytest

import returnn  # noqa: F401  (installs the finder)
from returnn.legacy_modules import LEGACY_MODULES, legacy_target


@pytest.mark.parametrize("legacy,new", [("TFUtil", "returnn.tf.util.basic"), ("Pretrain", "returnn.pretrain"),
                                        ("TFNetworkLayer", "returnn.tf.layers.basic"), ("Util", "returnn.util.basic"),
                                        ("TFCompat", "returnn.tf.compat"), ("LmDataset", "returnn.datasets.lm"),
                                        ("GeneratingDataset", "returnn.datasets.generating"),
                                        ("TFNetwork", "returnn.tf.network"), ("Config", "returnn.config")])
def test_legacy_name_is_the_new_module(legacy, new):
    mod = importlib.import_module(legacy)
    assert mod is importlib.import_module(new)
    assert mod.__name__ == new
    assert importlib.import_module("returnn." + legacy) is mod
    assert sys.modules[legacy] is mod


def test_from_import_of_legacy_names():
    namespace = {}
    exec("from TFCompat import v1 as tf\nfrom Pretrain import WrapEpochValue\nimport TFUtil", namespace)
    import tensorflow as tf

    assert namespace["tf"] is tf.compat.v1
    assert namespace["WrapEpochValue"](lambda epoch: epoch + 1).get_value(4) == 5
    assert namespace["TFUtil"].__name__ == "returnn.tf.util.basic"


def test_unprovided_target_names_both():
    assert legacy_target("SprintCache") == "returnn.sprint.cache"
    with pytest.raises(ModuleNotFoundError, match=r"'SprintCache'.*'returnn\.sprint\.cache'"):
        importlib.import_module("SprintCache")


def test_unknown_names_are_not_answered():
    assert legacy_target("TFUtilX") is None
    assert legacy_target("returnn.tf") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("TFUtilX")
    assert len(LEGACY_MODULES) == 48


def test_better_exchook_under_returnn():
    # observed from the reference: returnn.better_exchook (and `from returnn import better_exchook`, as old-style
    # setups do) is returnn.util.better_exchook
    from returnn import better_exchook

    assert better_exchook is importlib.import_module("returnn.util.better_exchook")
    assert importlib.import_module("returnn.better_exchook") is better_exchook
    assert legacy_target("returnn.better_exchook") == "returnn.util.better_exchook"


def test_checkout_root_imported_under_another_name_answers_the_old_names(tmp_path, monkeypatch):
    """The old flat layout's use (the reference's test_demos ``--old-style --returnn-package-name crnn``): the
    checkout symlinked as ``crnn``; ``import crnn.TFUtil`` and ``crnn.better_exchook`` are the modules of the new
    paths (observed from the reference: ``crnn.TFUtil.__name__ == "returnn.tf.util.basic"``)."""
    import pathlib

    root = pathlib.Path(returnn.__file__).resolve().parent.parent
    (tmp_path / "crnn_checkout").symlink_to(root, target_is_directory=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    try:
        crnn = importlib.import_module("crnn_checkout")
        assert crnn.better_exchook is importlib.import_module("returnn.util.better_exchook")
        assert importlib.import_module("crnn_checkout.TFUtil") is importlib.import_module("returnn.tf.util.basic")
        assert "TFUtil" in dir(crnn)
        with pytest.raises(AttributeError, match="no attribute 'NoSuchModule'"):
            crnn.NoSuchModule  # noqa: B018
    finally:
        for name in set(sys.modules) - before:
            if name.startswith("crnn_checkout"):
                del sys.modules[name]
        if str(tmp_path / "crnn_checkout") in sys.path:
            sys.path.remove(str(tmp_path / "crnn_checkout"))
