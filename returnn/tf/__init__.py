"""The TensorFlow backend (graph mode through ``tf.compat.v1``, as the reference's).

Importing this package selects TensorFlow's control flow v1 (``tf.compat.v1.disable_control_flow_v2()``) for
the whole process, as the reference does when its TF engine is imported. Done once here, so that every graph
of the process is built the same way: the gradient of a v2 while loop rewrites the forward op, which a session
that already ran the graph (e.g. to initialize variables) does not see, and the recurrent loops
(``rec`` with a unit dict, the LSTM/GRU kernels) are written for v1 loops and TensorArrays.

TensorFlow is imported through :func:`returnn.tf.tensorflow_import.import_tensorflow` (without its eager import of
Keras, which the backend does not use, and with namespaces it does not use, such as ``tf.__internal__``, loaded on
first use) unless something imported it before.
"""

from returnn.tf.tensorflow_import import import_tensorflow as _import_tensorflow

_tf = _import_tensorflow()

_tf.compat.v1.disable_control_flow_v2()
