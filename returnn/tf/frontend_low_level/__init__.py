"""``returnn.frontend`` running directly as TF graph ops (``backend = "tensorflow"``): the raw-op backend and the
variables of the parameters of an ``rf.Module``."""

from returnn.tf.frontend_low_level._backend import TFBackend as TFBackend
from returnn.tf.frontend_low_level.variables import create_parameter_variables as create_parameter_variables
from returnn.tf.frontend_low_level.variables import default_param_name as default_param_name
from returnn.tf.frontend_low_level.variables import register_dim_sizes as register_dim_sizes
