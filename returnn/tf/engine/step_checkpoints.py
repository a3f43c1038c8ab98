"""Step checkpoints: resuming a training epoch mid-way, bit-identically (beyond the reference).

With ``step_checkpoint_interval = N`` (steps) and/or ``step_checkpoint_interval_minutes = M``, the training loop
writes, after every N-th step of an epoch (and/or when M minutes passed since the last one), after the epoch's
last step (so that a kill during the evaluation redoes no step) and when SIGINT/SIGTERM stop the epoch, a *step
checkpoint* ``<model>.NNN.stepSSSSSSSS`` (``NNN`` the epoch, ``SSSSSSSS`` the steps done in it):

- the TF checkpoint files (``.index``, ``.data-*``, ``.meta``) of every saved variable: params, optimizer slots,
  ``global_step`` (written crash-safely, see :mod:`~returnn.tf.engine.checkpoints`);
- then ``<prefix>.json``, the marker, written to a temporary name and renamed into place *last*: the steps done
  (the epoch's position: its batches are built deterministically from the epoch's sequence order, so the number of
  batches done is the position), the global step at the epoch's start, the epoch's learning rate, the sums of the
  pass so far (losses, errors, frames, steps, sequences, elapsed time; exact float64 values), a fingerprint of the
  last batch done (sequence indices, tags and lengths), and the states of numpy's and Python's global generators.
  A step checkpoint exists iff its marker exists; older ones of the epoch are removed after a new one is complete.

A restarted run (the same command line) continues after the newest epoch checkpoint as always; then, in that epoch,
it loads the newest step checkpoint of the epoch (all variables), rebuilds the epoch's batches, skips the batches
done (and checks the last one against the fingerprint: a dataset whose batches differ raises
:class:`StepCheckpointError`), restores the pass sums and the generators' states, and goes on with the next batch.

What makes the continuation bit-identical (CPU, one process):

- random ops: with step checkpoints on, the graph has a step seed and dropout / weight noise are stateless ops
  seeded with (op seed, global step) (:mod:`returnn.tf.ops.step_random`), so the masks of a step do not depend on
  how many steps the session ran before; stateful random ops left in the training step (e.g. ``tf.random.*`` in an
  ``eval`` layer, random ops inside a rec loop) are listed in a warning at start-up: they differ after a resume;
- the data: the epoch's sequence order and batches come from the epoch number and the dataset's seeds (the
  generating datasets seed each sequence from epoch and index; ``shuffle_batches`` and ``seq_drop`` from the
  epoch), so they are rebuilt, not stored;
- TensorFlow: ``tf.config.experimental.enable_op_determinism()`` is called before the session is created (ops
  without a deterministic kernel then raise instead of silently differing); the thread counts stay as configured
  (``tf_session_opts``, else the engine's choice, see :mod:`~returnn.tf.engine.session`): a resumed run must use
  the same ones as the run it continues;
- the epoch's end: with step checkpoints on, the epoch's scores go into ``learning_rate_file`` *before* the epoch's
  checkpoint is written (the reference writes the checkpoint first), so a kill between the two never leaves a
  checkpoint whose epoch is missing from the file; a kill before the checkpoint redoes the epoch's tail from the
  newest step checkpoint (and writes the same scores again). The step checkpoints of the epoch are removed after
  its checkpoint is written, those of older epochs when a run starts.

Only ``:meta:epoch_train_time_secs`` of the learning-rate file differs between runs (wall-clock time, also between
two runs never stopped).

Several workers (``distributed_tf``, Horovod-style): not supported here: step checkpoints are written by the root
worker only, and the other workers' dataset positions and generators are not saved; the option is refused with more
than one worker. Datasets that draw from numpy's or Python's global generator while loading (in the feeding thread,
ahead of the training steps) are not reproducible; the datasets of this package use their own seeded generators.
``MultiProcDataset`` and other datasets with worker processes: their sequence order is fixed by the epoch, so the
batches are rebuilt alike; what a worker process keeps in memory between epochs is not saved.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from returnn.engine.checkpoint_files import TEMP_MARKER, checkpoint_files
from returnn.errors import ReturnnError
from returnn.log import log

#: version of the marker's content
FORMAT_VERSION = 1


class StepCheckpointError(ReturnnError):
    """A step checkpoint does not fit the run that found it (other batches, other epoch)."""


def step_checkpoint_prefix(epoch_prefix: str, steps_done: int) -> str:
    """``<epoch prefix>.stepSSSSSSSS``: the step checkpoint after ``steps_done`` steps of the epoch."""
    return "%s.step%08d" % (epoch_prefix, steps_done)


def find_step_checkpoints(epoch_prefix: str) -> List[Tuple[int, str]]:
    """``(steps done, prefix)`` of the complete step checkpoints of the epoch (``<epoch prefix>.stepS.json``
    exists), oldest first."""
    directory = os.path.dirname(os.path.abspath(epoch_prefix))
    pattern = re.compile(re.escape(os.path.basename(epoch_prefix)) + r"\.step(\d+)\.json$")
    if not os.path.isdir(directory):
        return []
    found = []
    for name in os.listdir(directory):
        match = pattern.match(name)
        if match:
            found.append((int(match.group(1)), os.path.join(directory, name[: -len(".json")])))
    return sorted(found)


def remove_step_checkpoint(prefix: str) -> None:
    """Removes the marker first (the checkpoint then no longer counts), then the TF files."""
    for name in [prefix + ".json"] + checkpoint_files(prefix):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


def remove_all_step_checkpoints(model: str, *, only_epoch_prefix: Optional[str] = None,
                                except_epoch_prefix: Optional[str] = None) -> List[str]:
    """Removes the step checkpoints of ``model`` (complete ones, and the temporary files of interrupted writes):
    all epochs, or only those of ``only_epoch_prefix``, except those of ``except_epoch_prefix``.

    :return: the removed step checkpoint prefixes
    """
    directory = os.path.dirname(os.path.abspath(model))
    if not os.path.isdir(directory):
        return []
    pattern = re.compile(re.escape(os.path.basename(model)) + r"\.(?:pretrain\.)?\d+\.step\d+")
    only = os.path.basename(only_epoch_prefix) + ".step" if only_epoch_prefix else None
    keep = os.path.basename(except_epoch_prefix) + ".step" if except_epoch_prefix else None
    names = sorted(os.listdir(directory), key=lambda n: not n.endswith(".json"))  # markers first
    prefixes = set()
    for name in names:
        match = pattern.match(name)
        if not match or (keep and name.startswith(keep)) or (only and not name.startswith(only)):
            continue
        prefixes.add(os.path.join(directory, match.group(0)))
        try:
            os.remove(os.path.join(directory, name))
        except FileNotFoundError:
            pass
    return sorted(prefixes)


def batch_fingerprint(batch) -> str:
    """A hash of a :class:`~returnn.datasets.feeding.BatchData`: sequence indices, tags, and lengths per key."""
    content = {"seq_idx": [int(i) for i in batch.seq_idx], "seq_tags": [str(t) for t in batch.seq_tags],
               "seq_lens": {k: [int(x) for x in v] for k, v in sorted((batch.seq_lens or {}).items())}}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf8")).hexdigest()


def numpy_global_state() -> Dict[str, Any]:
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return {"name": name, "keys": [int(k) for k in keys], "pos": int(pos), "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached)}


def set_numpy_global_state(value: Dict[str, Any]) -> None:
    np.random.set_state((value["name"], np.array(value["keys"], dtype=np.uint32), value["pos"], value["has_gauss"],
                         value["cached_gaussian"]))


def python_global_state() -> List[Any]:
    version, internal, gauss_next = random.getstate()
    return [version, list(internal), gauss_next]


def set_python_global_state(value: List[Any]) -> None:
    random.setstate((value[0], tuple(value[1]), value[2]))


class PassProgress:
    """What a step checkpoint's marker holds (see module doc).

    :ivar epoch: the epoch
    :ivar steps_done: batches of the epoch done
    :ivar global_step_start: ``global_step`` at the epoch's start
    :ivar learning_rate: the epoch's learning rate
    :ivar sums: the pass's sums (:meth:`from_result`)
    :ivar last_batch: :func:`batch_fingerprint` of the last batch done
    """

    def __init__(self, *, epoch: int, steps_done: int, global_step_start: int, learning_rate: float,
                 sums: Dict[str, Any], last_batch: Optional[str], numpy_state: Optional[Dict[str, Any]] = None,
                 python_state: Optional[List[Any]] = None):
        self.epoch = epoch
        self.steps_done = steps_done
        self.global_step_start = global_step_start
        self.learning_rate = learning_rate
        self.sums = sums
        self.last_batch = last_batch
        self.numpy_state = numpy_state
        self.python_state = python_state

    @staticmethod
    def sums_of(result) -> Dict[str, Any]:
        """The sums of a :class:`~returnn.tf.engine.runner.PassResult` (exact floats)."""
        return {"names": list(result.names), "loss": dict(result.loss), "error": dict(result.error),
                "frames": dict(result.frames), "num_steps": result.num_steps, "num_seqs": result.num_seqs,
                "elapsed": result.elapsed, "computing_time": result.computing_time}

    def restore_sums(self, result) -> None:
        """Sets the sums of ``result`` (a fresh :class:`~returnn.tf.engine.runner.PassResult` with the same loss
        names) to the saved ones.

        :raises StepCheckpointError: other loss names
        """
        sums = self.sums
        if list(sums["names"]) != list(result.names):
            raise StepCheckpointError("step checkpoint of epoch %i: the losses %s of the checkpoint are not those of "
                                      "the network (%s); remove the step checkpoints to restart the epoch"
                                      % (self.epoch, sums["names"], result.names))
        result.loss = {k: float(v) for k, v in sums["loss"].items()}
        result.error = {k: float(v) for k, v in sums["error"].items()}
        result.frames = {k: float(v) for k, v in sums["frames"].items()}
        result.num_steps = int(sums["num_steps"])
        result.num_seqs = int(sums["num_seqs"])
        result.elapsed = float(sums["elapsed"])
        result.computing_time = float(sums["computing_time"])

    def restore_generators(self) -> None:
        """Sets numpy's and Python's global generators to the saved states."""
        if self.numpy_state is not None:
            set_numpy_global_state(self.numpy_state)
        if self.python_state is not None:
            set_python_global_state(self.python_state)

    def to_json(self) -> Dict[str, Any]:
        """The marker's content."""
        return {"format": FORMAT_VERSION, "epoch": self.epoch, "steps_done": self.steps_done,
                "global_step_start": self.global_step_start, "global_step": self.global_step_start + self.steps_done,
                "learning_rate": self.learning_rate, "sums": self.sums, "last_batch": self.last_batch,
                "numpy_random_state": self.numpy_state, "python_random_state": self.python_state}

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "PassProgress":
        """Reads a marker's content."""
        return cls(epoch=int(value["epoch"]), steps_done=int(value["steps_done"]),
                   global_step_start=int(value["global_step_start"]), learning_rate=float(value["learning_rate"]),
                   sums=value["sums"], last_batch=value.get("last_batch"),
                   numpy_state=value.get("numpy_random_state"), python_state=value.get("python_random_state"))


def write_marker(prefix: str, progress: PassProgress) -> None:
    """Writes ``<prefix>.json`` to a temporary name, then renames it into place (the step checkpoint is complete)."""
    target = prefix + ".json"
    tmp = "%s%s%d" % (target, TEMP_MARKER, os.getpid())
    with open(tmp, "w") as f:
        json.dump(progress.to_json(), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, target)


def read_marker(prefix: str) -> PassProgress:
    """:raises StepCheckpointError: unreadable marker"""
    try:
        with open(prefix + ".json") as f:
            value = json.load(f)
        if value.get("format") != FORMAT_VERSION:
            raise ValueError("format %r, expected %r" % (value.get("format"), FORMAT_VERSION))
        return PassProgress.from_json(value)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StepCheckpointError("cannot read step checkpoint marker %s.json: %s" % (prefix, exc)) from exc


class StepCheckpointer:
    """Writes the step checkpoints of one epoch (see module doc).

    :param state: the run (:class:`~returnn.tf.engine.state.RunState`): session, saver, model name
    :param epoch: the epoch
    :param every_steps: write after every N-th step of the epoch (0: not by steps)
    :param every_minutes: write when this many minutes passed since the last one (or the epoch's start; 0: not by time)
    :param global_step_start: ``global_step`` at the epoch's start
    :param learning_rate: the epoch's learning rate
    """

    def __init__(self, state, epoch: int, *, every_steps: int, every_minutes: float, global_step_start: int,
                 learning_rate: float, clock=time.monotonic):
        self.state = state
        self.epoch = epoch
        self.epoch_prefix = state.epoch_model_filename(epoch)
        self.every_steps = int(every_steps or 0)
        self.every_seconds = float(every_minutes or 0.0) * 60.0
        self.global_step_start = global_step_start
        self.learning_rate = learning_rate
        self.clock = clock
        self.last_time = clock()
        self.last_written_steps: Optional[int] = None

    def due(self, steps_done: int) -> bool:
        """Whether a step checkpoint is due after ``steps_done`` steps of the epoch."""
        if self.every_steps and steps_done % self.every_steps == 0:
            return True
        return bool(self.every_seconds) and self.clock() - self.last_time >= self.every_seconds

    def after_step(self, steps_done: int, batch, result) -> None:
        """The runner's step hook: writes a step checkpoint when :meth:`due`."""
        if self.due(steps_done):
            self.write(steps_done, batch, result)

    def write(self, steps_done: int, batch, result) -> str:
        """Writes the step checkpoint after ``steps_done`` steps (``batch``: the last one done, ``result``: the
        pass's sums), then removes the older ones of the epoch. Returns its prefix."""
        prefix = step_checkpoint_prefix(self.epoch_prefix, steps_done)
        progress = PassProgress(epoch=self.epoch, steps_done=steps_done, global_step_start=self.global_step_start,
                                learning_rate=self.learning_rate, sums=PassProgress.sums_of(result),
                                last_batch=batch_fingerprint(batch) if batch is not None else None,
                                numpy_state=numpy_global_state(), python_state=python_global_state())
        with self.state.graph.as_default():
            self.state.saver.save(self.state.session, prefix)
        write_marker(prefix, progress)
        print("Save step checkpoint under %s (%s, step %i)" % (prefix, self.state.epoch_str(self.epoch), steps_done),
              file=log.v4)
        for _steps, old in find_step_checkpoints(self.epoch_prefix):
            if old != prefix:
                remove_step_checkpoint(old)
        self.last_time = self.clock()
        self.last_written_steps = steps_done
        return prefix

    def on_stop(self, steps_done: int, batch, result) -> None:
        """A step checkpoint of the last step done, unless just written: the runner's stop hook (SIGINT/SIGTERM),
        and at the end of the epoch's pass (a kill during the evaluation then does not redo any step)."""
        if steps_done != self.last_written_steps:
            self.write(steps_done, batch, result)

    def remove_all(self) -> None:
        """Removes the epoch's step checkpoints and left-over temporary files (after its epoch checkpoint is
        written)."""
        remove_all_step_checkpoints(self.state.model_filename, only_epoch_prefix=self.epoch_prefix)


def load_newest(state, epoch: int, variables) -> Optional[PassProgress]:
    """Loads the newest complete step checkpoint of ``epoch`` into the session (``variables``: all saved ones,
    all required) and returns its :class:`PassProgress`; None when the epoch has none.

    :raises StepCheckpointError: the marker belongs to another epoch or cannot be read
    :raises DataFileError: the TF checkpoint is missing or does not fit the network
    """
    found = find_step_checkpoints(state.epoch_model_filename(epoch))
    if not found:
        return None
    steps_done, prefix = found[-1]
    progress = read_marker(prefix)
    if progress.epoch != epoch or progress.steps_done != steps_done:
        raise StepCheckpointError("step checkpoint %s: its marker says epoch %i, step %i" % (
            prefix, progress.epoch, progress.steps_done))
    print("Load step checkpoint %s: continuing %s after step %i" % (prefix, state.epoch_str(epoch), steps_done),
          file=log.v3)
    with state.graph.as_default():
        state.loader.load(state.session, prefix, variables, what="step checkpoint")
    return progress
