"""Public module ``returnn.engine.batch`` (reference path; legacy name ``EngineBatch``): the mini-batch classes
:class:`Batch`, :class:`BatchSeqCopyPart` and :class:`BatchSetGenerator`. Defines nothing; they live in
:mod:`returnn.datasets.batching`, so the batches a dataset's ``generate_batches`` builds are instances of these."""

from returnn.datasets.batching import Batch as Batch
from returnn.datasets.batching import BatchSeqCopyPart as BatchSeqCopyPart
from returnn.datasets.batching import BatchSetGenerator as BatchSetGenerator
