"""Every config key this project knows: the declared options groups, the keys other parts read, and keys of the
reference that are accepted here without effect. The start-up warning about misspelled keys
(:mod:`returnn.options.unknown_keys`) compares a config's names with this set.

``tests/options/test_known_keys.py`` scans the code (:mod:`returnn.options.key_scan`) and fails when a key that is
read somewhere is neither in an options group nor in :data:`OTHER_KEYS`, so the set stays complete as code is added.
"""

from __future__ import annotations

from typing import Dict, FrozenSet

#: keys read by parts without an options group: key -> (module that reads it, meaning)
OTHER_KEYS: Dict[str, str] = {}



def _accepted(why: str, keys: str) -> Dict[str, str]:
    return {key: why for key in keys.split()}


#: keys the reference reads (observed: the keys its Config is asked for in train/eval/forward/search/compute_priors
#: runs) that are accepted here without effect: key -> why
ACCEPTED_WITHOUT_EFFECT: Dict[str, str] = {
    **_accepted("a debugging switch of the reference's engine or network",
                "debug_add_check_numerics_on_output "
                "debug_objective_loss_summaries debug_print_layer_output debug_print_layer_output_shape "
                "debug_runtime_sanity_checks debug_save_updater_vars debug_shell_in_runner debug_shell_in_runner_step "
                "debug_unnormalized_loss_summaries ipython log_grad_norm store_metadata_mod_step store_tf_profile "
                "tf_log_memory_usage watch_memory"),
    **_accepted("a setting of the reference's session, updater or training loop not provided here",
                "tf_run_options optimizer_use_locking gradient_clip_avg_norm "
                "gradient_clip_global_norm_tag global_norm_tag grad_norm_to_clip_to_zero maximize_grad_norm "
                "deterministic_train eval_use_train_flag train_in_eval reinit_network_each_epoch "
                "init_train_epoch_posthook startup_callback extra_updates update_batch_size start_batch "
                "exclude calculate_exp_loss ctc_prior_file "
                "pretrain_learning_rate learning_rate_decay learning_rate_growth sparse_input"),
    **_accepted("a data-pipeline setting of the reference not provided here",
                "chunking_variance context_window enforce_min_len1 inc_seq_length min_seq_length "
                "on_size_limit seq_drop_freq share_batches shuffle_frames_of_nseqs use_dummy_datasets "
                "file_cache_opts combine_labels"),
    **_accepted("a process or backend setting of the reference (PyTorch, subprocesses) not used here",
                "EnableAutoNumpySharedMemPickling PYTORCH_CUDA_ALLOC_CONF torch_distributed torch_profile "
                "use_train_proc_manager patch_atfork propagate_behavior_version_to_subprocs "
                "check_unsupported_device"),
}


def declared_keys() -> FrozenSet[str]:
    """The keys of every options group (:data:`returnn.options.GROUPS`)."""
    from returnn.options import GROUPS

    return frozenset(opt.key for group in GROUPS for opt in group.declared())


def named_option_keys() -> FrozenSet[str]:
    """The config keys of the reference's named command-line options (``-n``/``--num_epochs`` ...)."""
    from returnn.config import NAMED_OPTIONS

    return frozenset(key for _short, _long, key in NAMED_OPTIONS)


def known_keys() -> FrozenSet[str]:
    """Every key this project knows (see module doc)."""
    return declared_keys() | frozenset(OTHER_KEYS) | frozenset(ACCEPTED_WITHOUT_EFFECT) | named_option_keys()
