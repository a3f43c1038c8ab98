"""Public import path ``returnn.tf.util.basic``, kept for user configs. Defines nothing."""

from returnn.tensor import Data as Data
from returnn.tensor import Dim as Dim
from returnn.tensor import DimensionTag as DimensionTag
from returnn.tf.ops.activations import get_activation_function as get_activation_function
from returnn.tf.ops.dims import sequence_mask as sequence_mask
from returnn.tf.ops.dropout import cond_on_train_flag as cond_on_train_flag
from returnn.tf.ops.init import get_initializer as get_initializer
