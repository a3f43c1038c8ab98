"""Public import path ``returnn.tf.layers.base``, kept for user configs. Defines nothing."""

from returnn.tf.layers.core.concat_input import ConcatInputLayer as _ConcatInputLayer  # noqa: F401
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.ops.output_with_activation import OutputWithActivation as OutputWithActivation
from returnn.tf.layers.core.loss import Loss as Loss
from returnn.tf.layers.core.internal import InternalLayer as InternalLayer
from returnn.tf.layers.core.reuse_params import ReuseParams as ReuseParams
