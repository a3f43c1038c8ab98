"""Layer machinery: base classes, registry, validation. No registered layer classes here."""

from returnn.tf.layers.core.concat_input import ConcatInputLayer as ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.ops.output_with_activation import OutputWithActivation as OutputWithActivation
from returnn.tf.layers.core.loss import Loss as Loss
from returnn.tf.layers.core.registry import LAYERS as LAYERS
from returnn.tf.layers.core.registry import LOSSES as LOSSES
from returnn.tf.layers.core.registry import register_layer as register_layer
from returnn.tf.layers.core.registry import register_loss as register_loss
from returnn.tf.layers.core.sources import concat_sources as concat_sources
from returnn.tf.layers.core.sources import concat_sources_template as concat_sources_template
