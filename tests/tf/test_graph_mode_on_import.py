"""Importing a TF module of the package switches the process to graph mode, as the reference does."""

import subprocess
import sys

_PROBE = """
import tensorflow as tf
assert tf.executing_eagerly(), "TensorFlow 2 starts eagerly"
import returnn.tf.compat as tf_compat
print(tf.executing_eagerly())
x = tf_compat.v1.placeholder(tf.float32, shape=(2,))
with tf_compat.v1.Session() as session:
    print(session.run(x * 2.0, feed_dict={x: [1.0, 3.0]}).tolist())
"""


def test_import_of_returnn_tf_compat_disables_eager_execution():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["False", "[2.0, 6.0]"]
