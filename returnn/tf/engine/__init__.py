"""Public import path ``returnn.tf.engine`` (the reference's module), now a package: the TF engine that builds,
trains and runs a network. Its backend-independent pieces (checkpoint file names, cleanup policy, ``EngineBase``)
are in :mod:`returnn.engine`.

Defines nothing; each name comes from the module that owns it.
"""

from returnn.tf.engine.engine import Engine as Engine
from returnn.tf.engine.engine import get_global_engine as get_global_engine
from returnn.tf.engine.runner import CancelTrainingException as CancelTrainingException
from returnn.tf.engine.runner import Runner as Runner
