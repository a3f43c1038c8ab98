"""Package returnn.tf.engine."""
