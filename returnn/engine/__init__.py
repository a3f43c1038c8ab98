"""Backend-independent engine pieces: checkpoint file naming and the old-model cleanup policy."""
