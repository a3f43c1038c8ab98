"""Averaging TF checkpoints: the arithmetic of ``tools/tf_avg_checkpoints.py`` and of the ``average_checkpoints``
training option.

Each floating-point variable of the result is the plain mean of that variable over the checkpoints: the values are
summed in float64 in the order given, divided by the number of checkpoints and cast back to the variable's dtype
(observed: the reference's ``tf_avg_checkpoints.py`` gives bit-identical values). A variable of another dtype
(``global_step``: int64) cannot be averaged; it is taken from the *last* checkpoint of the list (the newest, where
the list is in training order). The reference's tool stops with a numpy ``UFuncTypeError`` on such a variable,
so on RETURNN checkpoints (which hold ``global_step``) it only works after the variable is removed.

Writing builds a fresh graph with one variable per value (:class:`ValuesGraph`), so any saver can write it.
"""

from __future__ import annotations

import os
from typing import Dict, List, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import DataFileError

tf1 = tf.compat.v1


def checkpoint_exists(prefix: str) -> bool:
    """Whether a TF checkpoint with this prefix exists (``prefix.index`` for the V2 format, or the V1 file)."""
    return os.path.exists(prefix + ".index") or os.path.isfile(prefix)


def _reader(prefix: str):
    try:
        return tf1.train.NewCheckpointReader(prefix)
    except (tf.errors.OpError, ValueError) as exc:
        raise DataFileError(prefix, "cannot read the checkpoint: %s" % (getattr(exc, "message", None) or exc)) from exc


def is_float_dtype(dtype) -> bool:
    """Whether a checkpoint variable of this dtype (TF or numpy) is averaged (float16/32/64, bfloat16)."""
    return tf.as_dtype(dtype).is_floating


def average_checkpoints(prefixes: Sequence[str], *, log=None) -> Dict[str, np.ndarray]:
    """Averages the variables of the checkpoints ``prefixes`` (see the module doc for the arithmetic).

    :param prefixes: checkpoint prefixes (``/x/model.003``), oldest first; non-float variables come from the last
    :param log: optional callable receiving one line per checkpoint read
    :return: variable name -> averaged value (the variable's dtype and shape), names sorted
    :raises DataFileError: no checkpoint given, one is unreadable, or they differ in variable names or shapes
    """
    if not prefixes:
        raise DataFileError("", "no checkpoint to average")
    readers = [(prefix, _reader(prefix)) for prefix in prefixes]
    first_prefix, first = readers[0]
    shapes = first.get_variable_to_shape_map()
    dtypes = first.get_variable_to_dtype_map()
    for prefix, reader in readers[1:]:
        other = reader.get_variable_to_shape_map()
        if set(other) != set(shapes):
            missing, extra = sorted(set(shapes) - set(other)), sorted(set(other) - set(shapes))
            raise DataFileError(prefix, "its variables differ from those of %s (missing: %s, extra: %s)"
                                % (first_prefix, missing or "none", extra or "none"))
        for name, shape in other.items():
            if list(shape) != list(shapes[name]):
                raise DataFileError(prefix, "variable %r has shape %s, in %s it has %s"
                                    % (name, list(shape), first_prefix, list(shapes[name])))
    sums = {name: np.zeros(shapes[name], dtype=np.float64) for name in shapes if is_float_dtype(dtypes[name])}
    for prefix, reader in readers:
        for name, total in sums.items():
            total += reader.get_tensor(name)
        if log:
            log("Read from checkpoint %s" % prefix)
    newest = readers[-1][1]
    out = {}
    for name in sorted(shapes):
        if name in sums:
            out[name] = (sums[name] / len(readers)).astype(dtypes[name].as_numpy_dtype)
        else:
            out[name] = np.asarray(newest.get_tensor(name))
    return out


class ValuesGraph:
    """A new graph holding one variable per value, named as the value's key, initialized in its own session.

    :param values: variable name -> value (numpy array or scalar)
    """

    def __init__(self, values: Dict[str, np.ndarray]):
        self.graph = tf.Graph()
        self.variables: List = []
        feed = {}
        with self.graph.as_default():
            for name, value in values.items():
                value = np.asarray(value)
                placeholder = tf1.placeholder(tf.as_dtype(value.dtype), shape=value.shape)
                var = tf1.Variable(placeholder, name=name, trainable=False, use_resource=True)
                if var.name != name + ":0":
                    raise ValueError("variable name %r cannot be used as a TF op name (got %r)" % (name, var.name))
                feed[placeholder] = value
                self.variables.append(var)
            init = tf1.variables_initializer(self.variables)
        self.session = tf1.Session(graph=self.graph, config=tf1.ConfigProto(device_count={"GPU": 0}))
        self.session.run(init, feed_dict=feed)

    def var_list(self) -> Dict[str, object]:
        """Name -> variable (for ``tf.compat.v1.train.Saver(var_list=...)``)."""
        return {var.name[:-2]: var for var in self.variables}

    def close(self) -> None:
        """Releases the session."""
        self.session.close()

    def __enter__(self) -> "ValuesGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def save_values_checkpoint(values: Dict[str, np.ndarray], prefix: str, *, write_state: bool = True,
                           write_meta_graph: bool = True) -> str:
    """Writes ``values`` as the TF checkpoint ``prefix`` with a plain ``tf.compat.v1.train.Saver`` (as the
    reference's tool: ``prefix.index/.data-*``, ``.meta`` and, with ``write_state``, the ``checkpoint`` state file
    of the directory pointing at it).

    :return: the prefix written
    :raises ValueError: the directory of ``prefix`` does not exist
    """
    with ValuesGraph(values) as holder:
        with holder.graph.as_default():
            saver = tf1.train.Saver(var_list=holder.var_list(), allow_empty=True)
            return saver.save(holder.session, prefix, write_state=write_state, write_meta_graph=write_meta_graph)


def resolve_checkpoints(checkpoints: str = "", num_last_checkpoints: int = 0, prefix: str = "") -> List[str]:
    """The checkpoints ``tools/tf_avg_checkpoints.py`` averages, oldest first, the missing ones left out.

    :param checkpoints: comma-separated checkpoint names, each prefixed with ``prefix`` (wins over
        ``num_last_checkpoints``)
    :param num_last_checkpoints: else the last N of the ``checkpoint`` state file in the directory ``prefix``
    :param prefix: string put before each name of ``checkpoints``; the directory for ``num_last_checkpoints``
    :raises ValueError: neither given (``num_last_checkpoints`` < 1)
    :raises DataFileError: no state file for ``num_last_checkpoints``, or none of the checkpoints exists
    """
    if checkpoints:
        names = [prefix + name.strip() for name in checkpoints.split(",") if name.strip()]
        given = checkpoints
    else:
        if num_last_checkpoints < 1:
            raise ValueError("Must average at least one model: give --checkpoints, or --num_last_checkpoints >= 1 "
                             "(got %r)" % num_last_checkpoints)
        state = tf1.train.get_checkpoint_state(prefix)
        if state is None:
            raise DataFileError(os.path.join(prefix, "checkpoint"), "no checkpoint state file, which "
                                "--num_last_checkpoints reads (give --prefix the directory of the checkpoints)")
        names = list(state.all_model_checkpoint_paths)[-num_last_checkpoints:]
        given = ",".join(names)
    existing = [name for name in names if checkpoint_exists(name)]
    if not existing:
        raise DataFileError(given, "None of the provided checkpoints exist.")
    return existing


def run_average_tool(*, checkpoints: str = "", num_last_checkpoints: int = 0, prefix: str = "",
                     output_path: str = "/tmp/averaged.ckpt", program: str = "tf_avg_checkpoints.py") -> str:
    """``tools/tf_avg_checkpoints.py``: averages the checkpoints (:func:`resolve_checkpoints`) and saves the result
    under ``output_path`` (:func:`save_values_checkpoint`), logging as the reference's tool (TF logging, INFO).

    :return: the prefix written
    :raises DataFileError: see :func:`resolve_checkpoints`, :func:`average_checkpoints`; the output directory
        does not exist
    """
    logger = tf1.logging
    logger.set_verbosity(logger.INFO)
    logger.info("%s startup. TF version: %s" % (program, tf.__version__))
    names = resolve_checkpoints(checkpoints, num_last_checkpoints, prefix)
    logger.info("Reading variables and averaging checkpoints:")
    for name in names:
        logger.info("%s " % name)
    values = average_checkpoints(names, log=logger.info)
    not_averaged = [name for name, value in values.items() if not is_float_dtype(value.dtype)]
    if not_averaged:
        logger.info("Not averaged (not float), taken from %s: %s" % (names[-1], ", ".join(not_averaged)))
    directory = os.path.dirname(os.path.abspath(output_path))
    if not os.path.isdir(directory):
        raise DataFileError(output_path, "the parent directory %s does not exist" % directory)
    written = save_values_checkpoint(values, output_path)
    logger.info("Averaged checkpoints saved in %s" % written)
    return written
