"""The settings of multi-process data-parallel training, from its config keys (declared, read and validated in
:class:`returnn.options.distributed.DistributedKeys`).

The reference's Horovod keys keep their names and meaning:

* ``use_horovod`` (bool, default False): enables data-parallel training over all launched workers.
  ``distributed = True`` is accepted as a clearer alias (either one enables it).
* ``horovod_reduce_type`` (``"grad"`` default, or ``"param"``): ``"grad"`` all-reduces (averages) the
  gradients every step, so all workers apply the same update and stay identical; ``"param"`` lets every
  worker take local steps and averages the parameters every ``horovod_param_sync_step`` steps.
* ``horovod_param_sync_step`` (int >= 1, default 1): the period of parameter averaging for ``"param"``.
* ``horovod_dataset_distribution`` (``"shard"`` default, or ``"random_seed_offset"``): ``"shard"``: worker
  ``r`` of ``n`` reads the sequences at positions ``r, r+n, r+2n, ...`` of the epoch's sequence order;
  ``"random_seed_offset"``: every worker reads the whole dataset but shuffles it with a different seed.
* ``horovod_scale_lr`` (bool, default False): multiply the learning rate by the number of workers.

Keys of this implementation (no reference counterpart):

* ``distributed_collective_timeout`` (float seconds, default 120): a collective op in a training or eval
  step (gradient all-reduce, parameter averaging, score averaging) that does not complete within this time
  fails with :class:`~returnn.errors.DistributedError` (a peer died or hangs) instead of hanging forever.
* ``distributed_start_timeout`` (float seconds, default 600): the same for start-up and epoch-end
  operations (waiting for all workers to come up, parameter broadcast, graph check, barriers), which may
  legitimately wait for a slow peer (e.g. rank 0 writing a checkpoint).
"""

from __future__ import annotations

import dataclasses

from returnn.options.distributed import DATASET_DISTRIBUTIONS as DATASET_DISTRIBUTIONS
from returnn.options.distributed import REDUCE_TYPES as REDUCE_TYPES
from returnn.options.distributed import DistributedKeys


@dataclasses.dataclass(frozen=True)
class DistributedOptions:
    """Validated distributed-training settings of one run (see the module docstring for each key)."""

    enabled: bool = False
    reduce_type: str = "grad"
    param_sync_step: int = 1
    dataset_distribution: str = "shard"
    scale_lr: bool = False
    collective_timeout: float = 120.0
    start_timeout: float = 600.0

    @classmethod
    def from_keys(cls, keys: DistributedKeys) -> DistributedOptions:
        """The settings of the parsed (and validated) distributed config keys."""
        return cls(enabled=bool(keys.use_horovod) or bool(keys.distributed), reduce_type=keys.horovod_reduce_type,
                   param_sync_step=keys.horovod_param_sync_step,
                   dataset_distribution=keys.horovod_dataset_distribution, scale_lr=bool(keys.horovod_scale_lr),
                   collective_timeout=float(keys.distributed_collective_timeout),
                   start_timeout=float(keys.distributed_start_timeout))


def is_enabled(config) -> bool:
    """Whether the config asks for data-parallel training: ``use_horovod = True`` or ``distributed = True`` (only
    these two keys are parsed).

    :param config: :class:`returnn.config.Config`
    :raises ConfigValueError: one of the keys is not a bool
    """
    return bool(DistributedKeys.read_one(config, "use_horovod")) or bool(DistributedKeys.read_one(config,
                                                                                                   "distributed"))


def get_options(config) -> DistributedOptions:
    """Reads and validates all distributed keys from ``config`` (:class:`DistributedKeys`).

    :param config: :class:`returnn.config.Config`
    :raises ConfigValueError: naming the key, for an unknown ``horovod_reduce_type`` /
        ``horovod_dataset_distribution`` (with did-you-mean), a ``horovod_param_sync_step`` < 1,
        or a non-positive timeout
    """
    return DistributedOptions.from_keys(DistributedKeys.from_config(config))
