"""Saving and loading TF checkpoints (``<model>.NNN.index/.meta/.data-*``) crash-safely.

Saving writes the checkpoint under a temporary prefix in the same directory and renames its files into
place, the ``.index`` file last; since a checkpoint counts as existing iff its ``.index`` file exists
(:func:`returnn.engine.checkpoint_files.checkpoint_exists`), a crash (or ``kill -9``) during a save never
leaves a checkpoint that looks complete. The TF ``checkpoint`` state file next to it is updated afterwards.

Loading reads values with a checkpoint reader and assigns them, so checkpoints of the reference (which
hold the params and ``global_step`` but no optimizer slots) load, and so that a missing or truncated file,
a missing variable or a shape mismatch ends in one :class:`returnn.errors.DataFileError` naming the file
and the variable.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

import tensorflow as tf

from returnn.engine.checkpoint_files import TEMP_MARKER, checkpoint_files, get_existing_checkpoints
from returnn.errors import DataFileError, format_details
from returnn.util.suggest import close_matches

tf1 = tf.compat.v1


def var_name(var) -> str:
    """The checkpoint name of a variable: its op name without ``:0`` (``output/W``)."""
    return var.name[:-2] if var.name.endswith(":0") else var.name


class CheckpointSaver:
    """Saves a fixed list of variables to ``prefix`` crash-safely (see module doc).

    :param variables: the variables to save (params, ``global_step``, optimizer slots)
    :param write_meta_graph: also write ``prefix.meta`` as the reference does
    """

    def __init__(self, variables: Sequence, *, write_meta_graph: bool = True):
        self.variables = list(variables)
        self.write_meta_graph = write_meta_graph
        self._tf_saver = None  # built on the first save: its ops are not needed before (start-up time)

    @property
    def _saver(self):
        if self._tf_saver is None:
            graph = self.variables[0].graph if self.variables else tf1.get_default_graph()
            with graph.as_default():
                self._tf_saver = tf1.train.Saver(var_list={var_name(v): v for v in self.variables}, max_to_keep=None,
                                                 save_relative_paths=True, allow_empty=True)
        return self._tf_saver

    def save(self, session, prefix: str) -> None:
        """Writes the checkpoint ``prefix`` (overwriting an existing one of the same name).

        :raises OSError: directory not writable, disk full (nothing that looks complete is left behind)
        """
        directory = os.path.dirname(os.path.abspath(prefix))
        os.makedirs(directory, exist_ok=True)
        tmp_prefix = "%s%s%d" % (prefix, TEMP_MARKER, os.getpid())
        for name in checkpoint_files(tmp_prefix):
            os.remove(name)
        try:
            self._saver.save(session, tmp_prefix, write_meta_graph=self.write_meta_graph, write_state=False)
            tmp_files = checkpoint_files(tmp_prefix)
            if os.path.exists(prefix + ".index"):  # overwriting: invalidate the old one first
                os.remove(prefix + ".index")
            for name in checkpoint_files(prefix):
                os.remove(name)
            index_file = None
            for name in tmp_files:
                target = prefix + name[len(tmp_prefix):]
                if name.endswith(".index"):
                    index_file = (name, target)
                    continue
                os.replace(name, target)
            if index_file is None:
                raise OSError(f"checkpoint {prefix}: TensorFlow wrote no .index file")
            os.replace(*index_file)
        finally:
            for name in checkpoint_files(tmp_prefix):
                try:
                    os.remove(name)
                except OSError:
                    pass


def update_checkpoint_state_file(model: str, latest_prefix: str) -> None:
    """Writes the TF ``checkpoint`` state file next to ``model`` (latest + all existing epochs, pretrain ones
    included), atomically."""
    directory = os.path.dirname(os.path.abspath(model))
    all_prefixes = [os.path.abspath(prefix) for prefix in get_existing_checkpoints(model).values()]
    lines = ['model_checkpoint_path: "%s"' % os.path.abspath(latest_prefix)]
    lines += ['all_model_checkpoint_paths: "%s"' % p for p in all_prefixes]
    tmp = os.path.join(directory, "checkpoint" + TEMP_MARKER + str(os.getpid()))
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(directory, "checkpoint"))


def _open_reader(prefix: str):
    if not os.path.exists(prefix + ".index"):
        raise DataFileError(prefix + ".index", "checkpoint index file does not exist")
    try:
        return tf1.train.NewCheckpointReader(prefix)
    except Exception as exc:  # DataLossError, NotFoundError, ... from the C++ reader
        raise DataFileError(prefix + ".index", "cannot read checkpoint (truncated or corrupted?): %s"
                            % _short_tf_message(exc)) from exc


def _short_tf_message(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def list_checkpoint_variables(prefix: str) -> Dict[str, List[int]]:
    """Checkpoint variable name → shape.

    :raises DataFileError: missing/corrupted checkpoint
    """
    reader = _open_reader(prefix)
    return {k: list(v) for k, v in reader.get_variable_to_shape_map().items()}


#: the name ending of the random generator states of an RF model's random ops (optional when loading)
RANDOM_STATE_SUFFIX = "/random_generator/StateVar"


class CheckpointLoader:
    """Assigns values from checkpoints to graph variables (one cached assign op per variable)."""

    def __init__(self):
        self._assigns: Dict = {}

    def _assign_op(self, var):
        key = id(var)
        if key not in self._assigns:
            with var.graph.as_default(), tf1.name_scope("checkpoint_load"):
                ph = tf1.placeholder(var.dtype.base_dtype, shape=var.shape, name="value")
                op = tf1.assign(var, ph) if not hasattr(var, "handle") else var.assign(ph, read_value=False)
            self._assigns[key] = (var, ph, op)
        return self._assigns[key]

    def load(self, session, prefix: str, variables: Iterable, *, optional: Iterable = (),
             ignore_missing: bool = False, name_map: Optional[Callable[[str], str]] = None,
             what: str = "checkpoint") -> List:
        """Loads ``variables`` from the checkpoint ``prefix``.

        :param variables: graph variables to set
        :param optional: variables that may be missing from the checkpoint (keep their current value),
            e.g. optimizer slots and ``global_step`` when loading a reference checkpoint
        :param ignore_missing: any variable may be missing
        :param name_map: graph variable name → checkpoint name (``preload_from_files`` ``prefix``)
        :param what: used in messages (e.g. the config key)
        :return: the variables that were loaded
        :raises DataFileError: file missing/corrupted, a required variable missing, or a shape mismatch
        """
        reader = _open_reader(prefix)
        shapes = reader.get_variable_to_shape_map()
        optional_ids: Set[int] = {id(v) for v in optional}
        feeds, ops, loaded, missing, missing_states = {}, [], [], [], []
        for var in variables:
            name = var_name(var)
            ckpt_name = name_map(name) if name_map else name
            if ckpt_name not in shapes:
                if not (ignore_missing or id(var) in optional_ids):
                    missing.append(ckpt_name)
                elif ckpt_name.endswith(RANDOM_STATE_SUFFIX):
                    missing_states.append(ckpt_name)
                continue
            want = var.shape.as_list()
            if list(shapes[ckpt_name]) != want:
                raise DataFileError(prefix, "%s: variable %r has shape %s in the checkpoint, but the network has "
                                            "%s for %r" % (what, ckpt_name, list(shapes[ckpt_name]), want, name))
            try:
                value = reader.get_tensor(ckpt_name)
            except Exception as exc:
                raise DataFileError(prefix, "%s: cannot read variable %r (data file truncated or corrupted?): %s"
                                    % (what, ckpt_name, _short_tf_message(exc))) from exc
            _, ph, op = self._assign_op(var)
            feeds[ph] = value
            ops.append(op)
            loaded.append(var)
        if missing:
            lines = []
            for name in missing[:20]:
                near = close_matches(name, list(shapes), cutoff=0.6)
                lines.append("  %s%s" % (name, (" (checkpoint has: %s)" % ", ".join(near)) if near else ""))
            hint = format_details(hint="set load_ignore_missing_vars = True (or preload_from_files with "
                                       "ignore_missing) to keep them randomly initialized")
            raise DataFileError(prefix, "%s: %d variable(s) of the network are not in the checkpoint:\n%s"
                                % (what, len(missing), "\n".join(lines + hint)))
        if missing_states:
            from returnn.log import log
            log.print_warning("%s %s: %d random generator state(s) not in the checkpoint keep their initial values "
                              "(e.g. %s); the random numbers start anew" % (what, prefix, len(missing_states),
                                                                           missing_states[0]))
        if ops:
            session.run(ops, feed_dict=feeds)
        return loaded
