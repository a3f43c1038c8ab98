"""Public import path ``returnn.tf.layers.basic``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it."""

import returnn.tf.layers  # noqa: F401  (registers all built-in layers)
from returnn.tf.layers.core.concat_input import ConcatInputLayer as _ConcatInputLayer  # noqa: F401
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.layers.core.loss import Loss as Loss
from returnn.tf.layers.core.registry import get_layer_class as get_layer_class
from returnn.tf.layers.core.registry import get_layer_class_name_list as get_layer_class_name_list
from returnn.tf.layers.core.registry import get_loss_class as get_loss_class
from returnn.tf.layers.core.registry import register_layer_class as register_layer_class
from returnn.tf.layers.core.sources import concat_sources as concat_sources
from returnn.tf.layers.core.sources import concat_sources_template as get_concat_sources_data_template  # noqa: F401
from returnn.tf.layers.elementwise.activation import ActivationLayer as ActivationLayer
from returnn.tf.layers.elementwise.copy import CopyLayer as CopyLayer
from returnn.tf.layers.inputs.source import SourceLayer as SourceLayer
from returnn.tf.layers.linear.linear import LinearLayer as LinearLayer
from returnn.tf.layers.linear.softmax import SoftmaxLayer as SoftmaxLayer
from returnn.tf.layers.losses.as_is import AsIsLoss as AsIsLoss
from returnn.tf.layers.losses.binary_cross_entropy import BinaryCrossEntropyLoss as BinaryCrossEntropyLoss
from returnn.tf.layers.losses.cross_entropy import CrossEntropyLoss as CrossEntropyLoss
from returnn.tf.layers.losses.ctc import CtcLoss as CtcLoss
from returnn.tf.layers.losses.l1 import L1Loss as L1Loss
from returnn.tf.layers.losses.mse import MeanSquaredError as MeanSquaredError
from returnn.tf.layers.core.internal import InternalLayer as InternalLayer
