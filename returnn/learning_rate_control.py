"""Learning-rate control: the learning rate of each epoch, decided from the scores of earlier epochs.

This module is the reference's public path and re-exports; the code is in :mod:`returnn.lr_control`.

Config keys (defaults as in the reference):

* ``learning_rate_control``: ``"constant"`` (default), ``"newbob"`` = ``"newbob_rel"`` = ``"newbob_relative"``,
  ``"newbob_abs"``, ``"newbob_multi_epoch"``.
* ``learning_rate`` (1.0): the initial learning rate; ``learning_rates``: explicit learning rates, a list
  (epoch ``i`` uses item ``i - 1``) or a dict ``{epoch: lr}`` (an epoch without entry continues with the most
  recent one); epochs after the explicit ones are controlled by the strategy, starting from the last value.
* ``min_learning_rate`` (0.0): floor for decayed learning rates.
* ``newbob_learning_rate_decay`` (0.5), ``newbob_learning_rate_growth`` (1.0): factors applied when the score did
  not improve enough / did improve enough.
* ``newbob_relative_error_threshold`` (-0.01, relative variants), ``newbob_error_threshold`` (-0.01, abs): the
  learning rate decays when the (relative) change of the score is *greater* than this.
* ``newbob_relative_error_div_by_old`` (False): relative change = ``(new - old) / old`` instead of
  ``(new - old) / new``.
* ``learning_rate_control_relative_error_relative_lr`` (False): divide the change by
  ``learning_rate / initial learning_rate`` of the newer epoch.
* ``learning_rate_control_min_num_epochs_per_new_lr`` (0): keep a learning rate at least this many epochs.
* ``newbob_multi_num_epochs`` (5), ``newbob_multi_update_interval`` (= num epochs): multi-epoch Newbob averages
  the relative changes of the last ``num_epochs`` epochs and may change the rate only every ``update_interval``
  epochs.
* ``learning_rate_control_error_measure`` (None): the score key that drives the decision (see
  :meth:`LearningRateControl.get_error_key` for the default choice).
* ``learning_rate_file`` (None): where the per-epoch learning rates and scores are kept, so that a resumed
  training continues the same schedule; format see :mod:`returnn.lr_control.file_format`.
"""

from returnn.lr_control.base import LearningRateControl as LearningRateControl  # noqa: F401
from returnn.lr_control.file_format import EpochData as EpochData  # noqa: F401
from returnn.lr_control.from_config import (  # noqa: F401
    LR_CONTROL as LR_CONTROL,
    get_use_last_best_model_epoch as get_use_last_best_model_epoch,
    learning_rate_control_type as learning_rate_control_type,
    load_learning_rate_control_from_config as load_learning_rate_control_from_config,
)
from returnn.lr_control.strategies import (  # noqa: F401
    ConstantLearningRate as ConstantLearningRate,
    NewbobAbs as NewbobAbs,
    NewbobMultiEpoch as NewbobMultiEpoch,
    NewbobRelative as NewbobRelative,
)
