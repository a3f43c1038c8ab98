"""Package returnn.tf."""
