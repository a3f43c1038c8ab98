"""returnn.tf imports TensorFlow without Keras and with a lazy tf.__internal__; both still work afterwards (fresh
interpreters)."""

from __future__ import annotations

import os
import subprocess
import sys

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
    out = _run(
        "import sys\n"
        "import returnn.tf\n"
        "import tensorflow as tf\n"
        "print('lazy:', type(sys.modules['tensorflow._api.v2.__internal__']).__name__)\n"
        "print('test utils loaded:', 'tensorflow.python.distribute.combinations' in sys.modules)\n"
        "print('nest:', tf.__internal__.nest.list_to_tuple([1, [2, 3]]))\n"
        "print('test utils after:', 'tensorflow.python.distribute.combinations' in sys.modules)\n"
        "print('compat:', tf.compat.v2.__internal__.get_name_scope() == '')\n")
    assert "lazy: _LazyModule" in out and "test utils loaded: False" in out
    assert "nest: (1, (2, 3))" in out and "test utils after: True" in out and "compat: True" in out


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
        "print('lazy:', type(sys.modules['tensorflow._api.v2.__internal__']).__name__)\n"
        "print('test utils loaded:', 'tensorflow.python.distribute.combinations' in sys.modules)\n")
    assert "lazy: _LazyModule" in out and "test utils loaded: False" in out
    assert (tmp_path / "model.001.index").exists()
