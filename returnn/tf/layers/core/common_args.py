"""The arguments every layer dict accepts (handled once, in :class:`LayerBase`), grouped by concern.

The keys and meanings follow the reference's ``LayerBase`` (see the docs' "Defining Layers"). A layer's own
arguments are the keyword parameters of its ``__init__`` and ``get_out_data_from_opts`` along the MRO.
"""

from __future__ import annotations

COMMON_LAYER_ARGS_GROUPS = {
    "wiring": ("from", "collocate_with", "is_output_layer", "register_as_extern_data"),
    "output": ("n_out", "out_dim", "out_type", "out_shape", "in_dim"),
    "loss": ("loss", "loss_scale", "loss_opts", "target", "size_target", "loss_only_on_non_search",
             "copy_output_loss_from_source_idx"),
    "params": ("reuse_params", "name_scope", "param_device", "trainable", "L2", "darc1", "spatial_smoothing",
               "param_variational_noise", "param_dropout", "param_dropout_min_ndim", "updater_opts",
               "custom_param_importer", "batch_norm"),
    "input": ("dropout", "dropout_noise_shape", "dropout_on_forward"),
    "rec": ("initial_output", "state", "need_last", "encapsulate"),
    "mode": ("only_on_eval", "only_on_search"),
    "debug": ("debug_print_layer_output", "control_dependencies_on_output"),
}

COMMON_LAYER_ARGS = frozenset(arg for group in COMMON_LAYER_ARGS_GROUPS.values() for arg in group)

# Keys the network sets internally; never part of a user's layer dict.
INTERNAL_LAYER_KWARGS = frozenset({"name", "network", "output", "sources", "_target_layers", "_network",
                                   "_name", "rec_previous_layer", "_src_common_search_choices"})

# Accepted for compatibility, without effect in this implementation (they only affect device placement,
# debugging output or parameter loading hooks): documented here so that this is never a silent surprise.
NO_EFFECT_ARGS = frozenset({"collocate_with", "param_device", "debug_print_layer_output", "updater_opts",
                            "custom_param_importer", "name_scope", "control_dependencies_on_output",
                            "copy_output_loss_from_source_idx", "size_target"})
