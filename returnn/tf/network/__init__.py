"""Package returnn.tf.network."""
