"""Keys of multi-process data-parallel training (the reference's Horovod keys, see ``docs/distributed.md``)."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option

REDUCE_TYPES = ("grad", "param")
DATASET_DISTRIBUTIONS = ("shard", "random_seed_offset")


def _check_rank_and_size(value: Any) -> Optional[str]:
    return None if isinstance(value, (tuple, list)) and len(value) == 2 else "(rank, size)"


def _check_distributed_tf(value: Any) -> Optional[str]:
    if isinstance(value, dict) and set(value) <= {"local_only"}:
        return None
    return 'a dict {"local_only": True}'


def _check_positive(value: float):
    return None if value > 0 else "a positive number of seconds"


@dataclasses.dataclass(frozen=True)
class DistributedKeys(OptionGroup):
    """The config keys of :mod:`returnn.tf.distributed` (see its ``options`` module for their meaning)."""

    topic = "distributed training"

    use_horovod: bool = option(False, "data-parallel training over all launched workers", kind="bool")
    distributed: bool = option(False, "alias of use_horovod = True", kind="bool")
    horovod_reduce_type: str = option("grad", "'grad': average the gradients every step; 'param': local steps, "
                                              "parameters averaged every horovod_param_sync_step steps",
                                      kind="str", choices=REDUCE_TYPES)
    horovod_param_sync_step: int = option(1, "period of the parameter averaging of 'param'", kind="int", min=1,
                                          valid="an integer >= 1 (steps between parameter averaging)")
    horovod_dataset_distribution: str = option("shard", "'shard': worker r of n reads positions r, r+n, ... of the "
                                                        "epoch's order; 'random_seed_offset': every worker reads all, "
                                                        "shuffled with its own seed", kind="str",
                                               choices=DATASET_DISTRIBUTIONS)
    horovod_scale_lr: bool = option(False, "multiply the learning rate by the number of workers", kind="bool")
    distributed_collective_timeout: float = option(120.0, "seconds a collective op of a step may take before it "
                                                          "fails (a peer died or hangs)", kind="float",
                                                   check=_check_positive)
    distributed_start_timeout: float = option(600.0, "seconds start-up and epoch-end operations may wait for a peer",
                                              kind="float", check=_check_positive)
    distributed_tf: Any = option(None, "the reference's distributed TF sessions: only {'local_only': True} (the "
                                       "sessions run through an in-process TensorFlow server)", kind="any",
                                 check=_check_distributed_tf)
    debug_dummy_rank_and_size: Any = option(None, "(rank, size) of a simulated distributed run, for "
                                                  "DistributeFilesDataset's distrib_shard_files (testing)",
                                            kind="any", check=_check_rank_and_size,
                                            key="__debug_dummy_distributed_rank_and_size")
