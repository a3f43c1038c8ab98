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
