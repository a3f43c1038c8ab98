"""TensorBoard event files (``tf_log_dir``) written directly from Python values.

Scalars only (losses, errors, learning rate), per step and per epoch; works whether or not eager execution
is enabled and needs no summary ops in the graph. ``tensorboard --logdir <tf_log_dir>`` displays them.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Dict, List, Optional

import numpy as np


class SummaryWriter:
    """Appends scalar summaries to ``<logdir>/events.out.tfevents.<time>.<host>``.

    :param logdir: created when missing
    """

    def __init__(self, logdir: str):
        import tensorflow as tf
        from tensorflow.core.util import event_pb2

        os.makedirs(logdir, exist_ok=True)
        self.logdir = logdir
        self._event_pb2 = event_pb2
        path = os.path.join(logdir, "events.out.tfevents.%d.%s" % (int(time.time()), socket.gethostname()))
        self._writer = tf.io.TFRecordWriter(path)
        self._writer.write(event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString())

    def write_scalars(self, step: int, values: Dict[str, float]) -> None:
        """One event with the scalars ``tag → value`` at ``step``."""
        from tensorflow.core.framework import summary_pb2

        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=k, simple_value=float(v))
                                             for k, v in sorted(values.items())])
        event = self._event_pb2.Event(wall_time=time.time(), step=int(step), summary=summary)
        self._writer.write(event.SerializeToString())

    def write_step(self, step: int, values: Dict[str, object], names: List[str],
                   learning_rate: Optional[float] = None) -> None:
        """Per-step values under the reference's tags: ``objective/loss/loss_<loss>`` and
        ``objective/loss/error_<loss>`` (normalized by frames), ``objective/loss`` (the optimized total),
        ``objective/constraints`` (0.0: no constraints term here) and ``objective/objective`` (their sum)."""
        out = {}
        for key, value in values.items():
            if key.startswith(("cost:", "error:")):
                kind, name = key.split(":", 1)
                frames = float(values["frames:" + name])
                out["objective/loss/%s_%s" % ("loss" if kind == "cost" else "error", name)] = (
                    float(value) / frames if frames else 0.0)
        if "loss" in values:
            loss = float(np.asarray(values["loss"]))
            out.update({"objective/loss": loss, "objective/constraints": 0.0, "objective/objective": loss})
        if learning_rate is not None:
            out["learning_rate"] = learning_rate
        self.write_scalars(step, out)

    def close(self) -> None:
        """Flushes and closes the event file."""
        if self._writer is not None:
            self._writer.flush()
            self._writer.close()
            self._writer = None

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()


class SummaryWriters:
    """The TensorBoard writers of a training run, one per name (``train``, ``dev-3``, ...), each in
    ``<log_dir>/<name>-<date>`` (as the reference); with no ``log_dir`` (or a directory that cannot be written)
    there are none.

    :param log_dir: ``tf_log_dir``, else the directory of ``model``; None: no summaries
    """

    def __init__(self, log_dir: Optional[str]):
        self.log_dir = log_dir
        self.writers: Dict[str, Optional[SummaryWriter]] = {}

    def get(self, name: str) -> Optional[SummaryWriter]:
        """The writer of ``name`` (created on first use), or None."""
        if name in self.writers:
            return self.writers[name]
        writer = None
        if self.log_dir:
            from returnn.log import log

            path = os.path.join(self.log_dir, "%s-%s" % (name, time.strftime("%Y-%m-%d-%H-%M-%S")))
            try:
                writer = SummaryWriter(path)
                print("TF: log_dir: %s" % path, file=log.v5)
            except OSError as exc:
                print("TF: cannot write TensorBoard summaries to %s: %s" % (path, exc), file=log.v3)
        self.writers[name] = writer
        return writer

    def close(self) -> None:
        """Closes every writer."""
        for writer in self.writers.values():
            if writer is not None:
                writer.close()
        self.writers = {}
