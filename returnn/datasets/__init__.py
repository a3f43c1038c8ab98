"""Package returnn.datasets."""
