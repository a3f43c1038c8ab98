"""Helpers of :mod:`returnn.learning_rate_control` (the ``learning_rate_file`` format)."""
