"""Package returnn.tf.updater."""
