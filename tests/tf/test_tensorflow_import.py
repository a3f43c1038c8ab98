"""returnn.tf imports TensorFlow without Keras and with deferred namespaces (tf.__internal__, legacy Keras, tf.lite,
...); all still work afterwards (fresh interpreters). The deferral itself on a toy package (in-process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from types import ModuleType

import pytest

from returnn.tf import tensorflow_import

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_no_keras_after_import_and_tf_keras_still_works():
    out = _run(
        "import sys, importlib.util\n"
        "import returnn.tf\n"
        "import tensorflow as tf\n"
        "print('keras loaded:', 'keras' in sys.modules)\n"
        "print('finder left:', any(type(f).__name__ == '_TensorFlowImportFinder' for f in sys.meta_path))\n"
        "if importlib.util.find_spec('keras') is not None:\n"
        "    from tensorflow.keras import layers\n"
        "    print('dense:', layers.Dense(3)(tf.zeros([2, 4])).shape)\n"
        "    print('tf.keras:', tf.keras.layers.Dense.__name__)\n")
    assert "keras loaded: False" in out and "finder left: False" in out
    if "dense:" in out:
        assert "dense: (2, 3)" in out and "tf.keras: Dense" in out


def test_tensorflow_imported_before_is_used_as_is():
    out = _run(
        "import sys\n"
        "import tensorflow\n"
        "keras_before = 'keras' in sys.modules\n"
        "import returnn.tf\n"
        "print('same:', returnn.tf._tf is tensorflow, 'keras unchanged:', ('keras' in sys.modules) == keras_before)\n")
    assert "same: True keras unchanged: True" in out


def test_tf_internal_is_loaded_on_first_use():
    """A submodule (``tf.__internal__.nest``) is imported alone; a function of the namespace runs its body."""
    out = _run(
        "import sys\n"
        "import returnn.tf\n"
        "import tensorflow as tf\n"
        "print('lazy:', type(sys.modules['tensorflow._api.v2.__internal__']).__name__)\n"
        "print('test utils loaded:', 'tensorflow.python.distribute.combinations' in sys.modules)\n"
        "print('nest:', tf.__internal__.nest.list_to_tuple([1, [2, 3]]))\n"
        "print('test utils after nest:', 'tensorflow.python.distribute.combinations' in sys.modules)\n"
        "print('scope:', tf.__internal__.get_name_scope() == '', tf.compat.v2.__internal__.get_name_scope() == '')\n"
        "print('test utils after:', 'tensorflow.python.distribute.combinations' in sys.modules)\n")
    assert "lazy: _DeferredModule" in out and "test utils loaded: False" in out
    assert "nest: (1, (2, 3))" in out and "test utils after nest: False" in out
    assert "scope: True True" in out and "test utils after: True" in out


def test_training_start_up_leaves_tf_internal_unloaded(tmp_path):
    """A whole training run (graph, session, checkpoint) never needs tf.__internal__."""
    config = tmp_path / "train.config"
    config.write_text(
        "#!rnn.py\n"
        "task = 'train'\n"
        "train = {'class': 'Task12AXDataset', 'num_seqs': 4}\n"
        "num_inputs, num_outputs = 9, 2\n"
        "network = {'lstm': {'class': 'rec', 'unit': 'nativelstm2', 'n_out': 80, 'from': 'data'},\n"
        "           'output': {'class': 'softmax', 'loss': 'ce', 'from': 'lstm'}}\n"
        "optimizer = {'class': 'adam'}\n"
        f"model = {str(tmp_path / 'model')!r}\n"
        "num_epochs = 1\n"
        "log_verbosity = 0\n")
    out = _run(
        "import sys\n"
        "from returnn.__main__ import main\n"
        f"main(['rnn.py', {str(config)!r}])\n"
        "from returnn.tf.tensorflow_import import DEFERRED_MODULES\n"
        "print('loaded:', [m for m in DEFERRED_MODULES if type(sys.modules[m]).__name__ != '_DeferredModule'])\n"
        "print('test utils loaded:', 'tensorflow.python.distribute.combinations' in sys.modules)\n"
        "print('legacy keras, scipy:', 'tensorflow.python.keras.models' in sys.modules, 'scipy' in sys.modules)\n")
    assert "loaded: []" in out and "test utils loaded: False" in out and "legacy keras, scipy: False False" in out
    assert (tmp_path / "model.001.index").exists()


def test_deferred_namespaces_work_on_first_use():
    out = _run(
        "import sys\n"
        "import returnn.tf\n"
        "import tensorflow as tf\n"
        "print('before:', type(sys.modules['tensorflow._api.v2.compat.v1.nn']).__name__)\n"
        "print('nn:', tf.compat.v1.nn.ctc_loss.__name__, tf.compat.v1.Session().run(tf.compat.v1.nn.relu(-1.0)))\n"
        "print('fc:', tf.feature_column.numeric_column('x').key, tf.compat.v1.feature_column.numeric_column('y').key)\n"
        "print('lite:', tf.lite.TFLiteConverter.__name__, tf.compat.v1.lite.experimental.__name__)\n"
        "print('tpu:', tf.compat.v1.tpu.experimental.__name__)\n"
        "print('distribute:', tf.compat.v1.distribute.MirroredStrategy.__name__)\n"
        "from tensorflow.python.distribute.cluster_resolver import TPUClusterResolver\n"
        "print('resolver:', TPUClusterResolver.__name__)\n"
        "import tensorflow.python.keras as legacy_keras\n"
        "print('keras:', legacy_keras.Model.__name__, type(legacy_keras).__name__)\n")
    assert "before: _DeferredModule" in out and "nn: ctc_loss 0.0" in out and "fc: x y" in out
    assert "lite: TFLiteConverterV2 tensorflow._api.v2.compat.v1.lite.experimental" in out
    assert "tpu: tensorflow._api.v2.compat.v1.tpu.experimental" in out and "distribute: MirroredStrategyV1" in out
    assert "resolver: TPUClusterResolver" in out and "keras: Model module" in out


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """``toypkg`` (deferred): its body counts its runs in ``toy_runs`` and re-exports a function of ``toypkg.sub``;
    ``toybad`` (deferred) raises in its body; ``toywrap`` (deferred) replaces its sys.modules entry."""
    pkg = tmp_path / "toypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent("""\
        import builtins
        builtins.toy_runs = getattr(builtins, "toy_runs", 0) + 1
        from toypkg.sub import value
        answer = value() + 1
        """))
    (pkg / "sub.py").write_text("def value():\n    return 41\n")
    (tmp_path / "toybad.py").write_text("raise ImportError('toybad body failed')\n")
    (tmp_path / "toywrap.py").write_text(textwrap.dedent("""\
        import sys, types
        x = 5
        wrapper = types.ModuleType(__name__)
        wrapper.x = 6
        sys.modules[__name__] = wrapper
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(tensorflow_import, "DEFERRED_MODULES", ("toypkg", "toybad", "toywrap"))
    import builtins
    monkeypatch.setattr(builtins, "toy_runs", 0, raising=False)
    finder = tensorflow_import._TensorFlowImportFinder()
    sys.meta_path.insert(0, finder)
    yield builtins
    sys.meta_path.remove(finder)
    for name in ("toypkg", "toypkg.sub", "toybad", "toywrap"):
        sys.modules.pop(name, None)


def test_deferred_module_runs_its_body_once_on_first_attribute(toy_package):
    import toypkg

    assert type(toypkg).__name__ == "_DeferredModule" and toy_package.toy_runs == 0
    from toypkg import sub  # a submodule: the package body still has not run

    assert sub.value() == 41 and toy_package.toy_runs == 0
    assert toypkg.answer == 42 and toy_package.toy_runs == 1
    assert type(toypkg) is ModuleType and toypkg.value is sub.value
    import toypkg as again

    assert again is toypkg and again.answer == 42 and toy_package.toy_runs == 1


def test_deferred_module_body_may_replace_itself_and_errors_propagate(toy_package):
    import toybad
    import toywrap

    assert toywrap.x == 5  # the stand-in holds the body's globals; sys.modules has the body's replacement
    assert sys.modules["toywrap"].x == 6
    with pytest.raises(ImportError, match="toybad body failed"):
        toybad.anything
    assert "toybad" not in sys.modules  # as after a failed import


def test_speedup_only_with_verified_versions(monkeypatch):
    monkeypatch.delenv(tensorflow_import.PLAIN_IMPORT_ENV, raising=False)
    assert tensorflow_import.speedup_applies("2.21.0") and tensorflow_import.speedup_applies("2.21.7")
    assert not tensorflow_import.speedup_applies("2.22.0") and not tensorflow_import.speedup_applies("2.20.1")
    assert not tensorflow_import.speedup_applies("")  # version unknown (e.g. a source build): plain import
    monkeypatch.setenv(tensorflow_import.PLAIN_IMPORT_ENV, "1")
    assert not tensorflow_import.speedup_applies("2.21.0")


def test_module_names_verified_against_installed_tensorflow():
    """Every skipped/deferred name exists in the installed TensorFlow (checked after a plain import); if the
    installed version is not a verified one, the speed-up is off."""
    version = tensorflow_import.installed_tensorflow_version()
    applies = tensorflow_import.speedup_applies(version)
    assert applies == (".".join((version or "").split(".")[:2]) in tensorflow_import.VERIFIED_TF_VERSIONS)
    if not applies:
        return
    out = _run(
        "import importlib, importlib.util, sys\n"
        "import tensorflow\n"
        "from returnn.tf.tensorflow_import import DEFERRED_MODULES\n"
        "for name in DEFERRED_MODULES:\n"
        "    parent = name.rpartition('.')[0]\n"
        "    importlib.import_module(parent)\n"
        "    print(name, importlib.util.find_spec(name) is not None)\n")
    missing = [line for line in out.splitlines() if line.endswith(" False")]
    assert missing == [] and len(out.splitlines()) == len(tensorflow_import.DEFERRED_MODULES)


def test_plain_import_with_env_var():
    """RETURNN_TF_PLAIN_IMPORT=1: a plain ``import tensorflow`` (Keras imported eagerly by TensorFlow, no stand-in
    modules), and the backend works the same."""
    env_code = (
        "import os, sys\n"
        "os.environ['RETURNN_TF_PLAIN_IMPORT'] = '1'\n"
        "import returnn.tf\n"
        "import tensorflow as tf\n"
        "from returnn.tf.tensorflow_import import _DeferredModule\n"
        "print('deferred:', any(isinstance(m, _DeferredModule) for m in list(sys.modules.values())))\n"
        "with tf.Graph().as_default():\n"
        "    print('sum:', tf.compat.v1.Session().run(tf.reduce_sum(tf.ones([2, 3]))))\n")
    out = _run(env_code)
    assert "deferred: False" in out and "sum: 6.0" in out
