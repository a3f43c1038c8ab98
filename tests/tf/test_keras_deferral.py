"""returnn.tf imports TensorFlow without Keras; tf.keras still works afterwards (fresh interpreters)."""

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
        "print('finder left:', any(type(f).__name__ == '_KerasDeferringFinder' for f in sys.meta_path))\n"
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
