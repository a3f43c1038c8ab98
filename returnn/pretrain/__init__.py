"""``returnn.pretrain`` (legacy name ``Pretrain``): networks that change with the training epoch.

Public import path kept for user configs; defines nothing. The schedule is in :mod:`returnn.pretrain.schedule`,
the construction algorithms in :mod:`returnn.pretrain.construction`, ``WrapEpochValue`` in
:mod:`returnn.pretrain.wrap_epoch_value`, ``python3 -m returnn.pretrain CONFIG`` in :mod:`returnn.pretrain.cli`. How
the engine trains the schedule: ``docs/configuration.md``.
"""

from returnn.pretrain.cli import demo as demo
from returnn.pretrain.errors import PretrainError as PretrainError
from returnn.pretrain.errors import PretrainOptionError as PretrainOptionError
from returnn.pretrain.schedule import Pretrain as Pretrain
from returnn.pretrain.schedule import pretrain_from_config as pretrain_from_config
from returnn.pretrain.schedule import pretrain_from_options as pretrain_from_options
from returnn.pretrain.wrap_epoch_value import WrapEpochValue as WrapEpochValue
