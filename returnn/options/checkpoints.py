"""Keys that choose which checkpoint a run loads and where training starts."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option


def _check_start_epoch(value: Any) -> Optional[str]:
    expected = "'auto' or an epoch number >= 1"
    if value == "auto":
        return None
    try:
        return None if int(value) >= 1 else expected
    except (TypeError, ValueError):
        return expected


def _check_preload(value: Any) -> Optional[str]:
    if not isinstance(value, dict):
        return "a dict name -> {'filename': ..., ...}"
    for name, opts in value.items():
        if not isinstance(opts, dict) or "filename" not in opts:
            return "entry %r: a dict with 'filename'" % (name,)
    return None


@dataclasses.dataclass(frozen=True)
class CheckpointOptions(OptionGroup):
    """Model choice (see :mod:`returnn.tf.engine.model_selection`)."""

    topic = "checkpoints"

    start_epoch: Any = option("auto", "first epoch to train: 'auto' continues after the newest complete checkpoint "
                                      "of 'model', a number N loads the checkpoint of epoch N-1",
                              kind="str", check=_check_start_epoch)
    load: Optional[str] = option(None, "checkpoint to load (training: only when no checkpoint of 'model' exists; "
                                       "other tasks: always)", kind="str")
    load_epoch: Optional[int] = option(None, "epoch of 'model' to load (values <= 0: unset)", kind="int")
    epoch: Optional[int] = option(None, "old name of load_epoch", kind="int")
    import_model_train_epoch1: Optional[str] = option(
        None, "checkpoint whose params initialize training when it starts at epoch 1 (params and global step only)",
        kind="str")
    preload_from_files: Any = option(None, "dict name -> {'filename', 'prefix', 'init_for_train', 'ignore_missing', "
                                           "'ignore_params', 'ignore_params_prefixes', 'var_name_mapping'}: params "
                                           "loaded from other checkpoints", kind="any", check=_check_preload)
    load_ignore_missing_vars: bool = option(False, "variables missing in the loaded checkpoint keep their initial "
                                                   "value instead of an error", kind="bool")
    allow_random_model_init: bool = option(False, "eval/forward/search without any checkpoint use randomly "
                                                  "initialized params instead of an error", kind="bool")

    @property
    def load_epoch_number(self) -> Optional[int]:
        """``load_epoch`` (or the legacy ``epoch``) when > 0, else None."""
        for value in (self.load_epoch, self.epoch):
            if value is not None and value > 0:
                return value
        return None
