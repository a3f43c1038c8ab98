"""Public import path ``returnn.tf.engine`` (the reference's module), now a package: the TF engine that builds,
trains and runs a network. Its backend-independent pieces (checkpoint file names, cleanup policy, ``EngineBase``)
are in :mod:`returnn.engine`.

Defines nothing; each name comes from the module that owns it.
"""

from returnn.tf.engine.engine import Engine as Engine
from returnn.tf.engine.engine import get_global_engine as get_global_engine
from returnn.tf.engine.runner import CancelTrainingException as CancelTrainingException
from returnn.tf.engine.engine_runner import EngineRunner as Runner  # the reference's public signature

# names the reference's module ``returnn.tf.engine`` has in its namespace (tests and scripts use them after
# ``from returnn.tf.engine import *``)
import os as os  # noqa: E402
import sys as sys  # noqa: E402
import time as time  # noqa: E402
from pprint import pprint as pprint  # noqa: E402

import numpy as numpy  # noqa: E402
import tensorflow as tf  # noqa: E402

import returnn.tf.compat as tf_compat  # noqa: E402
import returnn.util.basic as util  # noqa: E402
from returnn.datasets.basic import Dataset as Dataset  # noqa: E402
from returnn.datasets.basic import init_dataset as init_dataset  # noqa: E402
from returnn.datasets.util.vocabulary import Vocabulary as Vocabulary  # noqa: E402
from returnn.engine.base import EngineBase as EngineBase  # noqa: E402
from returnn.engine.batch import Batch as Batch  # noqa: E402
from returnn.engine.batch import BatchSetGenerator as BatchSetGenerator  # noqa: E402
from returnn.forward_iface import ForwardCallbackIface as ForwardCallbackIface  # noqa: E402
from returnn.log import log as log  # noqa: E402
from returnn.pretrain import pretrain_from_config as pretrain_from_config  # noqa: E402
from returnn.tensor import Tensor as Data  # noqa: E402
from returnn.tf.data_pipeline import FeedDictDataProvider as FeedDictDataProvider  # noqa: E402
from returnn.tf.layers.base import LayerBase as LayerBase  # noqa: E402
from returnn.tf.network import ExternData as ExternData  # noqa: E402
from returnn.tf.network import TFNetwork as TFNetwork  # noqa: E402
from returnn.tf.network import help_on_tf_exception as help_on_tf_exception  # noqa: E402
from returnn.tf.updater import Updater as Updater  # noqa: E402
from returnn.util.basic import BackendEngine as BackendEngine  # noqa: E402
from returnn.util.basic import NumbersDict as NumbersDict  # noqa: E402
from returnn.util.basic import hms as hms  # noqa: E402
