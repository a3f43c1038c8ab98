"""Config keys declared once: name, type, default, meaning (as the reference's) and valid range.

Each concern has an options group (a frozen dataclass, see :mod:`.declare`) parsed once where that concern starts
(``TrainingOptions.from_config(config)`` when training starts, ...), so a wrong type or a value outside the valid
range ends in one :class:`~returnn.errors.ConfigValueError` naming the key. :mod:`.known_keys` is the union of these
and of the keys other parts read (checked against the code by ``tests/options/test_known_keys.py``), and
:mod:`.unknown_keys` warns at start-up about a config name that is close to a known key but not one.
"""

from returnn.options.backend import BackendOptions as BackendOptions
from returnn.options.batching import BatchingOptions as BatchingOptions
from returnn.options.checkpoints import CheckpointOptions as CheckpointOptions
from returnn.options.data import DataOptions as DataOptions
from returnn.options.declare import Option as Option
from returnn.options.declare import OptionGroup as OptionGroup
from returnn.options.declare import option as option
from returnn.options.distributed import DistributedKeys as DistributedKeys
from returnn.options.frontend import FrontendOptions as FrontendOptions
from returnn.options.logging import LogOptions as LogOptions
from returnn.options.lr_control import LearningRateControlOptions as LearningRateControlOptions
from returnn.options.network import NetworkOptions as NetworkOptions
from returnn.options.precision import PrecisionOptions as PrecisionOptions
from returnn.options.pretrain import PretrainOptions as PretrainOptions
from returnn.options.run import RunOptions as RunOptions
from returnn.options.tasks import AnalysisOptions as AnalysisOptions
from returnn.options.tasks import EvalOptions as EvalOptions
from returnn.options.tasks import ForwardOptions as ForwardOptions
from returnn.options.tasks import SearchOptions as SearchOptions
from returnn.options.training import TrainingOptions as TrainingOptions
from returnn.options.updater import UpdaterOptions as UpdaterOptions

#: every options group, in the order of the docs
GROUPS = (RunOptions, BackendOptions, LogOptions, DataOptions, CheckpointOptions, TrainingOptions, BatchingOptions,
          UpdaterOptions, LearningRateControlOptions, PretrainOptions, EvalOptions, ForwardOptions, SearchOptions,
          AnalysisOptions, DistributedKeys, PrecisionOptions, FrontendOptions, NetworkOptions)
