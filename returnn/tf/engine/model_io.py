"""Checkpoints of a run: loading the chosen model (and ``preload_from_files``), saving the epoch's model.

The files themselves are written and read by :mod:`~returnn.tf.engine.checkpoints` (crash-safe, clear errors);
which checkpoint a run loads is decided by :mod:`~returnn.tf.engine.model_selection`.
"""

from __future__ import annotations

import os
from typing import Optional, Set

from returnn.engine.checkpoint_files import checkpoint_exists
from returnn.errors import ConfigValueError, DataFileError
from returnn.log import log
from returnn.tf.engine.build import param_variables, saveable_variables
from returnn.tf.engine.checkpoints import update_checkpoint_state_file, var_name
from returnn.tf.engine.model_selection import ModelChoice
from returnn.tf.engine.state import RunState


def check_model_dir_writable(state: RunState) -> None:
    """:raises ConfigValueError: the directory of ``model`` cannot be created or written"""
    if not state.model_filename or state.options.run.dry_run:
        return
    directory = os.path.dirname(os.path.abspath(state.model_filename))
    try:
        os.makedirs(directory, exist_ok=True)
        probe = os.path.join(directory, ".returnn-write-test-%d" % os.getpid())
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as exc:
        raise ConfigValueError("model", expected="a path prefix in a writable directory (checkpoints are "
                                                 "saved there after each epoch)", got=state.model_filename,
                               hint="%s: %s" % (directory, exc.strerror or exc)) from exc


def load_choice(state: RunState, choice: ModelChoice, *, is_training: bool) -> None:
    """Loads the model ``choice`` (after ``preload_from_files``) into the session; nothing for random init."""
    with state.graph.as_default():  # the loader creates its assign ops lazily
        _load_choice(state, choice, is_training=is_training)


#: config tasks that only apply a model: ``preload_from_files`` treats them as not training also when the network is
#: set up by ``init_train_from_config`` (as the reference: an entry without ``init_for_train`` is then loaded)
_APPLY_TASKS = ("eval", "forward", "search", "compute_priors")


def _load_choice(state: RunState, choice: ModelChoice, *, is_training: bool) -> None:
    state.loaded_model = choice
    preload_training = is_training and state.options.run.task not in _APPLY_TASKS
    preloaded = preload_from_files(state, is_training=preload_training,
                                   from_scratch=choice.filename is None or choice.params_only)
    if choice.filename is None:
        if not is_training:
            print("Note: no model loaded, using randomly initialized parameters.", file=log.v3)
        return
    print("loading weights from %s" % choice.filename, file=log.v3)
    params = [v for v in param_variables(state) if id(v) not in preloaded]
    all_vars = saveable_variables(state)
    optional = [v for v in all_vars if id(v) not in {id(p) for p in params}]
    if choice.params_only:  # the params and (if in the file) the global step, as the reference
        optional = [v for v in optional if var_name(v) == "global_step"]
        variables = params + optional
    else:
        variables = [v for v in all_vars if id(v) not in preloaded]
    state.loader.load(state.session, choice.filename, variables, optional=optional,
                      ignore_missing=state.options.checkpoints.load_ignore_missing_vars,
                      what="config key 'import_model_train_epoch1'" if choice.params_only else "model")


def preload_from_files(state: RunState, *, is_training: bool, from_scratch: bool) -> Set[int]:
    """Applies ``preload_from_files``; returns the ids of the variables it set."""
    spec = state.options.checkpoints.preload_from_files or {}
    done: Set[int] = set()
    done_any = False
    for name, opts in sorted(spec.items()):
        init_for_train = opts.get("init_for_train", False)
        if init_for_train == "always":
            pass
        elif init_for_train:
            if not (is_training and from_scratch):
                _warn_if_missing(name, opts["filename"], "continues from the model" if is_training
                                 else "is not a training (its 'init_for_train' is set)")
                continue
        elif is_training:
            # as the reference: an entry without init_for_train is for evaluation and search only; it is skipped in
            # training (the file is not even read), which silently trains from scratch: say so
            log.print_warning(
                f"preload_from_files[{name!r}] (file {opts.get('filename')!r}) is not loaded in training: its "
                f"'init_for_train' is not set, so training starts from {'scratch' if from_scratch else 'the model'}; "
                f"set \"init_for_train\": True to initialise the training with it")
            continue
        prefix = opts.get("prefix", "") or ""
        ignore = set(opts.get("ignore_params", ()))
        ignore_prefixes = tuple(opts.get("ignore_params_prefixes", ()))
        mapping = dict(opts.get("var_name_mapping", {}) or {})
        variables = [v for v in param_variables(state) if var_name(v).startswith(prefix)
                     and var_name(v) not in ignore and not (ignore_prefixes and var_name(v).startswith(ignore_prefixes))]

        def name_map(n: str, _prefix=prefix, _mapping=mapping) -> str:
            return _mapping.get(n, n[len(_prefix):])

        if not done_any:
            print("Start pre-loading weights...", file=log.v2)  # as the reference
            done_any = True
        print("loading weights from %s" % opts["filename"], file=log.v2)
        if not checkpoint_exists(opts["filename"]):  # the reference fails here too (a NotFoundError of TF)
            raise DataFileError(opts["filename"] + ".index", f"preload_from_files[{name!r}]: the checkpoint "
                                f"{opts['filename']!r} does not exist (no .index file)")
        loaded = state.loader.load(state.session, opts["filename"], variables, name_map=name_map,
                                   ignore_missing=bool(opts.get("ignore_missing", False)),
                                   what="preload_from_files[%r]" % name)
        done |= {id(v) for v in loaded}
    return done


def _warn_if_missing(name: str, filename: str, why_skipped: str) -> None:
    """Warns that the skipped ``preload_from_files`` entry ``name`` names a checkpoint that does not exist (the
    reference skips such an entry without a word, and the mistake shows only in a later run from scratch)."""
    if not checkpoint_exists(filename):
        log.print_warning(f"preload_from_files[{name!r}]: the checkpoint {filename!r} does not exist (no .index "
                          f"file); the entry is not used now (this run {why_skipped}), but a run that uses it will "
                          f"fail")


def save_model(state: RunState, filename: Optional[str] = None) -> None:
    """Saves all variables (params, ``global_step``, optimizer state) to ``filename`` (default: the current epoch's
    ``<model>.NNN``), crash-safely, and updates the ``checkpoint`` state file. Only the root worker saves, and
    nothing with ``dry_run``."""
    if state.options.run.dry_run or not state.strategy.is_root:
        return
    filename = filename or state.epoch_model_filename()
    print("Save model under %s" % filename, file=log.v4)
    with state.graph.as_default():
        state.saver.save(state.session, filename)
    if state.model_filename and filename.startswith(state.model_filename):
        update_checkpoint_state_file(state.model_filename, filename)


def load_model(state: RunState, filename: str, *, message: str = "loading weights from %s", stream=None) -> None:
    """Loads the checkpoint ``filename`` (all saved variables; the params are required) into the session.

    :param message: the log line (``%s``: the file)
    :param stream: its log stream (default ``log.v3``)
    """
    print(message % filename, file=stream or log.v3)
    param_ids = {id(p) for p in param_variables(state)}
    all_vars = saveable_variables(state)
    with state.graph.as_default():
        state.loader.load(state.session, filename, all_vars, optional=[v for v in all_vars if id(v) not in param_ids],
                          ignore_missing=state.options.checkpoints.load_ignore_missing_vars)
