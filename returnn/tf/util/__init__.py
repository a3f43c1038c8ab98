"""Package returnn.tf.util."""
