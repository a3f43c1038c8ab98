"""Backend-independent engine pieces: checkpoint file naming, the old-model cleanup policy, checkpoint averaging,
the reference's ``EngineBase`` and batch classes. The engine that builds, trains and runs a network is
:mod:`returnn.tf.engine`; it uses these."""
