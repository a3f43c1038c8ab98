"""Encoders of ``returnn.frontend``: :mod:`returnn.frontend.encoder.conformer`."""
