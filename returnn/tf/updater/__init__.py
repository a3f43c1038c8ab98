"""returnn.tf.updater: optimizer step, gradient processing and optimizer classes (see :mod:`.updater`)."""

from returnn.tf.updater.optimizers import (  # noqa: F401
    OPTIMIZERS as OPTIMIZERS,
    AdadeltaOptimizer as AdadeltaOptimizer,
    AdagradOptimizer as AdagradOptimizer,
    AdamOptimizer as AdamOptimizer,
    AdamWOptimizer as AdamWOptimizer,
    GradientDescentOptimizer as GradientDescentOptimizer,
    MomentumOptimizer as MomentumOptimizer,
    NadamOptimizer as NadamOptimizer,
    NormalizedSGD as NormalizedSGD,
    Optimizer as Optimizer,
    RMSPropOptimizer as RMSPropOptimizer,
    create_optimizer as create_optimizer,
    get_optimizer_class as get_optimizer_class,
    register_optimizer_class as register_optimizer_class,
)
from returnn.tf.updater.updater import (  # noqa: F401
    Updater as Updater,
    get_param_updater_opts as get_param_updater_opts,
    optimizer_dict_from_config as optimizer_dict_from_config,
    set_param_updater_opts as set_param_updater_opts,
)

# as the reference's module namespace (``from returnn.tf.updater import *`` in its tests and configs)
import tensorflow as tf  # noqa: F401,E402
import returnn.tf.compat as tf_compat  # noqa: F401,E402
import returnn.tf.util.basic as tf_util  # noqa: F401,E402
from returnn.log import log as log  # noqa: F401,E402
from returnn.tf.util.numeric_checks import add_check_numerics_ops as add_check_numerics_ops  # noqa: F401,E402
from returnn.tf.util.custom_update import CustomUpdate as CustomUpdate  # noqa: F401,E402
