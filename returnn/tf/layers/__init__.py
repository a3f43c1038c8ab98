"""Package returnn.tf.layers."""
