"""Implementation of :mod:`returnn.learning_rate_control` (base class, strategies, config loading, file format).

``returnn.learning_rate_control`` is the reference's public path: it re-exports the names of this package and
documents the config keys; the code is here."""
