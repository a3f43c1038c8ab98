"""The TensorFlow backend (graph mode through ``tf.compat.v1``, as the reference's).

Importing this package switches the whole process to graph mode (``tf.compat.v1.disable_eager_execution()``)
and selects TensorFlow's control flow v1 (``tf.compat.v1.disable_control_flow_v2()``), as the reference does on
import of ``returnn.tf.compat`` (so ``tf.compat.v1.placeholder``, ``Session.run`` and ``Tensor.eval`` work in
user scripts and tests that import any TF module of the package). Done once here, so that every graph
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
_tf.compat.v1.disable_eager_execution()
