"""Multi-process data-parallel training on TensorFlow's own collectives, behind the reference's Horovod
config keys (``use_horovod``, ``horovod_reduce_type``, ``horovod_param_sync_step``,
``horovod_dataset_distribution``, ``horovod_scale_lr``; ``distributed = True`` is an alias of
``use_horovod = True``). See ``docs/distributed.md`` for launching, :mod:`.options` for the keys.

Public API (all functions work without distribution too: single worker, identities):

* the reference's ``distributed_tf`` (:mod:`.tf_server`): :func:`init_distributed_tf`, :func:`get_session_target`,
  :func:`is_enabled` without a config
* set-up: :func:`init`, :func:`is_enabled` of a config, :func:`rank`, :func:`size`, :func:`local_rank`,
  :func:`is_active`, :func:`session_target`, :func:`make_session_config`
* graph ops: :func:`allreduce`, :func:`broadcast`, :func:`allgather`, :func:`barrier_op`
* engine helpers: :func:`broadcast_variables_op`, :func:`allreduce_gradients`,
  :func:`make_grad_weight_placeholder`, :func:`average_variables_op`, :func:`is_param_sync_step`,
  :func:`scale_learning_rate`, :func:`describe_variables`, :func:`check_same_graph`, :func:`barrier`,
  :func:`num_workers_with_data`, :func:`sum_scores`, :func:`average_scores`, :func:`shard_seq_order`,
  :func:`random_seed_offset`, :func:`apply_random_seed_offset`,
  :func:`init_dataset_epoch`, :func:`is_root`, :func:`log_filename_for_rank`,
  :func:`collective_errors`, :func:`translate_error`
"""

from .cluster import (init as init, rank as rank, size as size, local_rank as local_rank,
                      is_active as is_active, options as options, session_target as session_target,
                      make_session_config as make_session_config)
from .options import get_options as get_options, DistributedOptions as DistributedOptions
from .tf_server import (init_distributed_tf as init_distributed_tf, get_session_target as get_session_target,
                        _temporary_init_distributed_tf as _temporary_init_distributed_tf)
from .discovery import WorkerInfo as WorkerInfo, discover_workers as discover_workers
from .collectives import (allreduce as allreduce, broadcast as broadcast, allgather as allgather,
                          barrier as barrier_op, instance_key as instance_key)
from .failures import collective_errors as collective_errors, translate_error as translate_error
from .host import (barrier as barrier, num_workers_with_data as num_workers_with_data, sum_scores as sum_scores,
                   average_scores as average_scores, check_same_graph as check_same_graph,
                   host_allreduce as host_allreduce, host_broadcast as host_broadcast)
from .training import (broadcast_variables_op as broadcast_variables_op, allreduce_gradients as allreduce_gradients,
                       make_grad_weight_placeholder as make_grad_weight_placeholder,
                       average_variables_op as average_variables_op, is_param_sync_step as is_param_sync_step,
                       scale_learning_rate as scale_learning_rate, describe_variables as describe_variables)
from .data import (shard_seq_order as shard_seq_order, random_seed_offset as random_seed_offset, is_root as is_root,
                   log_filename_for_rank as log_filename_for_rank, is_sharding as is_sharding,
                   apply_random_seed_offset as apply_random_seed_offset, init_dataset_epoch as init_dataset_epoch)


def is_enabled(config=None) -> bool:
    """Without ``config`` (the reference's meaning): whether the sessions run through the in-process server of
    ``distributed_tf`` (:mod:`.tf_server`). With ``config``: whether it asks for data-parallel training
    (``use_horovod = True`` or ``distributed = True``, :func:`.options.is_enabled`).

    :raises ConfigValueError: one of these keys is not a bool
    """
    from .options import is_enabled as config_enables
    from .tf_server import is_enabled as server_runs

    if config is None:
        return server_runs()
    return config_enables(config)
