"""Tests for the reference's ``Data`` API on returnn.tensor.Tensor templates (no raw tensors): axis queries, shapes,
copies. Every expected value is the reference's own output (returnn 1.20261022, ``returnn.tf.util.data``) for the
same call on the same tensor."""

import copy
import pickle

import pytest

from returnn.errors import TensorArgError
from returnn.tensor import Data, Dim, FeatureDim, SpatialDim, batch_dim


def _tensors():
    return {
        "x": Data("x", dim=5),
        "xs": Data("xs", dim=5, sparse=True),
        "tm": Data("tm", dim=5, batch_dim_axis=1),
        "m": Data("m", shape=(None, 4, None, 6)),
        "nt": Data("nt", shape=(3,)),
        "sc": Data("sc", shape=()),
    }


# (tensor, expression on d (x is Data("x", dim=5)), repr of the reference's result)
REFERENCE_CASES = [
    ('x', 'batch_shape_dense', '(None, None, 5)'),
    ('x', 'batch_ndim_dense', '3'),
    ('x', 'shape_dense', '(None, 5)'),
    ('x', 'ndim_dense', '2'),
    ('x', 'get_dynamic_axes()', '[1]'),
    ('x', 'get_static_axes()', '[2]'),
    ('x', 'get_spatial_axes()', '[0]'),
    ('x', 'get_spatial_batch_axes()', '[1]'),
    ('x', 'get_feature_axes()', '[1]'),
    ('x', 'get_feature_batch_axes()', '[2]'),
    ('x', 'is_batch_major', 'True'),
    ('x', 'is_time_major', 'False'),
    ('x', 'is_batch_feature_major', 'False'),
    ('x', 'get_time_dim_tag()', "Dim{'time:var-unk:x'[B]}"),
    ('x', 'get_size_dim_tag(0)', "Dim{'time:var-unk:x'[B]}"),
    ('x', 'get_batch_dim_tag()', 'Dim{B}'),
    ('x', 'get_dim_tag(-1)', "Dim{F'feature:x'(5)}"),
    ('x', 'copy_as_time_major()', "Tensor{'x', [T|'time:var-unk:x'[B],B,F|F'feature:x'(5)]}"),
    ('x', 'copy_as_batch_feature_major()', "Tensor{'x', [B,F|F'feature:x'(5),T|'time:var-unk:x'[B]]}"),
    ('x', 'copy_as_time_batch_major()', "Tensor{'x', [T|'time:var-unk:x'[B],B,F|F'feature:x'(5)]}"),
    ('x', 'copy_as_batch_spatial_major()', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_as_bt_or_tb_major()', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_template_excluding_time_dim()', "Tensor{'x', [B,F|F'feature:x'(5)]}"),
    ('x', 'copy_template_excluding_spatial_dim(0)', "Tensor{'x', [B,F|F'feature:x'(5)]}"),
    ('x', 'copy_template_dense()', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_add_spatial_dim(0)', "Tensor{'x', ['added_spatial'(1),B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_add_spatial_dim()', "Tensor{'x', [B,T|'time:var-unk:x'[B],'added_spatial'(1),F|F'feature:x'(5)]}"),
    ('x', 'copy_add_feature_dim()', "Tensor{'x', [B,T|'time:var-unk:x'[B],F'feature:x'(5),F|F'feature1'(1)]}"),
    ('x', 'copy_add_feature_dim(1)', "Tensor{'x', [B,F|F'feature1'(1),T|'time:var-unk:x'[B],F'feature:x'(5)]}"),
    ('x', 'copy_swap_axes(0, 1)', "Tensor{'x', [T|'time:var-unk:x'[B],B,F|F'feature:x'(5)]}"),
    ('x', 'copy_move_axis(0, -1)', "Tensor{'x', [T|'time:var-unk:x'[B],F|F'feature:x'(5),B]}"),
    ('x', 'is_time_axis_dynamic()', 'True'),
    ('x', 'is_axis_dynamic(1)', 'True'),
    ('x', 'get_special_axes_dict()', "{'time_dim_axis': 1, 'feature_dim_axis': 2}"),
    ('x', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': 0, 'feature_dim_axis': 1}"),
    ('x', "get_axes_by_tag_name('time')", '[1]'),
    ('x', 'get_axes(exclude_time=True)', '[0, 2]'),
    ('x', 'get_axes(exclude_batch=True)', '[1, 2]'),
    ('x', 'get_axes(exclude_feature=True)', '[0, 1]'),
    ('x', 'time_dim_axis_excluding_batch', '0'),
    ('x', 'get_bc_spatial_batch_shape()', '(1, 1, 5)'),
    ('x', "get_bc_shape({'T': None})", '(1, None, 5)'),
    ('x', 'dim_tags_sparse', "(Dim{B}, Dim{'time:var-unk:x'[B]})"),
    ('x', 'get_batch_axes_short_description()', '[\'B\', "T|\'time:var-unk:x\'[B]", "F|F\'feature:x\'(5)"]'),
    ('x', 'copy_compatible_to(x)', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_split_feature_dim(5)',
     "Tensor{'x', [B,T|'time:var-unk:x'[B],'feature_split_rem_1'(1),F|F'feature_split_new_5'(5)]}"),
    ('x', 'get_batch_shape(2)', '(2, None, 5)'),
    ('x', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)",
     "Tensor{'x', [B,T|'time:var-unk:x'[B],'new'(3),F|F'feature:x'(5)]}"),
    ('x', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)",
     "Tensor{'x', [B,'new'(3),T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', "copy_add_dim_by_tag(SpatialDim('new', 3))",
     "Tensor{'x', [B,T|'time:var-unk:x'[B],'new_dummy_dim1'(1),F|F'feature:x'(5)]}"),
    ('x', "copy_add_dim_by_tag(FeatureDim('newf', 3), unbroadcast=True)",
     "Tensor{'x', [B,T|'time:var-unk:x'[B],F'feature:x'(5),F|F'newf'(3)]}"),
    ('x', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '2'),
    ('x', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '3'),
    ('x', 'copy_template_new_dim_tags(d.dims)', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ('x', 'copy_template_replace_dim(-1, 8)', "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x_replaced'(8)]}"),
    ('x', 'copy_with_time_dim_axis(-1)', "Tensor{'x', [B,F|F'feature:x'(5),T|'time:var-unk:x'[B]]}"),
    ('x', 'copy_with_feature_dim_axis(1)', "Tensor{'x', [B,F|F'feature:x'(5),T|'time:var-unk:x'[B]]}"),
    ('x', 'get_batch_axis_excluding_batch(0)', 'None'),
    ('xs', 'batch_shape_dense', '(None, None, 5)'),
    ('xs', 'batch_ndim_dense', '3'),
    ('xs', 'shape_dense', '(None, 5)'),
    ('xs', 'ndim_dense', '2'),
    ('xs', 'get_dynamic_axes()', '[1]'),
    ('xs', 'get_static_axes()', '[]'),
    ('xs', 'get_spatial_axes()', '[0]'),
    ('xs', 'get_spatial_batch_axes()', '[1]'),
    ('xs', 'get_feature_axes()', '[]'),
    ('xs', 'get_feature_batch_axes()', '[]'),
    ('xs', 'is_batch_major', 'True'),
    ('xs', 'is_time_major', 'False'),
    ('xs', 'is_batch_feature_major', 'False'),
    ('xs', 'get_time_dim_tag()', "Dim{'time:var-unk:xs'[B]}"),
    ('xs', 'get_size_dim_tag(0)', "Dim{'time:var-unk:xs'[B]}"),
    ('xs', 'get_batch_dim_tag()', 'Dim{B}'),
    ('xs', 'get_dim_tag(-1)', "Dim{'time:var-unk:xs'[B]}"),
    ('xs', 'copy_as_time_major()',
     "Tensor{'xs', [T|'time:var-unk:xs'[B],B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_as_time_batch_major()',
     "Tensor{'xs', [T|'time:var-unk:xs'[B],B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_as_batch_spatial_major()',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_as_bt_or_tb_major()',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_template_excluding_time_dim()',
     "Tensor{'xs', [B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_template_excluding_spatial_dim(0)',
     "Tensor{'xs', [B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_template_dense()', "Tensor{'xs', [B,T|'time:var-unk:xs'[B],F|F'xs:sparse-dim'(5)]}"),
    ('xs', 'copy_add_spatial_dim(0)',
     "Tensor{'xs', ['added_spatial'(1),B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:spars"
     "e-dim'(5)}}"),
    ('xs', 'copy_add_spatial_dim()',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B],'added_spatial'(1)], dtype='int32', sparse_dim=Dim{F'xs:spars"
     "e-dim'(5)}}"),
    ('xs', 'copy_add_feature_dim()',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B],'added_spatial'(1)], dtype='int32', sparse_dim=Dim{F'xs:spars"
     "e-dim'(5)}}"),
    ('xs', 'copy_add_feature_dim(1)',
     "Tensor{'xs', [B,'added_spatial'(1),T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:spars"
     "e-dim'(5)}}"),
    ('xs', 'copy_swap_axes(0, 1)',
     "Tensor{'xs', [T|'time:var-unk:xs'[B],B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_move_axis(0, -1)',
     "Tensor{'xs', [T|'time:var-unk:xs'[B],B], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'is_time_axis_dynamic()', 'True'),
    ('xs', 'is_axis_dynamic(1)', 'True'),
    ('xs', 'get_special_axes_dict()', "{'time_dim_axis': 1, 'feature_dim_axis': None}"),
    ('xs', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': 0, 'feature_dim_axis': None}"),
    ('xs', "get_axes_by_tag_name('time')", '[1]'),
    ('xs', 'get_axes(exclude_time=True)', '[0]'),
    ('xs', 'get_axes(exclude_batch=True)', '[1]'),
    ('xs', 'get_axes(exclude_feature=True)', '[0, 1]'),
    ('xs', 'time_dim_axis_excluding_batch', '0'),
    ('xs', 'get_bc_spatial_batch_shape()', '(1, 1)'),
    ('xs', "get_bc_shape({'T': None})", '(1, None)'),
    ('xs', 'dim_tags_sparse', "(Dim{B}, Dim{'time:var-unk:xs'[B]})"),
    ('xs', 'get_batch_axes_short_description()', '[\'B\', "T|\'time:var-unk:xs\'[B]"]'),
    ('xs', 'get_batch_shape(2)', '(2, None)'),
    ('xs', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)",
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B],'new'(3)], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}"
     '}'),
    ('xs', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)",
     "Tensor{'xs', [B,'new'(3),T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}"
     '}'),
    ('xs', "copy_add_dim_by_tag(SpatialDim('new', 3))",
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B],'new_dummy_dim1'(1)], dtype='int32', sparse_dim=Dim{F'xs:spar"
     "se-dim'(5)}}"),
    ('xs', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '2'),
    ('xs', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '2'),
    ('xs', 'copy_template_new_dim_tags(d.dims)',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'copy_with_time_dim_axis(-1)',
     "Tensor{'xs', [B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}"),
    ('xs', 'get_batch_axis_excluding_batch(0)', 'None'),
    ('tm', 'batch_shape_dense', '(None, None, 5)'),
    ('tm', 'batch_ndim_dense', '3'),
    ('tm', 'shape_dense', '(None, 5)'),
    ('tm', 'ndim_dense', '2'),
    ('tm', 'get_dynamic_axes()', '[0]'),
    ('tm', 'get_static_axes()', '[2]'),
    ('tm', 'get_spatial_axes()', '[0]'),
    ('tm', 'get_spatial_batch_axes()', '[0]'),
    ('tm', 'get_feature_axes()', '[1]'),
    ('tm', 'get_feature_batch_axes()', '[2]'),
    ('tm', 'is_batch_major', 'False'),
    ('tm', 'is_time_major', 'True'),
    ('tm', 'is_batch_feature_major', 'False'),
    ('tm', 'get_time_dim_tag()', "Dim{'time:var-unk:tm'[B]}"),
    ('tm', 'get_size_dim_tag(0)', "Dim{'time:var-unk:tm'[B]}"),
    ('tm', 'get_batch_dim_tag()', 'Dim{B}'),
    ('tm', 'get_dim_tag(-1)', "Dim{F'feature:tm'(5)}"),
    ('tm', 'copy_as_time_major()', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_as_batch_feature_major()', "Tensor{'tm', [B,F|F'feature:tm'(5),T|'time:var-unk:tm'[B]]}"),
    ('tm', 'copy_as_time_batch_major()', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_as_batch_spatial_major()', "Tensor{'tm', [B,T|'time:var-unk:tm'[B],F|F'feature:tm'(5)]}"),
    ('tm', 'copy_as_bt_or_tb_major()', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_template_excluding_time_dim()', "Tensor{'tm', [B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_template_excluding_spatial_dim(0)', "Tensor{'tm', [B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_template_dense()', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_add_spatial_dim(0)', "Tensor{'tm', ['added_spatial'(1),T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_add_spatial_dim()', "Tensor{'tm', [T|'time:var-unk:tm'[B],'added_spatial'(1),B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_add_feature_dim()', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F'feature:tm'(5),F|F'feature1'(1)]}"),
    ('tm', 'copy_add_feature_dim(1)', "Tensor{'tm', [T|'time:var-unk:tm'[B],F|F'feature1'(1),B,F'feature:tm'(5)]}"),
    ('tm', 'copy_swap_axes(0, 1)', "Tensor{'tm', [B,T|'time:var-unk:tm'[B],F|F'feature:tm'(5)]}"),
    ('tm', 'copy_move_axis(0, -1)', "Tensor{'tm', [B,F|F'feature:tm'(5),T|'time:var-unk:tm'[B]]}"),
    ('tm', 'is_time_axis_dynamic()', 'True'),
    ('tm', 'is_axis_dynamic(1)', 'False'),
    ('tm', 'get_special_axes_dict()', "{'time_dim_axis': 0, 'feature_dim_axis': 2}"),
    ('tm', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': 0, 'feature_dim_axis': 1}"),
    ('tm', "get_axes_by_tag_name('time')", '[0]'),
    ('tm', 'get_axes(exclude_time=True)', '[1, 2]'),
    ('tm', 'get_axes(exclude_batch=True)', '[0, 2]'),
    ('tm', 'get_axes(exclude_feature=True)', '[0, 1]'),
    ('tm', 'time_dim_axis_excluding_batch', '0'),
    ('tm', 'get_bc_spatial_batch_shape()', '(1, 1, 5)'),
    ('tm', "get_bc_shape({'T': None})", '(None, 1, 5)'),
    ('tm', 'dim_tags_sparse', "(Dim{'time:var-unk:tm'[B]}, Dim{B})"),
    ('tm', 'get_batch_axes_short_description()', '["T|\'time:var-unk:tm\'[B]", \'B\', "F|F\'feature:tm\'(5)"]'),
    ('tm', 'copy_compatible_to(x)', "Tensor{'tm', [B,T|'time:var-unk:tm'[B],F|F'feature:tm'(5)]}"),
    ('tm', 'copy_split_feature_dim(5)',
     "Tensor{'tm', [T|'time:var-unk:tm'[B],B,'feature_split_rem_1'(1),F|F'feature_split_new_5'(5)]}"),
    ('tm', 'get_batch_shape(2)', '(None, 2, 5)'),
    ('tm', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)",
     "Tensor{'tm', [T|'time:var-unk:tm'[B],'new'(3),B,F|F'feature:tm'(5)]}"),
    ('tm', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)",
     "Tensor{'tm', [T|'time:var-unk:tm'[B],'new'(3),B,F|F'feature:tm'(5)]}"),
    ('tm', "copy_add_dim_by_tag(SpatialDim('new', 3))",
     "Tensor{'tm', [T|'time:var-unk:tm'[B],'new_dummy_dim1'(1),B,F|F'feature:tm'(5)]}"),
    ('tm', "copy_add_dim_by_tag(FeatureDim('newf', 3), unbroadcast=True)",
     "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F'feature:tm'(5),F|F'newf'(3)]}"),
    ('tm', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '1'),
    ('tm', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '3'),
    ('tm', 'copy_template_new_dim_tags(d.dims)', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ('tm', 'copy_template_replace_dim(-1, 8)', "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm_replaced'(8)]}"),
    ('tm', 'copy_with_time_dim_axis(-1)', "Tensor{'tm', [B,F|F'feature:tm'(5),T|'time:var-unk:tm'[B]]}"),
    ('tm', 'copy_with_feature_dim_axis(1)', "Tensor{'tm', [T|'time:var-unk:tm'[B],F|F'feature:tm'(5),B]}"),
    ('tm', 'get_batch_axis_excluding_batch(0)', '0'),
    ('m', 'batch_shape_dense', '(None, None, 4, None, 6)'),
    ('m', 'batch_ndim_dense', '5'),
    ('m', 'shape_dense', '(None, 4, None, 6)'),
    ('m', 'ndim_dense', '4'),
    ('m', 'get_dynamic_axes()', '[1, 3]'),
    ('m', 'get_static_axes()', '[2, 4]'),
    ('m', 'get_spatial_axes()', '[0, 1, 2]'),
    ('m', 'get_spatial_batch_axes()', '[1, 2, 3]'),
    ('m', 'get_feature_axes()', '[3]'),
    ('m', 'get_feature_batch_axes()', '[4]'),
    ('m', 'is_batch_major', 'True'),
    ('m', 'is_time_major', 'False'),
    ('m', 'is_batch_feature_major', 'False'),
    ('m', 'get_time_dim_tag()', "Dim{'time:var-unk:m'[B]}"),
    ('m', 'get_size_dim_tag(0)', "Dim{'time:var-unk:m'[B]}"),
    ('m', 'get_batch_dim_tag()', 'Dim{B}'),
    ('m', 'get_dim_tag(-1)', "Dim{F'feature:m'(6)}"),
    ('m', 'copy_as_time_major()',
     "Tensor{'m', [T|'time:var-unk:m'[B],B,'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_as_batch_feature_major()',
     "Tensor{'m', [B,F|F'feature:m'(6),T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'["
     'B]]}'),
    ('m', 'copy_as_time_batch_major()',
     "Tensor{'m', [T|'time:var-unk:m'[B],B,'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_as_batch_spatial_major()',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_as_bt_or_tb_major()',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_template_excluding_time_dim()',
     "Tensor{'m', [B,'spatial1:static4:m'(4),T|'spatial2:var-unk:m'[B],F|F'feature:m'(6)]}"),
    ('m', 'copy_template_excluding_spatial_dim(0)',
     "Tensor{'m', [B,'spatial1:static4:m'(4),T|'spatial2:var-unk:m'[B],F|F'feature:m'(6)]}"),
    ('m', 'copy_template_dense()',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_add_spatial_dim(0)',
     "Tensor{'m', ['added_spatial'(1),B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'"
     "[B],F|F'feature:m'(6)]}"),
    ('m', 'copy_add_spatial_dim()',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],'added_spatial'"
     "(1),F|F'feature:m'(6)]}"),
    ('m', 'copy_add_feature_dim()',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F'feature:m'(6)"
     ",F|F'feature1'(1)]}"),
    ('m', 'copy_add_feature_dim(1)',
     "Tensor{'m', [B,F|F'feature1'(1),T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B"
     "],F'feature:m'(6)]}"),
    ('m', 'copy_swap_axes(0, 1)',
     "Tensor{'m', [T|'time:var-unk:m'[B],B,'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_move_axis(0, -1)',
     "Tensor{'m', [T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'(6)"
     ',B]}'),
    ('m', 'is_time_axis_dynamic()', 'True'),
    ('m', 'is_axis_dynamic(1)', 'True'),
    ('m', 'get_special_axes_dict()', "{'time_dim_axis': 1, 'feature_dim_axis': 4}"),
    ('m', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': 0, 'feature_dim_axis': 3}"),
    ('m', "get_axes_by_tag_name('time')", '[1]'),
    ('m', 'get_axes(exclude_time=True)', '[0, 2, 3, 4]'),
    ('m', 'get_axes(exclude_batch=True)', '[1, 2, 3, 4]'),
    ('m', 'get_axes(exclude_feature=True)', '[0, 1, 2, 3]'),
    ('m', 'time_dim_axis_excluding_batch', '0'),
    ('m', 'get_bc_spatial_batch_shape()', '(1, 1, 1, 1, 6)'),
    ('m', "get_bc_shape({'T': None})", '(1, None, 1, 1, 6)'),
    ('m', 'dim_tags_sparse',
     "(Dim{B}, Dim{'time:var-unk:m'[B]}, Dim{'spatial1:static4:m'(4)}, Dim{'spatial2:var-unk:m'[B]})"),
    ('m', 'get_batch_axes_short_description()',
     '[\'B\', "T|\'time:var-unk:m\'[B]", "\'spatial1:static4:m\'(4)", "\'spatial2:var-unk:m\'[B]", "F|F\'feature:m\''
     '(6)"]'),
    ('m', 'get_batch_shape(2)', '(2, None, 4, None, 6)'),
    ('m', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)",
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],'new'(3),F|F'fe"
     "ature:m'(6)]}"),
    ('m', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)",
     "Tensor{'m', [B,'new'(3),T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'fe"
     "ature:m'(6)]}"),
    ('m', "copy_add_dim_by_tag(SpatialDim('new', 3))",
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],'new_dummy_dim1"
     "'(1),F|F'feature:m'(6)]}"),
    ('m', "copy_add_dim_by_tag(FeatureDim('newf', 3), unbroadcast=True)",
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F'feature:m'(6)"
     ",F|F'newf'(3)]}"),
    ('m', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '4'),
    ('m', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '5'),
    ('m', 'copy_template_new_dim_tags(d.dims)',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'("
     '6)]}'),
    ('m', 'copy_template_replace_dim(-1, 8)',
     "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m_r"
     "eplaced'(8)]}"),
    ('m', 'copy_with_time_dim_axis(-1)',
     "Tensor{'m', [B,'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'(6),T|'time:var-unk:m'["
     'B]]}'),
    ('m', 'copy_with_feature_dim_axis(1)',
     "Tensor{'m', [B,F|F'feature:m'(6),T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'["
     'B]]}'),
    ('m', 'get_batch_axis_excluding_batch(0)', 'None'),
    ('nt', 'batch_shape_dense', '(None, 3)'),
    ('nt', 'batch_ndim_dense', '2'),
    ('nt', 'shape_dense', '(3,)'),
    ('nt', 'ndim_dense', '1'),
    ('nt', 'get_dynamic_axes()', '[]'),
    ('nt', 'get_static_axes()', '[1]'),
    ('nt', 'get_spatial_axes()', '[]'),
    ('nt', 'get_spatial_batch_axes()', '[]'),
    ('nt', 'get_feature_axes()', '[0]'),
    ('nt', 'get_feature_batch_axes()', '[1]'),
    ('nt', 'is_batch_major', 'True'),
    ('nt', 'is_time_major', 'False'),
    ('nt', 'is_batch_feature_major', 'True'),
    ('nt', 'get_batch_dim_tag()', 'Dim{B}'),
    ('nt', 'get_dim_tag(-1)', "Dim{F'feature:nt'(3)}"),
    ('nt', 'copy_as_batch_feature_major()', "Tensor{'nt', [B,F|F'feature:nt'(3)]}"),
    ('nt', 'copy_as_batch_spatial_major()', "Tensor{'nt', [B,F|F'feature:nt'(3)]}"),
    ('nt', 'copy_template_dense()', "Tensor{'nt', [B,F|F'feature:nt'(3)]}"),
    ('nt', 'copy_add_spatial_dim(0)', "Tensor{'nt', [T|'added_spatial'(1),B,F|F'feature:nt'(3)]}"),
    ('nt', 'copy_add_spatial_dim()', "Tensor{'nt', [B,T|'added_spatial'(1),F|F'feature:nt'(3)]}"),
    ('nt', 'copy_add_feature_dim()', "Tensor{'nt', [B,F'feature:nt'(3),F|F'feature1'(1)]}"),
    ('nt', 'copy_add_feature_dim(1)', "Tensor{'nt', [B,F|F'feature1'(1),F'feature:nt'(3)]}"),
    ('nt', 'copy_swap_axes(0, 1)', "Tensor{'nt', [F|F'feature:nt'(3),B]}"),
    ('nt', 'copy_move_axis(0, -1)', "Tensor{'nt', [F|F'feature:nt'(3),B]}"),
    ('nt', 'is_axis_dynamic(1)', 'False'),
    ('nt', 'get_special_axes_dict()', "{'time_dim_axis': None, 'feature_dim_axis': 1}"),
    ('nt', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': None, 'feature_dim_axis': 0}"),
    ('nt', "get_axes_by_tag_name('time')", '[]'),
    ('nt', 'get_axes(exclude_time=True)', '[0, 1]'),
    ('nt', 'get_axes(exclude_batch=True)', '[1]'),
    ('nt', 'get_axes(exclude_feature=True)', '[0]'),
    ('nt', 'time_dim_axis_excluding_batch', 'None'),
    ('nt', 'get_bc_spatial_batch_shape()', '(1, 3)'),
    ('nt', 'dim_tags_sparse', '(Dim{B},)'),
    ('nt', 'get_batch_axes_short_description()', '[\'B\', "F|F\'feature:nt\'(3)"]'),
    ('nt', 'copy_compatible_to(x)', "Tensor{'nt', [B,T|'time:var-unk:x_dummy_dim1'(1),F|F'feature:nt'(3)]}"),
    ('nt', 'get_batch_shape(2)', '(2, 3)'),
    ('nt', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)",
     "Tensor{'nt', [B,'new'(3),F|F'feature:nt'(3)]}"),
    ('nt', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)",
     "Tensor{'nt', [B,'new'(3),F|F'feature:nt'(3)]}"),
    ('nt', "copy_add_dim_by_tag(SpatialDim('new', 3))", "Tensor{'nt', [B,'new_dummy_dim1'(1),F|F'feature:nt'(3)]}"),
    ('nt', "copy_add_dim_by_tag(FeatureDim('newf', 3), unbroadcast=True)",
     "Tensor{'nt', [B,F'feature:nt'(3),F|F'newf'(3)]}"),
    ('nt', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '1'),
    ('nt', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '2'),
    ('nt', 'copy_template_new_dim_tags(d.dims)', "Tensor{'nt', [B,F|F'feature:nt'(3)]}"),
    ('nt', 'copy_template_replace_dim(-1, 8)', "Tensor{'nt', [B,F|F'feature:nt_replaced'(8)]}"),
    ('nt', 'copy_with_feature_dim_axis(1)', "Tensor{'nt', [B,F|F'feature:nt'(3)]}"),
    ('nt', 'get_batch_axis_excluding_batch(0)', 'None'),
    ('sc', 'batch_shape_dense', '(None,)'),
    ('sc', 'batch_ndim_dense', '1'),
    ('sc', 'shape_dense', '()'),
    ('sc', 'ndim_dense', '0'),
    ('sc', 'get_dynamic_axes()', '[]'),
    ('sc', 'get_static_axes()', '[]'),
    ('sc', 'get_spatial_axes()', '[]'),
    ('sc', 'get_spatial_batch_axes()', '[]'),
    ('sc', 'get_feature_axes()', '[]'),
    ('sc', 'get_feature_batch_axes()', '[]'),
    ('sc', 'is_batch_major', 'True'),
    ('sc', 'is_time_major', 'False'),
    ('sc', 'is_batch_feature_major', 'False'),
    ('sc', 'get_batch_dim_tag()', 'Dim{B}'),
    ('sc', 'get_dim_tag(-1)', 'Dim{B}'),
    ('sc', 'copy_as_batch_spatial_major()', "Tensor{'sc', [B]}"),
    ('sc', 'copy_template_dense()', "Tensor{'sc', [B]}"),
    ('sc', 'copy_add_spatial_dim(0)', "Tensor{'sc', [T|'added_spatial'(1),B]}"),
    ('sc', 'copy_add_spatial_dim()', "Tensor{'sc', [B,T|'added_spatial'(1)]}"),
    ('sc', 'copy_add_feature_dim()', "Tensor{'sc', [B,F|F'feature1'(1)]}"),
    ('sc', 'copy_add_feature_dim(1)', "Tensor{'sc', [B,F|F'feature1'(1)]}"),
    ('sc', 'copy_move_axis(0, -1)', "Tensor{'sc', [B]}"),
    ('sc', 'get_special_axes_dict()', "{'time_dim_axis': None, 'feature_dim_axis': None}"),
    ('sc', 'get_special_axes_dict(counted_with_batch_dim=False)', "{'time_dim_axis': None, 'feature_dim_axis': None}"),
    ('sc', "get_axes_by_tag_name('time')", '[]'),
    ('sc', 'get_axes(exclude_time=True)', '[0]'),
    ('sc', 'get_axes(exclude_batch=True)', '[]'),
    ('sc', 'get_axes(exclude_feature=True)', '[0]'),
    ('sc', 'time_dim_axis_excluding_batch', 'None'),
    ('sc', 'get_bc_spatial_batch_shape()', '(1,)'),
    ('sc', 'dim_tags_sparse', '(Dim{B},)'),
    ('sc', 'get_batch_axes_short_description()', "['B']"),
    ('sc', 'copy_compatible_to(x)', "Tensor{'sc', [B,T|'time:var-unk:x_dummy_dim1'(1),F|F'feature:x_dummy_dim1'(1)]}"),
    ('sc', 'get_batch_shape(2)', '(2,)'),
    ('sc', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True)", "Tensor{'sc', [B,F|'new'(3)]}"),
    ('sc', "copy_add_dim_by_tag(SpatialDim('new', 3), unbroadcast=True, axis=1)", "Tensor{'sc', [B,F|'new'(3)]}"),
    ('sc', "copy_add_dim_by_tag(SpatialDim('new', 3))", "Tensor{'sc', [B,F|'new_dummy_dim1'(1)]}"),
    ('sc', "copy_add_dim_by_tag(FeatureDim('newf', 3), unbroadcast=True)", "Tensor{'sc', [B,F|F'newf'(3)]}"),
    ('sc', "get_default_new_axis_for_dim_tag(SpatialDim('new', 3))", '1'),
    ('sc', "get_default_new_axis_for_dim_tag(FeatureDim('new', 3))", '1'),
    ('sc', 'copy_template_new_dim_tags(d.dims)', "Tensor{'sc', [B]}"),
    ('sc', 'get_batch_axis_excluding_batch(0)', 'None'),
]


@pytest.mark.parametrize("name, expr, expected", REFERENCE_CASES)
def test_data_api_like_reference(name, expr, expected):
    tensors = _tensors()
    namespace = {"d": tensors[name], "x": tensors["x"], "SpatialDim": SpatialDim, "FeatureDim": FeatureDim}
    assert repr(eval("d." + expr, namespace)) == expected  # noqa: S307 (fixed test expressions)


def test_reprs_like_reference():
    assert [repr(t) for t in _tensors().values()] == [
        "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}",
        "Tensor{'xs', [B,T|'time:var-unk:xs'[B]], dtype='int32', sparse_dim=Dim{F'xs:sparse-dim'(5)}}",
        "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}",
        "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F|F'feature:m'(6)]}",
        "Tensor{'nt', [B,F|F'feature:nt'(3)]}",
        "Tensor{'sc', [B]}",
    ]


def test_is_batch_major_is_a_property_like_reference():
    # configs write `if data.is_batch_major:`; a method would always be true
    tm = Data("tm", dim=5, batch_dim_axis=1)
    assert tm.is_batch_major is False and tm.is_time_major is True
    assert Data("x", dim=5).is_batch_major is True


@pytest.mark.parametrize("make, batch_shape, time_axis, feature_axis, dim", [
    (lambda: Data("a", shape=(None, 3), dim=4), (None, None, 3), 1, 2, 3),  # dim is not checked against shape
    (lambda: Data("a", shape=(None,), dim=3), (None, None), 1, None, None),
    (lambda: Data("a", shape=(None, 3), time_dim_axis=2), (None, None, 3), 2, 1, None),
    (lambda: Data("a", shape=(None, 3), batch_dim_axis=2), (None, 3, None), 0, 1, 3),
    (lambda: Data("a", shape=(None, 3), batch_dim_axis=None), (None, 3), 0, 1, 3),
    (lambda: Data("a", shape=(2, None)), (None, 2, None), 2, 1, 2),
    (lambda: Data("a", dim=3, time_dim_axis=0, batch_dim_axis=1), (None, None, 3), 0, 2, 3),
])
def test_constructor_forms_like_reference(make, batch_shape, time_axis, feature_axis, dim):
    data = make()
    assert (data.batch_shape, data.time_dim_axis, data.feature_dim_axis, data.dim) == (batch_shape, time_axis,
                                                                                    feature_axis, dim)


def test_constructor_rejects_like_reference():
    with pytest.raises(TensorArgError, match="must be different from batch_dim_axis"):
        Data("a", shape=(), time_dim_axis=0)
    with pytest.raises(TensorArgError, match="shape does not match dims"):
        Data("a", shape=(None, 3), dims=[batch_dim, SpatialDim("t"), FeatureDim("f", 4)])
    with pytest.raises(TypeError):
        Data("a", shape=(None, 3), foo=1)
    with pytest.raises(TensorArgError, match="already has a batch axis"):
        Data("x", dim=5).copy_add_batch_dim(0)


def test_util_not_specified_means_not_given():
    from returnn.util.basic import NotSpecified
    data = Data("a", dim=3, feature_dim_axis=NotSpecified, time_dim_axis=NotSpecified)
    assert (data.time_dim_axis, data.feature_dim_axis) == (1, 2)
    assert repr(data.time_dim_axis_or_unspecified) == "NotSpecified"
    assert Data("a", dim=3, time_dim_axis=1).time_dim_axis_or_unspecified == 1


class _Raw:
    """A stand-in raw tensor (any object that takes attributes) with a TF-like name."""

    def __init__(self, name):
        self.name = name


def test_size_placeholder_shares_the_dim_of_the_lengths_like_reference():
    lens = _Raw("x_len:0")
    x = Data("x", dim=3, size_placeholder={0: lens})
    assert repr(x) == "Tensor{'x', [B,T|\"time:var:'x_len:0':x\"[B],F|F'feature:x'(3)]}"
    assert Dim.get_tag_from_size_tensor(lens) is x.dims[1] and x.size_placeholder == {0: lens}
    # an out_type function: Data(..., size_placeholder={0: enc.get_sequence_lengths()}) has enc's time dim
    y = Data("targetb_linear", sparse=True, dim=5, size_placeholder={0: x.get_sequence_lengths()})
    assert y.dims[1] is x.dims[1] and repr(y) == (
        "Tensor{'targetb_linear', [B,T|\"time:var:'x_len:0':x\"[B]], dtype='int32', "
        "sparse_dim=Dim{F'targetb_linear:sparse-dim'(5)}}")
    other = Data("z", dim=5, sparse=True, size_placeholder={0: _Raw("add:0")})
    assert other.dims[1] != x.dims[1] and other.dims[1].description == "time:var:'add:0':z"
    # the setter: lengths naming a dim make the axis that dim; new lengths keep the dim's name
    y2 = Data("y", dim=3)
    y2.size_placeholder = {0: lens}
    assert y2.dims[1] is x.dims[1] and y2.get_sequence_lengths() is lens
    y3 = Data("y3", dim=3)
    y3.size_placeholder = {0: _Raw("mul_1:0")}
    assert repr(y3.dims[1]) == "Dim{'time:var-unk:y3'[B]}" and y3.dims[1].dyn_size.name == "mul_1:0"


def test_get_dynamic_size_counts_the_batch_axis_like_reference():
    lens = _Raw("l")
    x = Data("x", dim=3, size_placeholder={0: lens})
    assert x.get_dynamic_axes() == [1] and x.get_dynamic_size(1) is lens  # tacotron configs: axes()[0] -> size
    with pytest.raises(TensorArgError, match="axis 0 has no dyn size"):
        x.get_dynamic_size(0)
    assert x.get_size_dim_tag(0) is x.dims[1] and x.get_time_dim_tag() is x.dims[1]
    assert x.get_dyn_size_tags() == [x.dims[1]]


def test_pickle_and_copy_drop_the_raw_tensor_like_reference():
    x = Data("x", dim=3, placeholder=_Raw("x_ph:0"), size_placeholder={0: _Raw("x_len:0")})
    for other in (copy.copy(x), copy.deepcopy(x)):
        assert other.placeholder is None and other.dims[1] is x.dims[1]
    p = pickle.loads(pickle.dumps(x))
    assert p.placeholder is None and repr(p) == repr(x) and p.dims[1].dyn_size is None
    assert x.copy().placeholder is x.placeholder and x.copy_template().placeholder is None


def test_template_from_constant_like_reference():
    assert repr(Data.template_from_constant(1.0, name="c")) == "Tensor{'c', []}"
    assert Data.template_from_constant(1, name="c").dtype == "int32"
    with pytest.raises(TensorArgError, match="cannot handle value"):
        Data.template_from_constant([[1, 2], [3, 4]], name="c")


def test_copy_compatible_to_adds_broadcast_dims_like_reference():
    x, nt = Data("x", dim=5), Data("nt", shape=(3,))
    assert repr(nt.copy_compatible_to(x)) == "Tensor{'nt', [B,T|'time:var-unk:x_dummy_dim1'(1),F|F'feature:nt'(3)]}"
    sc = Data("sc", shape=())
    assert repr(sc.copy_compatible_to(x)) == (
        "Tensor{'sc', [B,T|'time:var-unk:x_dummy_dim1'(1),F|F'feature:x_dummy_dim1'(1)]}")
    with pytest.raises(TensorArgError, match="more axes"):
        x.copy_compatible_to(nt)
    with pytest.raises(TensorArgError, match="sparse differs"):
        Data("xs", dim=5, sparse=True).copy_compatible_to(x)


@pytest.mark.parametrize("desc, message", [
    ("static:0", "Do not specify axis or axes in a way that depends on the order of the axes."),
    ("dyn:0", "Do not specify axis or axes in a way that depends on the order of the axes."),
    ("S:1", "Do not specify axis or axes in a way that depends on the order of the axes."),
    ("spatial:-1", "Do not specify axis or axes in a way that depends on the order of the axes."),
    (-1, "Do not specify axis as int but as str or Dim instead."),
    (["T", 2], "Do not specify axis as int but as str or Dim instead."),
    ("stag:time", None), ("T", None), ("dim:4", None),
])
def test_order_dependent_axes_are_deprecated_like_reference(capsys, desc, message):
    from returnn.log import log
    log.initialize(verbosity=[2])
    log._printed_warning_history.clear()  # noqa: SLF001 (printed once per process)
    data = Data("x", shape=(None, 4, None, 5))
    data.get_axes_from_description(desc)
    data.get_axes_from_description(desc)
    data.get_axis_from_description(2, allow_int=True)  # explicitly allowed: no warning
    out = capsys.readouterr().out
    if message is None:
        assert out == ""
    else:
        version = 5 if "int" in message else 7
        assert out == f"DEPRECATION WARNING: {message}\nThis will be disallowed with behavior_version {version}.\n"


def test_order_dependent_axes_rejected_with_new_behavior_version():
    from returnn.util.behavior_version import BehaviorVersion
    state = BehaviorVersion._get_state()  # noqa: SLF001
    BehaviorVersion._reset((7, 0))  # noqa: SLF001
    try:
        with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="order of the axes"):
            Data("x", shape=(None, 4)).get_axes_from_description("static:0")
        with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="as int"):
            Data("x", shape=(None, 4)).get_axes_from_description(1)
    finally:
        BehaviorVersion._reset(state)  # noqa: SLF001


@pytest.mark.parametrize("name, expected", [
    ("x", "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
    ("tm", "Tensor{'tm', [T|'time:var-unk:tm'[B],B,F|F'feature:tm'(5)]}"),
    ("m", "Tensor{'m', [B,T|'time:var-unk:m'[B],'spatial1:static4:m'(4),'spatial2:var-unk:m'[B],F'feature:m'(6),"
          "F|F'feature:x'(5)]}"),
    ("nt", "Tensor{'x', [B,T|'time:var-unk:x'[B],F'feature:x'(5),F|F'feature:nt'(3)]}"),
    ("sc", "Tensor{'x', [B,T|'time:var-unk:x'[B],F|F'feature:x'(5)]}"),
])
def test_get_common_data_like_reference(name, expected):
    tensors = _tensors()
    assert repr(Data.get_common_data([tensors[name], tensors["x"]])) == expected
    assert Data.get_common_data([]) is None


@pytest.mark.parametrize("description, axes", [("bt", [1, 0]), ("tb", [0, 1]), ("BT", [1, 0]), ("bT", [1, 0]),
                                               ("bf", [1, 2]), ("ft", [2, 0]), ("btf", [1, 0, 2])])
def test_compound_b_t_f_axis_descriptions_like_reference(description, axes):
    # observed from the reference on a time-major [T, B, F] tensor (e.g. a reduce layer's "axes": "bt")
    time = SpatialDim("time")
    x = Data("x", dim_tags=[time, batch_dim, FeatureDim("feat", 7)], time_dim_axis=0, feature_dim_axis=2)
    assert x.get_axes_from_description(description) == axes


def test_feature_dim_setter_as_observed():
    """Observed in the reference: ``x.feature_dim = dim`` moves the feature axis to that dim, None removes it; a
    sparse tensor has none to set; a dim that is not one of the dims is an error."""
    from returnn.errors import TensorArgError
    from returnn.tensor import Dim, Tensor, batch_dim
    a, b = Dim(3, name="a"), Dim(4, name="b")
    x = Tensor("x", [batch_dim, a, b], "float32")
    x.feature_dim = a
    assert (x.feature_dim, x.feature_dim_axis) == (a, 1)
    x.feature_dim = None
    assert (x.feature_dim, x.feature_dim_axis) == (None, None)
    with pytest.raises(TensorArgError, match="one of the dims"):
        x.feature_dim = Dim(5, name="c")
    y = Tensor("y", [batch_dim, a], "int32", sparse_dim=b)
    with pytest.raises(TensorArgError, match="sparse"):
        y.feature_dim = a
