"""Keys of the training loop (epochs, saving, faults, model selection between epochs)."""

from __future__ import annotations

import dataclasses
from typing import Any, List, Optional

from returnn.options.declare import OptionGroup, option


def _check_use_last_best_model(value: Any) -> Optional[str]:
    if isinstance(value, (bool, dict)):
        return None
    return "True/False or a dict with modulo, only_last_n, filter_score, min_score_dist, ..."


def _check_average_checkpoints(value: Any) -> Optional[str]:
    from returnn.engine.checkpoint_averaging import AveragingOptions
    from returnn.errors import ConfigValueError

    try:
        AveragingOptions(value)
    except ConfigValueError:
        return AveragingOptions.EXPECTED
    return None


@dataclasses.dataclass(frozen=True)
class TrainingOptions(OptionGroup):
    """The training loop (:mod:`returnn.tf.engine.training`)."""

    topic = "training"

    num_epochs: int = option(5, "the last epoch to train", kind="int")
    save_interval: int = option(1, "save a checkpoint every N epochs (the last epoch always); values < 1 count as 1",
                                kind="int")
    save_epoch1_initial_model: bool = option(False, "before epoch 1, save the initial params as <model>.000",
                                             kind="bool")
    stop_on_nonfinite_train_score: bool = option(True, "a NaN/inf training loss stops training (False: the step "
                                                       "is left out of the epoch's score)", kind="bool")
    use_last_best_model: Any = option(None, "True or a dict (modulo, only_last_n, filter_score, min_score_dist, "
                                            "...): before the next epoch, continue from an earlier epoch whose "
                                            "score is better than the last one's", kind="any",
                                      check=_check_use_last_best_model)
    use_learning_rate_control_always: bool = option(False, "use the learning-rate control's rate also during "
                                                           "pretrain and in the first epoch after it", kind="bool")
    cleanup_old_models: Any = option(None, "True or a dict (keep_last_n, keep_best_n, keep): delete old checkpoints "
                                           "after each epoch", kind="any")
    average_checkpoints: Any = option(None, "N, {'last_n': N} or {'best_n': N, 'key': score key}: after each saved "
                                            "epoch, write the average of the last N (or N best) epoch checkpoints as "
                                            "<model>.avg.NNN (load it with ++model <model>.avg ++load_epoch NNN; "
                                            "not in the reference)", kind="any", check=_check_average_checkpoints)
    search_train_network_layers: List[str] = option(
        (), "in training, these layers of the network (and what they read) are also built with the search flag, "
            "as 'extra.search:<name>' layers in an extra network sharing the params; their losses are trained too "
            "(e.g. a beam search's edit distance for min-expected-risk training)", kind="list")
    tf_log_dir: Optional[str] = option(None, "directory of the TensorBoard summaries (default: the directory of "
                                             "'model')", kind="str")
    step_checkpoint_interval: int = option(
        0, "write a step checkpoint every N training steps (0: never); a restarted run continues the epoch "
           "from the newest one, bit-identically (see returnn.tf.engine.step_checkpoints)", kind="int", min=0)
    step_checkpoint_interval_minutes: float = option(
        0.0, "write a step checkpoint when this many minutes of training passed since the last one (0: never); "
             "may be combined with step_checkpoint_interval", kind="float", min=0)

    @property
    def step_checkpoints_enabled(self) -> bool:
        """Whether step checkpoints are written (:attr:`step_checkpoint_interval` or
        :attr:`step_checkpoint_interval_minutes` set)."""
        return self.step_checkpoint_interval > 0 or self.step_checkpoint_interval_minutes > 0

    @property
    def effective_save_interval(self) -> int:
        """:attr:`save_interval`, at least 1."""
        return max(self.save_interval, 1)
