"""Checkpoint file names and the ``cleanup_old_models`` policy (backend independent, no TensorFlow).

A checkpoint of epoch ``N`` is the TF checkpoint with prefix ``<model>.NNN`` (``%03d``), i.e. the files
``<model>.NNN.index``, ``<model>.NNN.data-00000-of-00001`` and ``<model>.NNN.meta``, as the reference
writes them. Pretrain epochs use ``<model>.pretrain.NNN`` (:func:`get_existing_checkpoints` lists both kinds).
A checkpoint *exists* iff its ``.index`` file
exists: our writer (:mod:`returnn.tf.engine.checkpoints`) renames the ``.index`` file into place last.
"""

from __future__ import annotations

import os
import re
from typing import Dict, Iterable, List, Optional, Set

from returnn.errors import ConfigValueError

#: suffix of temporary checkpoint prefixes (never matched as an epoch)
TEMP_MARKER = ".tmp-"


def get_epoch_model_filename(model: str, epoch: int, *, is_pretrain: bool = False) -> str:
    """``<model>.NNN`` (or ``<model>.pretrain.NNN``) — the checkpoint prefix of ``epoch`` (1-based)."""
    return "%s.%s%03d" % (model, "pretrain." if is_pretrain else "", epoch)


def checkpoint_exists(prefix: str) -> bool:
    """Whether a complete checkpoint with this prefix exists (its ``.index`` file is there)."""
    return os.path.exists(prefix + ".index")


def get_existing_epochs(model: str, *, is_pretrain: bool = False) -> List[int]:
    """Sorted epochs ``N`` for which a complete checkpoint ``<model>.NNN`` exists.

    :param model: the ``model`` config value (a path prefix)
    """
    directory = os.path.dirname(model) or "."
    base = os.path.basename(model) + (".pretrain." if is_pretrain else ".")
    if not os.path.isdir(directory):
        return []
    pattern = re.compile(re.escape(base) + r"(\d+)\.index$")
    epochs = []
    for name in os.listdir(directory):
        match = pattern.match(name)
        if match:
            epochs.append(int(match.group(1)))
    return sorted(epochs)


def get_existing_checkpoints(model: str) -> Dict[int, str]:
    """Epoch → checkpoint prefix of every complete checkpoint of ``model``: ``<model>.NNN`` and
    ``<model>.pretrain.NNN`` (both kinds, as the reference finds them when it resumes, evaluates or cleans up);
    where an epoch has both, the regular one."""
    out = {epoch: get_epoch_model_filename(model, epoch, is_pretrain=True)
           for epoch in get_existing_epochs(model, is_pretrain=True)}
    out.update({epoch: get_epoch_model_filename(model, epoch) for epoch in get_existing_epochs(model)})
    return dict(sorted(out.items()))


def get_epoch_from_model_filename(filename: str) -> Optional[int]:
    """The epoch of a checkpoint path like ``/x/model.012`` (or ``.../model.012.index``), else None."""
    name = filename
    for suffix in (".index", ".meta"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    match = re.search(r"\.(\d+)$", name)
    return int(match.group(1)) if match else None


def checkpoint_files(prefix: str) -> List[str]:
    """All existing files belonging to the checkpoint ``prefix`` (index, meta, data shards)."""
    directory = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    if not os.path.isdir(directory):
        return []
    out = []
    for name in os.listdir(directory):
        if name in (base + ".index", base + ".meta") or (name.startswith(base + ".data-")):
            out.append(os.path.join(directory, name))
    return sorted(out)


def default_keep_pattern(num_epochs: int) -> Set[int]:
    """Epochs the reference keeps by default besides the best and the last ones.

    Observed: the doubles of a base (5 for up to 50 epochs, 10 for up to 100, 20 beyond) up to
    ``num_epochs``, e.g. 40 epochs → {5, 10, 20, 40}, 100 → {10, 20, 40, 80}, 500 → {20, 40, ..., 320};
    up to 10 epochs also the doubles of 4: 5 → {4, 5}, 8 → {4, 5, 8}, 10 → {4, 5, 8, 10}.
    """
    bases = (4, 5) if num_epochs <= 10 else ((5,) if num_epochs <= 50 else ((10,) if num_epochs <= 100 else (20,)))
    out = set()
    for base in bases:
        epoch = base
        while epoch <= num_epochs:
            out.add(epoch)
            epoch *= 2
    return out


class CleanupOptions:
    """The ``cleanup_old_models`` config value: ``True`` or a dict with ``keep_last_n`` (default 2),
    ``keep_best_n`` (default 4) and ``keep`` (epochs always kept; default :func:`default_keep_pattern`).
    Epochs after ``num_epochs`` are not considered (neither kept nor deleted), as the reference.

    :raises ConfigValueError: on an unknown dict key or a wrong type
    """

    KEYS = ("keep_last_n", "keep_best_n", "keep")

    def __init__(self, value, *, num_epochs: int):
        if value is True:
            value = {}
        if not isinstance(value, dict):
            raise ConfigValueError("cleanup_old_models", expected="True or a dict with keys " + ", ".join(self.KEYS),
                                   got=value)
        for key in value:
            if key not in self.KEYS:
                from returnn.util.suggest import close_matches
                raise ConfigValueError("cleanup_old_models", expected="a dict with keys " + ", ".join(self.KEYS),
                                       got=key, suggestions=close_matches(key, self.KEYS))
        self.num_epochs = num_epochs
        self.keep_last_n = int(value.get("keep_last_n", 2))
        self.keep_best_n = int(value.get("keep_best_n", 4))
        keep = value.get("keep", None)
        self.keep: Set[int] = set(int(e) for e in keep) if keep is not None else default_keep_pattern(num_epochs)


def select_epochs_to_keep(existing: Iterable[int], scores: Dict[int, Dict[str, float]],
                          opts: CleanupOptions) -> Set[int]:
    """Which of the ``existing`` epochs the cleanup keeps: the last ``keep_last_n``, for each key of the
    learning-rate file (scores and errors, e.g. ``dev_score`` and ``dev_error``; not the ``:meta:`` keys nor
    keys with the same value in all epochs) the ``keep_best_n`` lowest (ties: earlier epoch first), and the
    ``keep`` set.

    :param scores: epoch → error dict (as in the ``learning_rate_file``)
    """
    existing = sorted(existing)
    keep = set(existing[-opts.keep_last_n:]) if opts.keep_last_n > 0 else set()
    keep |= opts.keep & set(existing)
    keys = sorted({k for d in scores.values() for k in d if not k.startswith(":")})
    for key in keys:
        values = {ep: d[key] for ep, d in scores.items() if key in d and ep in existing}
        if len(set(values.values())) <= 1 and len(scores) > 1:
            continue
        best = sorted(values, key=lambda ep: (values[ep], ep))[: max(opts.keep_best_n, 0)]
        keep |= set(best)
    return keep


def get_checkpoint_filepattern(filepath: str) -> str:
    """The checkpoint prefix of a checkpoint file: ``/x/model.012.index`` or ``.meta`` → ``/x/model.012``
    (other names unchanged), as the reference's ``returnn.util.basic.get_checkpoint_filepattern``."""
    for suffix in (".index", ".meta"):
        if filepath.endswith(suffix):
            return filepath[: -len(suffix)]
    return filepath


def model_epoch_from_filename(filename: str) -> Optional[int]:
    """The epoch of a checkpoint path (``/x/model.012``, ``.../model.pretrain.005``, with or without
    ``.index``/``.meta``/``.data-*``), None if the name ends in no ``.<number>`` (as the reference)."""
    name = re.sub(r"\.data-\d+-of-\d+$", "", get_checkpoint_filepattern(filename))
    match = re.search(r"\.(\d+)$", name)
    return int(match.group(1)) if match else None
