"""Side-by-side cases: shape, indexing, conv, variable and signal-processing layers (issue 17, part 1)."""

_DATA = {"data": {"dim": 6}, "classes": {"dim": 4, "sparse": True}}
_IMG = {"data": {"shape": (None, 5, 2)}}

CASES = [
    {"name": "reduce_out_max", "extern_data": _DATA,
     "network": {"lin": {"class": "linear", "activation": None, "n_out": 6, "from": "data"},
                 "output": {"class": "reduce_out", "mode": "max", "num_pieces": 2, "from": "lin"}}},
    {"name": "reduce_out_sum", "extern_data": _DATA,
     "network": {"output": {"class": "reduce_out", "mode": "sum", "num_pieces": 3, "from": "data"}}},
    {"name": "transposed_conv_same_s3", "extern_data": _DATA,
     "network": {"output": {"class": "transposed_conv", "filter_size": [3], "strides": [3], "n_out": 4,
                            "activation": "relu", "from": "data"}}},
    {"name": "transposed_conv_valid_remove_padding", "extern_data": _DATA,
     "network": {"output": {"class": "transposed_conv", "filter_size": [3], "strides": [2], "n_out": 4,
                            "padding": "valid", "remove_padding": 1, "with_bias": False, "from": "data"}}},
    {"name": "transposed_conv_output_padding", "extern_data": _DATA,
     "network": {"output": {"class": "transposed_conv", "filter_size": [4], "strides": [2], "n_out": 4,
                            "output_padding": 1, "from": "data"}}},
    {"name": "transposed_conv_2d", "extern_data": _IMG,
     "network": {"output": {"class": "transposed_conv", "filter_size": [3, 2], "strides": [2, 2], "n_out": 4,
                            "from": "data"}}},
    {"name": "transposed_conv_in_spatial_dims", "extern_data": _IMG,
     "network": {"output": {"class": "transposed_conv", "filter_size": [3], "strides": [2], "n_out": 4,
                            "in_spatial_dims": ["T"], "use_time_mask": True, "from": "data"}}},
    {"name": "variable_add_to_input", "extern_data": _DATA,
     "network": {"var": {"class": "variable", "shape": [6], "init": "random_normal_initializer(mean=1.0, stddev=0.5)"},
                 "output": {"class": "combine", "kind": "mul", "from": ["data", "var"]}}},
    {"name": "variable_batch_time_axes", "extern_data": _DATA,
     "network": {"output": {"class": "variable", "shape": [2, 3], "add_batch_axis": True, "add_time_axis": True,
                            "init": "glorot_uniform"}}},
]
