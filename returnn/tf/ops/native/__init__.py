"""TensorFlow-op implementations of the reference's native (C++/CUDA) ops; the public names are in
:mod:`returnn.tf.native_op`."""
