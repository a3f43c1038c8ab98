"""Public import path ``returnn.tf.util.basic`` (legacy ``TFUtil``), kept for user configs and scripts. Defines
nothing: the helpers live in the small modules of :mod:`returnn.tf.util` and are re-exported here.

As the reference's module (which has no ``__all__``), ``from returnn.tf.util.basic import *`` also gives the
modules it works with: ``tf``, ``tf_compat`` (:mod:`returnn.tf.compat`), ``numpy``, ``contextlib``, ``os``,
``sys``, ``threading``, ``typing`` and the ``typing`` names ``Any``, ``Dict``, ``List``, ``Optional``,
``Sequence``, ``Union``, ``TypeVar`` (and ``T``), ``dataclass``, ``util`` (:mod:`returnn.util.basic`), TF's ``init_ops``
and ``device_lib``.
"""

import contextlib as contextlib
import os as os
import sys as sys
import threading as threading
import typing as typing
from dataclasses import dataclass as dataclass
from typing import Any as Any
from typing import Dict as Dict
from typing import List as List
from typing import Optional as Optional
from typing import Sequence as Sequence
from typing import TypeVar as TypeVar
from typing import Union as Union

import numpy as numpy
import tensorflow as tf
from tensorflow.python.client import device_lib as device_lib
from tensorflow.python.ops import init_ops as init_ops

import returnn.tf.compat as tf_compat
import returnn.util.basic as util
from returnn.extern.graph_editor import copy_op as copy_op
from returnn.tensor import ControlFlowContext as ControlFlowContext
from returnn.tensor import Data as Data
from returnn.tensor import Dim as Dim
from returnn.tensor import DimensionTag as DimensionTag
from returnn.tensor import NotSpecified as NotSpecified
from returnn.tensor import SearchBeam as SearchBeam
from returnn.tensor import Tensor as Tensor
from returnn.tf.ops.output_with_activation import OutputWithActivation as OutputWithActivation
from returnn.tf.util.attention_loss import softmax_cross_entropy_over_size as softmax_cross_entropy_over_size
from returnn.tf.util.beam_ops import beam_search as beam_search
from returnn.tf.util.beam_ops import select_src_beams as select_src_beams
from returnn.tf.util.beam_ops import unflatten_with_seq_len_mask as unflatten_with_seq_len_mask
from returnn.tf.util.bleu import bleu_score as bleu_score
from returnn.tf.util.broadcasting import concat_with_opt_broadcast as concat_with_opt_broadcast
from returnn.tf.util.broadcasting import get_common_shape as get_common_shape
from returnn.tf.util.broadcasting import nested_get_shapes as nested_get_shapes
from returnn.tf.util.broadcasting import unbroadcast_to_common_shape as unbroadcast_to_common_shape
from returnn.tf.util.collection_keys import CollectionKeys as CollectionKeys
from returnn.tf.util.config_specs import get_activation_function as get_activation_function
from returnn.tf.util.config_specs import get_initializer as get_initializer
from returnn.tf.util.control_deps import add_control_input as add_control_input
from returnn.tf.util.control_deps import copy_tensor as copy_tensor
from returnn.tf.util.control_deps import post_control_dependencies as post_control_dependencies
from returnn.tf.util.control_deps import sequential_control_dependencies as sequential_control_dependencies
from returnn.tf.util.control_flow import cond as cond
from returnn.tf.util.control_flow import default_control_flow_ctx as default_control_flow_ctx
from returnn.tf.util.control_flow import get_root_graph as get_root_graph
from returnn.tf.util.control_flow import has_control_flow_context as has_control_flow_context
from returnn.tf.util.control_flow import has_current_control_flow_context as has_current_control_flow_context
from returnn.tf.util.control_flow import same_control_flow_ctx as same_control_flow_ctx
from returnn.tf.util.custom_gradient import CustomGradient as CustomGradient
from returnn.tf.util.custom_gradient import custom_gradient as custom_gradient
from returnn.tf.util.custom_update import CustomUpdate as CustomUpdate
from returnn.tf.util.custom_update import CustomUpdateExpAverage as CustomUpdateExpAverage
from returnn.tf.util.debug_print import py_print as py_print
from returnn.tf.util.device import get_available_gpu_cuda_min_compute_capability as get_available_gpu_cuda_min_compute_capability
from returnn.tf.util.device import get_available_gpu_devices as get_available_gpu_devices
from returnn.tf.util.device import get_device_attr as get_device_attr
from returnn.tf.util.device import get_tf_list_local_devices as get_tf_list_local_devices
from returnn.tf.util.device import is_gpu_available as is_gpu_available
from returnn.tf.util.device import is_gpu_available_in_session as is_gpu_available_in_session
from returnn.tf.util.device import is_tf_cuda_build as is_tf_cuda_build
from returnn.tf.util.device import print_available_devices as print_available_devices
from returnn.tf.util.fetch_helper import FetchHelper as FetchHelper
from returnn.tf.util.grad_registry import lookup_grad_func_by_name as lookup_grad_func_by_name
from returnn.tf.util.grad_registry import opt_register_grad_func as opt_register_grad_func
from returnn.tf.util.gradient_scaling import flip_gradient as flip_gradient
from returnn.tf.util.gradient_scaling import scaled_gradient as scaled_gradient
from returnn.tf.util.gradients import add_scaled_noise_to_gradients as add_scaled_noise_to_gradients
from returnn.tf.util.graph_globals import global_tensor as global_tensor
from returnn.tf.util.graph_inspect import find_ops_path_output_to_input as find_ops_path_output_to_input
from returnn.tf.util.graph_inspect import find_ops_with_tensor_input as find_ops_with_tensor_input
from returnn.tf.util.graph_inspect import find_unsupported_devices_in_graph as find_unsupported_devices_in_graph
from returnn.tf.util.graph_inspect import format_graph_output as format_graph_output
from returnn.tf.util.graph_inspect import get_op_attrib_keys as get_op_attrib_keys
from returnn.tf.util.graph_inspect import get_op_input_names as get_op_input_names
from returnn.tf.util.graph_inspect import get_op_inputs_by_name as get_op_inputs_by_name
from returnn.tf.util.graph_inspect import kernels_registered_for_op as kernels_registered_for_op
from returnn.tf.util.graph_inspect import print_graph_output as print_graph_output
from returnn.tf.util.graph_inspect import supported_devices_for_op as supported_devices_for_op
from returnn.tf.util.image_warp import create_random_warp_flow_2d as create_random_warp_flow_2d
from returnn.tf.util.image_warp import dense_image_warp as dense_image_warp
from returnn.tf.util.image_warp import interpolate_bilinear as interpolate_bilinear
from returnn.tf.util.initializers import VarianceScalingNonZero as VarianceScalingNonZero
from returnn.tf.util.initializers import gaussian_kernel_2d as gaussian_kernel_2d
from returnn.tf.util.initializers import load_txt_file_initializer as load_txt_file_initializer
from returnn.tf.util.initializers import random_uniform_abs_initializer as random_uniform_abs_initializer
from returnn.tf.util.initializers import variance_scaling_non_zero_initializer as variance_scaling_non_zero_initializer
from returnn.tf.util.initializers import xavier_initializer as xavier_initializer
from returnn.tf.util.labels import ctc_greedy_decode as ctc_greedy_decode
from returnn.tf.util.labels import map_labels as map_labels
from returnn.tf.util.labels import remove_labels as remove_labels
from returnn.tf.util.labels import sparse_labels as sparse_labels
from returnn.tf.util.labels import sparse_labels_with_seq_lens as sparse_labels_with_seq_lens
from returnn.tf.util.linear_alignment import get_linear_alignment_out_to_in_indices as get_linear_alignment_out_to_in_indices
from returnn.tf.util.native_ops import OpCodeCompiler as OpCodeCompiler
from returnn.tf.util.native_ops import get_tf_gcc_path as get_tf_gcc_path
from returnn.tf.util.cuda_env import CudaEnv as CudaEnv
from returnn.tf.util.nn_functions import gelu as gelu
from returnn.tf.util.nn_functions import gelu2 as gelu2
from returnn.tf.util.nn_functions import gelu3 as gelu3
from returnn.tf.util.nn_functions import layer_norm as layer_norm
from returnn.tf.util.nn_functions import smoothing_cross_entropy as smoothing_cross_entropy
from returnn.tf.util.numeric_checks import add_check_numerics_ops as add_check_numerics_ops
from returnn.tf.util.numeric_checks import check_base_op_type_and_replace as check_base_op_type_and_replace
from returnn.tf.util.numeric_checks import identity_with_check_numerics as identity_with_check_numerics
from returnn.tf.util.numeric_checks import l1_normalized as l1_normalized
from returnn.tf.util.numeric_checks import lin_exp as lin_exp
from returnn.tf.util.numeric_checks import lin_exp_normed as lin_exp_normed
from returnn.tf.util.numeric_checks import nan_to_num as nan_to_num
from returnn.tf.util.numeric_checks import simplify_add as simplify_add
from returnn.tf.util.numeric_checks import simplify_neg as simplify_neg
from returnn.tf.util.numeric_checks import simplify_sub as simplify_sub
from returnn.tf.util.numeric_checks import wrap_distribution_non_zero as wrap_distribution_non_zero
from returnn.tf.ops.masks import sequence_mask as sequence_mask
from returnn.tf.ops.masks import sequence_mask_time_major as sequence_mask_time_major
from returnn.tf.ops.numerics import clip_by_value_with_identity_grad as clip_by_value_with_identity_grad
from returnn.tf.ops.numerics import compute_sampled_logits as compute_sampled_logits
from returnn.tf.ops.numerics import dot as dot
from returnn.tf.ops.numerics import maximum_with_identity_grad as maximum_with_identity_grad
from returnn.tf.ops.numerics import minimum_with_identity_grad as minimum_with_identity_grad
from returnn.tf.ops.numerics import safe_exp as safe_exp
from returnn.tf.ops.numerics import safe_log as safe_log
from returnn.tf.util.param_split import check_param_axes_split_info as check_param_axes_split_info
from returnn.tf.util.param_split import copy_with_new_split_axes as copy_with_new_split_axes
from returnn.tf.util.param_split import get_param_axes_split_info as get_param_axes_split_info
from returnn.tf.util.param_split import set_param_axes_split_info as set_param_axes_split_info
from returnn.tf.util.param_split import transform_param_axes_split_info_to_new_shape as transform_param_axes_split_info_to_new_shape
from returnn.tf.util.positional_encoding import get_positional_encoding as get_positional_encoding
from returnn.tf.util.rnnt import get_rnnt_linear_aligned_output as get_rnnt_linear_aligned_output
from returnn.tf.util.scopes import get_base_name as get_base_name
from returnn.tf.util.scopes import get_current_name_scope as get_current_name_scope
from returnn.tf.util.scopes import get_current_var_scope_name as get_current_var_scope_name
from returnn.tf.util.scopes import get_name_scope_of_tensor as get_name_scope_of_tensor
from returnn.tf.util.scopes import get_valid_scope_name_from_str as get_valid_scope_name_from_str
from returnn.tf.util.scopes import opt_reuse_name_scope as opt_reuse_name_scope
from returnn.tf.util.scopes import reuse_name_scope as reuse_name_scope
from returnn.tf.util.scopes import reuse_name_scope_of_tensor as reuse_name_scope_of_tensor
from returnn.tf.util.select import filter_ended_scores as filter_ended_scores
from returnn.tf.util.select import flatten_with_seq_len_mask as flatten_with_seq_len_mask
from returnn.tf.util.select import flatten_with_seq_len_mask_time_major as flatten_with_seq_len_mask_time_major
from returnn.tf.util.select import matrix_triangular as matrix_triangular
from returnn.tf.util.select import nd_indices as nd_indices
from returnn.tf.util.select import where_bc as where_bc
from returnn.tf.util.shape import check_dim_equal as check_dim_equal
from returnn.tf.util.shape import check_input_dim as check_input_dim
from returnn.tf.util.shape import check_input_ndim as check_input_ndim
from returnn.tf.util.shape import check_input_ndim_equal_offset as check_input_ndim_equal_offset
from returnn.tf.util.shape import check_shape_equal as check_shape_equal
from returnn.tf.util.shape import expand_dims_unbroadcast as expand_dims_unbroadcast
from returnn.tf.util.shape import expand_multiple_dims as expand_multiple_dims
from returnn.tf.util.shape import get_shape as get_shape
from returnn.tf.util.shape import get_shape_dim as get_shape_dim
from returnn.tf.util.shape import move_axis as move_axis
from returnn.tf.util.shape import swapaxes as swapaxes
from returnn.tf.util.shape import tile_transposed as tile_transposed
from returnn.tf.util.shape import to_int32_64 as to_int32_64
from returnn.tf.util.slicing import circular_pad as circular_pad
from returnn.tf.util.slicing import constant_with_shape as constant_with_shape
from returnn.tf.util.slicing import dimshuffle as dimshuffle
from returnn.tf.util.slicing import pad_zeros_in_axis as pad_zeros_in_axis
from returnn.tf.util.slicing import single_strided_slice as single_strided_slice
from returnn.tf.util.slicing import slice_nd as slice_nd
from returnn.tf.util.slicing import slice_pad_zeros as slice_pad_zeros
from returnn.tf.util.slicing import windowed_nd as windowed_nd
from returnn.tf.util.small_ops import batch_gather as batch_gather
from returnn.tf.util.small_ops import batched_uniq as batched_uniq
from returnn.tf.util.small_ops import get_ndim as get_ndim
from returnn.tf.util.small_ops import get_range as get_range
from returnn.tf.util.small_ops import identity as identity
from returnn.tf.util.small_ops import identity_op_nested as identity_op_nested
from returnn.tf.util.small_ops import identity_with_ops as identity_with_ops
from returnn.tf.util.small_ops import make_var_tuple as make_var_tuple
from returnn.tf.util.small_ops import onnx_compat_floor_div as onnx_compat_floor_div
from returnn.tf.util.small_ops import opt_logical_and as opt_logical_and
from returnn.tf.util.small_ops import opt_logical_or as opt_logical_or
from returnn.tf.util.small_ops import optional_add as optional_add
from returnn.tf.util.small_ops import optional_mul as optional_mul
from returnn.tf.util.small_ops import prod as prod
from returnn.tf.util.small_ops import reversed as reversed
from returnn.tf.util.small_ops import to_float32 as to_float32
from returnn.tf.util.small_ops import view_as as view_as
from returnn.tf.util.small_ops import zeros_dyn_shape as zeros_dyn_shape
from returnn.tf.util.strings import bpe_merge as bpe_merge
from returnn.tf.util.strings import encode_raw as encode_raw
from returnn.tf.util.strings import get_sparse_tensor_length as get_sparse_tensor_length
from returnn.tf.util.strings import string_merge as string_merge
from returnn.tf.util.strings import string_replace as string_replace
from returnn.tf.util.strings import string_words_calc_wer as string_words_calc_wer
from returnn.tf.util.strings import vocab_idx_to_vocab_string as vocab_idx_to_vocab_string
from returnn.tf.util.strings import words_split as words_split
from returnn.tf.util.summary_writer import stop_all_event_writer_threads as stop_all_event_writer_threads
from returnn.tf.util.summary_writer import stop_event_writer_thread as stop_event_writer_thread
from returnn.tf.util.tensor_array import tensor_array_element_shape as tensor_array_element_shape
from returnn.tf.util.tensor_array import tensor_array_is_clear_after_read as tensor_array_is_clear_after_read
from returnn.tf.util.tensor_array import tensor_array_is_dynamic_size as tensor_array_is_dynamic_size
from returnn.tf.util.tensor_array import tensor_array_like as tensor_array_like
from returnn.tf.util.tensor_array import tensor_array_stack as tensor_array_stack
from returnn.tf.util.train_flag import cond_on_train_flag as cond_on_train_flag
from returnn.tf.util.train_flag import dropout as dropout
from returnn.tf.util.train_flag import get_global_train_flag_placeholder as get_global_train_flag_placeholder
from returnn.tf.util.train_flag import get_train_flag as get_global_train_flag
from returnn.tf.util.var_updates import get_var_update_ops as get_var_update_ops
from returnn.tf.util.var_updates import get_variable_grad_from_update_ops as get_variable_grad_from_update_ops
from returnn.tf.util.var_updates import get_variable_value_copy_before_update_ops as get_variable_value_copy_before_update_ops
from returnn.tf.util.variables import VariableAssigner as VariableAssigner
from returnn.tf.util.variables import auto_init_var as auto_init_var
from returnn.tf.util.variables import enforce_copy as enforce_copy
from returnn.tf.util.variables import get_variable_from_tensor as get_variable_from_tensor
from returnn.tf.util.variables import init_variable_if_needed as init_variable_if_needed
from returnn.tf.util.variables import var_handle_or_ref as var_handle_or_ref
from returnn.tf.util.variables import variable_scalar_summaries_dict as variable_scalar_summaries_dict
from returnn.tf.util.variables import variable_summaries as variable_summaries
from returnn.tf.util.version import assert_min_tf_version as assert_min_tf_version
from returnn.tf.util.version import have_min_tf_version as have_min_tf_version
from returnn.tf.util.version import tf_version_tuple as tf_version_tuple
from returnn.tf.util.vocab import get_shared_vocab as get_shared_vocab

T = TypeVar("T")
