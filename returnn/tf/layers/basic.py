"""Public import path ``returnn.tf.layers.basic``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it.

As the reference's module (which has no ``__all__``), a star import of it also brings ``tf``, ``tf_compat``,
``tf_util``, ``contextlib``, ``typing`` (and its common names), ``log``, ``Data``/``Tensor``/``Dim``/``FeatureDim``/
``SpatialDim``, ``NotSpecified``, ``swapaxes``."""

from __future__ import annotations

import contextlib as contextlib
import typing as typing
from typing import Callable as Callable
from typing import Dict as Dict
from typing import List as List
from typing import Optional as Optional
from typing import Sequence as Sequence
from typing import Tuple as Tuple
from typing import TypeVar as TypeVar
from typing import Union as Union

import tensorflow as tf

import returnn.tf.compat as tf_compat
import returnn.tf.util.basic as tf_util
from returnn.log import log as log
from returnn.tensor import Data as Data
from returnn.tensor import Dim as Dim
from returnn.tensor import FeatureDim as FeatureDim
from returnn.tensor import NotSpecified as NotSpecified
from returnn.tensor import SpatialDim as SpatialDim
from returnn.tensor import Tensor as Tensor
from returnn.tf.util.shape import swapaxes as swapaxes

import returnn.tf.layers  # noqa: F401  (registers all built-in layers)
from returnn.tf.layers.alignment.fast_bw import FastBaumWelchLayer as FastBaumWelchLayer
from returnn.tf.layers.alignment.forced_align import ForcedAlignmentLayer as ForcedAlignmentLayer
from returnn.tf.layers.control.cond import CondLayer as CondLayer
from returnn.tf.layers.control.subnetwork import SubnetworkLayer as SubnetworkLayer
from returnn.tf.layers.conv.conv import ConvLayer as ConvLayer
from returnn.tf.layers.conv.pool import PoolLayer as PoolLayer
from returnn.tf.layers.conv.transposed_conv import TransposedConvLayer as TransposedConvLayer
from returnn.tf.layers.core.concat_input import ConcatInputLayer as _ConcatInputLayer  # noqa: F401
from returnn.tf.layers.core.internal import InternalLayer as InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.ops.output_with_activation import OutputWithActivation as OutputWithActivation
from returnn.tf.layers.core.loss import Loss as Loss
from returnn.tf.layers.core.registry import auto_register_layer_classes as auto_register_layer_classes
from returnn.tf.layers.core.registry import get_layer_class as get_layer_class
from returnn.tf.layers.core.registry import get_layer_class_name_list as get_layer_class_name_list
from returnn.tf.layers.core.registry import get_loss_class as get_loss_class
from returnn.tf.layers.core.registry import register_layer_class as register_layer_class
from returnn.tf.layers.core.search_choices import SearchChoices as SearchChoices
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
from returnn.tf.layers.indexing.boolean_mask import BooleanMaskLayer as BooleanMaskLayer
from returnn.tf.layers.indexing.gather_nd import GatherNdLayer as GatherNdLayer
from returnn.tf.layers.indexing.scatter_nd import ScatterNdLayer as ScatterNdLayer
from returnn.tf.layers.indexing.search_sorted import SearchSortedLayer as SearchSortedLayer
from returnn.tf.layers.indexing.slice_nd import SliceNdLayer as SliceNdLayer
from returnn.tf.layers.indexing.top_k import TopKLayer as TopKLayer
from returnn.tf.layers.inputs.constant import ConstantLayer as ConstantLayer
from returnn.tf.layers.inputs.global_train_step import GlobalTrainStepLayer as GlobalTrainStepLayer
from returnn.tf.layers.inputs.length import LengthLayer as LengthLayer
from returnn.tf.layers.inputs.range import RangeLayer as RangeLayer
from returnn.tf.layers.inputs.range_from_length import RangeFromLengthLayer as RangeFromLengthLayer
from returnn.tf.layers.inputs.range_in_axis import RangeInAxisLayer as RangeInAxisLayer
from returnn.tf.layers.inputs.source import SourceLayer as SourceLayer
from returnn.tf.layers.inputs.train_flag import TrainFlagLayer as TrainFlagLayer
from returnn.tf.layers.linear.dot import DotLayer as DotLayer
from returnn.tf.layers.linear.linear import LinearLayer as LinearLayer
from returnn.tf.layers.linear.softmax import SoftmaxLayer as SoftmaxLayer
from returnn.tf.layers.linear.softmax_over_spatial import SoftmaxOverSpatialLayer as SoftmaxOverSpatialLayer
from returnn.tf.layers.linear.weighted_sum import WeightedSumLayer as WeightedSumLayer
from returnn.tf.layers.loss_layers.edit_distance import EditDistanceLayer as EditDistanceLayer
from returnn.tf.layers.loss_layers.loss import LossLayer as LossLayer
from returnn.tf.layers.loss_layers.sparse_softmax_ce import (  # noqa: F401
    SparseSoftmaxCrossEntropyWithLogitsLayer as SparseSoftmaxCrossEntropyWithLogitsLayer)
from returnn.tf.layers.losses.as_is import AsIsLoss as AsIsLoss
from returnn.tf.layers.losses.binary_cross_entropy import BinaryCrossEntropyLoss as BinaryCrossEntropyLoss
from returnn.tf.layers.losses.bleu import BleuLoss as BleuLoss
from returnn.tf.layers.losses.cross_entropy import CrossEntropyLoss as CrossEntropyLoss
from returnn.tf.layers.losses.ctc import CtcLoss as CtcLoss
from returnn.tf.layers.losses.l1 import L1Loss as L1Loss
from returnn.tf.layers.losses.l1 import MeanL1Loss as MeanL1Loss
from returnn.tf.layers.losses.mse import MeanSquaredError as MeanSquaredError
from returnn.tf.layers.losses.rasr import ExternSprintLoss as ExternSprintLoss
from returnn.tf.layers.losses.rasr import FastBaumWelchLoss as FastBaumWelchLoss
from returnn.tf.layers.losses.sampling import SamplingBasedLoss as SamplingBasedLoss
from returnn.tf.layers.losses.search import ExpectedLoss as ExpectedLoss
from returnn.tf.layers.losses.search import SearchScoreLoss as SearchScoreLoss
from returnn.tf.layers.losses.via_layer import ViaLayerLoss as ViaLayerLoss
from returnn.tf.layers.norm.batch_norm import BatchNormLayer as BatchNormLayer
from returnn.tf.layers.norm.layer_norm import LayerNormLayer as LayerNormLayer
from returnn.tf.layers.norm.math_norm import MathNormLayer as MathNormLayer
from returnn.tf.layers.norm.norm import NormLayer as NormLayer
from returnn.tf.layers.reduce.accumulate_mean import AccumulateMeanLayer as AccumulateMeanLayer
from returnn.tf.layers.reduce.cumsum import CumsumLayer as CumsumLayer
from returnn.tf.layers.reduce.reduce import ReduceLayer as ReduceLayer
from returnn.tf.layers.reduce.reduce_out import ReduceOutLayer as ReduceOutLayer
from returnn.tf.layers.search.edit_distance_loss import EditDistanceLoss as EditDistanceLoss
from returnn.tf.layers.search.beam import SearchBeam as SearchBeam
from returnn.tf.layers.search.select_search_sources import SelectSearchSourcesLayer as SelectSearchSourcesLayer
from returnn.tf.layers.shape.concat import ConcatLayer as ConcatLayer
from returnn.tf.layers.shape.expand_dims import ExpandDimsLayer as ExpandDimsLayer
from returnn.tf.layers.shape.flatten_batch import FlattenBatchLayer as FlattenBatchLayer
from returnn.tf.layers.shape.gather import GatherLayer as GatherLayer
from returnn.tf.layers.shape.merge_dims import CombineDimsLayer as CombineDimsLayer
from returnn.tf.layers.shape.merge_dims import MergeDimsLayer as MergeDimsLayer
from returnn.tf.layers.shape.pad import PadLayer as PadLayer
from returnn.tf.layers.shape.postfix_in_time import PostfixInTimeLayer as PostfixInTimeLayer
from returnn.tf.layers.shape.prefix_in_time import PrefixInTimeLayer as PrefixInTimeLayer
from returnn.tf.layers.shape.reinterpret_data import ReinterpretDataLayer as ReinterpretDataLayer
from returnn.tf.layers.shape.repeat import RepeatLayer as RepeatLayer
from returnn.tf.layers.shape.reshape import ReshapeLayer as ReshapeLayer
from returnn.tf.layers.shape.resize import ResizeLayer as ResizeLayer
from returnn.tf.layers.shape.seq_len_mask import SeqLenMaskLayer as SeqLenMaskLayer
from returnn.tf.layers.shape.shift_axis import ShiftAxisLayer as ShiftAxisLayer
from returnn.tf.layers.shape.slice import SliceLayer as SliceLayer
from returnn.tf.layers.shape.split import SplitLayer as SplitLayer
from returnn.tf.layers.shape.split_batch_time import SplitBatchTimeLayer as SplitBatchTimeLayer
from returnn.tf.layers.shape.split_dims import SplitDimsLayer as SplitDimsLayer
from returnn.tf.layers.shape.squeeze import SqueezeLayer as SqueezeLayer
from returnn.tf.layers.shape.stack import StackLayer as StackLayer
from returnn.tf.layers.shape.swap_axes import SwapAxesLayer as SwapAxesLayer
from returnn.tf.layers.shape.tile import TileLayer as TileLayer
from returnn.tf.layers.shape.time_chunking import TimeChunkingLayer as TimeChunkingLayer
from returnn.tf.layers.shape.time_unchunking import TimeUnChunkingLayer as TimeUnChunkingLayer
from returnn.tf.layers.shape.transpose import TransposeLayer as TransposeLayer
from returnn.tf.layers.shape.unflatten_batch import UnflattenBatchLayer as UnflattenBatchLayer
from returnn.tf.layers.shape.unflatten_nd import UnflattenNdLayer as UnflattenNdLayer
from returnn.tf.layers.shape.window import WindowLayer as WindowLayer
from returnn.tf.layers.shape.fold import FoldLayer as FoldLayer
from returnn.tf.layers.signal.dct import DctLayer as DctLayer
from returnn.tf.layers.utility.hdf_dump import HDFDumpLayer as HDFDumpLayer
from returnn.tf.layers.utility.identity import IdentityLayer as IdentityLayer
from returnn.tf.layers.utility.print import PrintLayer as PrintLayer
from returnn.tf.layers.utility.scaled_grad import ScaledGradientLayer as ScaledGradientLayer
from returnn.tf.layers.utility.synthetic_gradient import SyntheticGradientLayer as SyntheticGradientLayer
from returnn.tf.layers.utility.tikhonov_regularization import TikhonovRegularizationLayer as TikhonovRegularizationLayer
