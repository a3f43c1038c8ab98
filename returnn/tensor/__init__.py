"""Package returnn.tensor."""
