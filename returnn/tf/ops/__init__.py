"""Package returnn.tf.ops."""
