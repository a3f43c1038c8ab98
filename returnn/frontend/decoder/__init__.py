"""Decoders of ``returnn.frontend``: :mod:`returnn.frontend.decoder.transformer`."""
