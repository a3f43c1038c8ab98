"""Implementation of :mod:`returnn.learning_rate_control` (base class, strategies, config loading, file format)."""
