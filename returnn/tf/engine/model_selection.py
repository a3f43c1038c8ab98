"""Which checkpoint a run loads and at which epoch training starts (``start_epoch``, ``load``, ``load_epoch``,
``import_model_train_epoch1``), as the reference decides it.

Training (``start_epoch = "auto"``, the default) continues after the newest complete checkpoint
``<model>.NNN`` or ``<model>.pretrain.NNN`` (a pretrain epoch's, as the reference names them); without one, it starts at epoch 1 from ``import_model_train_epoch1`` (params only) or, if
set, from ``load`` (continuing after that file's epoch), else from random init. ``load_epoch`` picks an
epoch explicitly. Other tasks load ``load``, else ``<model>.<load_epoch>``, else the newest checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from returnn.engine.checkpoint_files import (
    checkpoint_exists,
    get_epoch_from_model_filename,
    get_epoch_model_filename,
    get_existing_checkpoints,
)
from returnn.errors import ConfigValueError
from returnn.options import CheckpointOptions


@dataclass
class ModelChoice:
    """What to load: ``filename`` (checkpoint prefix or None for random init), its ``epoch`` (None if unknown),
    and ``params_only`` (``import_model_train_epoch1``: params, not the optimizer state / epoch counter)."""

    filename: Optional[str]
    epoch: Optional[int]
    params_only: bool = False


def _format_available(model: Optional[str], existing: List[int]) -> str:
    if not existing:
        return "no checkpoints exist for model %r" % model
    return "available epochs for model %r: %s" % (model, ", ".join(str(e) for e in existing))


def _epoch_file(model: Optional[str], epoch: int, key: str, pretrain=None) -> str:
    """The checkpoint of ``epoch``: ``<model>.pretrain.NNN`` when ``pretrain`` has that epoch, else ``<model>.NNN``;
    if that does not exist, the other kind."""
    if not model:
        raise ConfigValueError("model", expected="a checkpoint path prefix (needed for %s)" % key, got=model)
    is_pretrain = pretrain is not None and epoch <= pretrain.get_train_num_epochs()
    filename = get_epoch_model_filename(model, epoch, is_pretrain=is_pretrain)
    if checkpoint_exists(filename):
        return filename
    existing = get_existing_checkpoints(model)
    if epoch in existing:  # the other kind (e.g. written before pretrain was set or changed)
        return existing[epoch]
    raise ConfigValueError(key, expected="an epoch with a saved checkpoint; " +
                           _format_available(model, sorted(existing)),
                           got=epoch, hint="missing file %s.index" % filename)


def _check_file(filename: str, key: str) -> str:
    if not checkpoint_exists(filename):
        raise ConfigValueError(key, expected="a checkpoint prefix whose .index file exists", got=filename,
                               hint="missing file %s.index" % filename)
    return filename


def choose_model_for_train(checkpoints: CheckpointOptions, model: Optional[str], pretrain=None) -> ModelChoice:
    """The checkpoint training starts from (see module doc).

    :param checkpoints: the parsed ``start_epoch``, ``load``, ``load_epoch``, ``import_model_train_epoch1``
    :param model: config ``model`` (the checkpoint path prefix; None: no checkpoints of the run)
    :param pretrain: the config's :class:`returnn.pretrain.Pretrain` (names the checkpoints of its epochs)

    :raises ConfigValueError: ``start_epoch``/``load_epoch`` point at a missing checkpoint (the message lists
        the available epochs), ``load``/``import_model_train_epoch1`` name a missing file
    """
    existing = get_existing_checkpoints(model) if model else {}
    start_epoch = checkpoints.start_epoch
    load_epoch = checkpoints.load_epoch_number
    if start_epoch not in (None, "auto"):
        start = int(start_epoch)  # valid: checked by CheckpointOptions
        if start == 1:
            return _fresh_start(checkpoints)
        return ModelChoice(_epoch_file(model, start - 1, "start_epoch", pretrain), start - 1)
    if load_epoch is not None:
        return ModelChoice(_epoch_file(model, load_epoch, "load_epoch", pretrain), load_epoch)
    if existing:
        last = max(existing)
        return ModelChoice(_epoch_file(model, last, "model", pretrain), last)
    return _fresh_start(checkpoints)


def _fresh_start(checkpoints: CheckpointOptions) -> ModelChoice:
    import_file = checkpoints.import_model_train_epoch1
    if import_file:
        return ModelChoice(_check_file(import_file, "import_model_train_epoch1"), None, params_only=True)
    load = checkpoints.load
    if load:
        return ModelChoice(_check_file(load, "load"), get_epoch_from_model_filename(load))
    return ModelChoice(None, None)


def choose_model_for_eval(checkpoints: CheckpointOptions, model: Optional[str], *, task: str,
                          allow_random: bool = False) -> ModelChoice:
    """The checkpoint of eval/forward/search/compute_priors.

    :param checkpoints: the parsed ``load``, ``load_epoch``, ``allow_random_model_init``
    :param model: config ``model`` (the checkpoint path prefix)
    :param task: named in the error
    :param allow_random: random init without a checkpoint also without ``allow_random_model_init`` (a network
        built programmatically for config task ``train``, as the reference)

    :raises ConfigValueError: nothing to load and ``allow_random_model_init`` is not set, or ``load_epoch``
        names a missing epoch (listing the available ones)
    """
    load = checkpoints.load
    if load:
        return ModelChoice(_check_file(load, "load"), get_epoch_from_model_filename(load))
    load_epoch = checkpoints.load_epoch_number
    if load_epoch is not None:
        return ModelChoice(_epoch_file(model, load_epoch, "load_epoch"), load_epoch)
    existing = get_existing_checkpoints(model) if model else {}
    if existing:
        return ModelChoice(existing[max(existing)], max(existing))
    if checkpoints.allow_random_model_init or allow_random:
        return ModelChoice(None, None)
    raise ConfigValueError("model", expected="a trained model for task %r: %s, or set load / load_epoch" % (
        task, _format_available(model, sorted(existing))), got=model,
        hint="set allow_random_model_init = True to run with randomly initialized parameters")
