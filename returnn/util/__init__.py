"""Utilities. ``returnn.util.basic`` is the public path the reference's configs import from."""
