"""Public import path ``returnn.tf.layers.basic``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it."""

import returnn.tf.layers  # noqa: F401  (registers all built-in layers)
from returnn.tf.layers.control.subnetwork import SubnetworkLayer as SubnetworkLayer
from returnn.tf.layers.conv.conv import ConvLayer as ConvLayer
from returnn.tf.layers.conv.pool import PoolLayer as PoolLayer
from returnn.tf.layers.conv.transposed_conv import TransposedConvLayer as TransposedConvLayer
from returnn.tf.layers.core.concat_input import ConcatInputLayer as _ConcatInputLayer  # noqa: F401
from returnn.tf.layers.core.internal import InternalLayer as InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.layers.core.loss import Loss as Loss
from returnn.tf.layers.core.registry import auto_register_layer_classes as auto_register_layer_classes
from returnn.tf.layers.core.registry import get_layer_class as get_layer_class
from returnn.tf.layers.core.registry import get_layer_class_name_list as get_layer_class_name_list
from returnn.tf.layers.core.registry import get_loss_class as get_loss_class
from returnn.tf.layers.core.registry import register_layer_class as register_layer_class
from returnn.tf.layers.core.sources import concat_sources as concat_sources
from returnn.tf.layers.core.sources import concat_sources_template as get_concat_sources_data_template  # noqa: F401
from returnn.tf.layers.elementwise.activation import ActivationLayer as ActivationLayer
from returnn.tf.layers.elementwise.cast import CastLayer as CastLayer
from returnn.tf.layers.elementwise.combine import CombineLayer as CombineLayer
from returnn.tf.layers.elementwise.compare import CompareLayer as CompareLayer
from returnn.tf.layers.elementwise.copy import CopyLayer as CopyLayer
from returnn.tf.layers.elementwise.dropout import DropoutLayer as DropoutLayer
from returnn.tf.layers.elementwise.elemwise_prod import ElemwiseProdLayer as ElemwiseProdLayer
from returnn.tf.layers.elementwise.eval import EvalLayer as EvalLayer
from returnn.tf.layers.elementwise.gating import GatingLayer as GatingLayer
from returnn.tf.layers.elementwise.switch import SwitchLayer as SwitchLayer
from returnn.tf.layers.indexing.gather_nd import GatherNdLayer as GatherNdLayer
from returnn.tf.layers.indexing.scatter_nd import ScatterNdLayer as ScatterNdLayer
from returnn.tf.layers.indexing.slice_nd import SliceNdLayer as SliceNdLayer
from returnn.tf.layers.inputs.constant import ConstantLayer as ConstantLayer
from returnn.tf.layers.inputs.length import LengthLayer as LengthLayer
from returnn.tf.layers.inputs.source import SourceLayer as SourceLayer
from returnn.tf.layers.linear.dot import DotLayer as DotLayer
from returnn.tf.layers.linear.linear import LinearLayer as LinearLayer
from returnn.tf.layers.linear.softmax import SoftmaxLayer as SoftmaxLayer
from returnn.tf.layers.linear.softmax_over_spatial import SoftmaxOverSpatialLayer as SoftmaxOverSpatialLayer
from returnn.tf.layers.loss_layers.edit_distance import EditDistanceLayer as EditDistanceLayer
from returnn.tf.layers.loss_layers.loss import LossLayer as LossLayer
from returnn.tf.layers.loss_layers.sparse_softmax_ce import (  # noqa: F401
    SparseSoftmaxCrossEntropyWithLogitsLayer as SparseSoftmaxCrossEntropyWithLogitsLayer)
from returnn.tf.layers.losses.as_is import AsIsLoss as AsIsLoss
from returnn.tf.layers.losses.binary_cross_entropy import BinaryCrossEntropyLoss as BinaryCrossEntropyLoss
from returnn.tf.layers.losses.cross_entropy import CrossEntropyLoss as CrossEntropyLoss
from returnn.tf.layers.losses.ctc import CtcLoss as CtcLoss
from returnn.tf.layers.losses.l1 import L1Loss as L1Loss
from returnn.tf.layers.losses.l1 import MeanL1Loss as MeanL1Loss
from returnn.tf.layers.losses.mse import MeanSquaredError as MeanSquaredError
from returnn.tf.layers.norm.batch_norm import BatchNormLayer as BatchNormLayer
from returnn.tf.layers.norm.layer_norm import LayerNormLayer as LayerNormLayer
from returnn.tf.layers.reduce.accumulate_mean import AccumulateMeanLayer as AccumulateMeanLayer
from returnn.tf.layers.reduce.reduce import ReduceLayer as ReduceLayer
from returnn.tf.layers.reduce.reduce_out import ReduceOutLayer as ReduceOutLayer
from returnn.tf.layers.search.edit_distance_loss import EditDistanceLoss as EditDistanceLoss
from returnn.tf.layers.shape.expand_dims import ExpandDimsLayer as ExpandDimsLayer
from returnn.tf.layers.shape.flatten_batch import FlattenBatchLayer as FlattenBatchLayer
from returnn.tf.layers.shape.gather import GatherLayer as GatherLayer
from returnn.tf.layers.shape.merge_dims import CombineDimsLayer as CombineDimsLayer
from returnn.tf.layers.shape.merge_dims import MergeDimsLayer as MergeDimsLayer
from returnn.tf.layers.shape.pad import PadLayer as PadLayer
from returnn.tf.layers.search.select_search_sources import SelectSearchSourcesLayer as SelectSearchSourcesLayer
from returnn.tf.layers.shape.postfix_in_time import PostfixInTimeLayer as PostfixInTimeLayer
from returnn.tf.layers.shape.prefix_in_time import PrefixInTimeLayer as PrefixInTimeLayer
from returnn.tf.layers.shape.reinterpret_data import ReinterpretDataLayer as ReinterpretDataLayer
from returnn.tf.layers.shape.shift_axis import ShiftAxisLayer as ShiftAxisLayer
from returnn.tf.layers.shape.slice import SliceLayer as SliceLayer
from returnn.tf.layers.shape.split_batch_time import SplitBatchTimeLayer as SplitBatchTimeLayer
from returnn.tf.layers.shape.split_dims import SplitDimsLayer as SplitDimsLayer
from returnn.tf.layers.shape.squeeze import SqueezeLayer as SqueezeLayer
from returnn.tf.layers.shape.swap_axes import SwapAxesLayer as SwapAxesLayer
from returnn.tf.layers.shape.time_chunking import TimeChunkingLayer as TimeChunkingLayer
from returnn.tf.layers.shape.time_unchunking import TimeUnChunkingLayer as TimeUnChunkingLayer
from returnn.tf.layers.shape.transpose import TransposeLayer as TransposeLayer
from returnn.tf.layers.shape.unflatten_batch import UnflattenBatchLayer as UnflattenBatchLayer
from returnn.tf.layers.shape.window import WindowLayer as WindowLayer
from returnn.tf.layers.utility.hdf_dump import HDFDumpLayer as HDFDumpLayer
from returnn.tf.layers.utility.print import PrintLayer as PrintLayer
