"""The reference's ``returnn.tf.horovod`` API (``TFHorovod.get_ctx(config=config)`` in older configs), answered by
this implementation's own multi-worker training (TensorFlow collectives, no Horovod): ``get_ctx`` gives None unless
the config enables it (``use_horovod`` / ``distributed``), else a :class:`HorovodContext` with this worker's place
and the reduce / dataset-distribution settings."""

from __future__ import annotations

from typing import Optional

from . import cluster
from .options import DistributedOptions, get_options, is_enabled


class HorovodContext:
    """This worker's rank and size and the distributed options of ``config`` (:mod:`.options`).

    :param config: :class:`returnn.config.Config` with ``use_horovod`` or ``distributed`` set (parsed here), or
        the parsed :class:`~.options.DistributedOptions`
    :raises ConfigValueError: invalid distributed keys
    """

    def __init__(self, config):
        self._options = config if isinstance(config, DistributedOptions) else get_options(config)

    def rank(self) -> int:
        """0-based index of this worker."""
        return cluster.rank()

    def size(self) -> int:
        """Number of workers."""
        return cluster.size()

    def local_rank(self) -> int:
        """Index among the workers on this host."""
        return cluster.local_rank()

    def local_size(self) -> int:
        """Number of workers on this host."""
        hosts = cluster.get_state().info.hosts
        if not hosts:
            return 1
        own_host = hosts[self.rank()].rsplit(":", 1)[0]
        return sum(1 for h in hosts if h.rsplit(":", 1)[0] == own_host)

    def get_reduce_type(self) -> str:
        """``"grad"`` or ``"param"`` (``horovod_reduce_type``)."""
        return self._options.reduce_type

    def is_reduce_type_grad(self) -> bool:
        """Gradients are averaged every step."""
        return self._options.reduce_type == "grad"

    def is_reduce_type_param(self) -> bool:
        """Parameters are averaged every ``horovod_param_sync_step`` steps."""
        return self._options.reduce_type == "param"

    def get_param_sync_step(self) -> int:
        """``horovod_param_sync_step``."""
        return self._options.param_sync_step

    def get_param_sync_time_diff(self) -> Optional[float]:
        """Time-based parameter sync is not supported here: None."""
        return None

    def should_sync_every_step(self) -> bool:
        """Whether the workers synchronise every step (gradient reduce, or parameter averaging every step)."""
        return self.is_reduce_type_grad() or self._options.param_sync_step == 1

    def get_dataset_distribution_type(self) -> str:
        """``"shard"`` or ``"random_seed_offset"`` (``horovod_dataset_distribution``)."""
        return self._options.dataset_distribution

    def is_dataset_distribution_shard(self) -> bool:
        """Each worker reads every ``size``-th sequence."""
        return self._options.dataset_distribution == "shard"

    def is_dataset_distribution_random_seed_offset(self) -> bool:
        """Each worker reads all sequences, shuffled with its own seed."""
        return self._options.dataset_distribution == "random_seed_offset"

    def get_dataset_shard_batch_slice(self) -> slice:
        """The positions of this worker's sequences: ``slice(rank, None, size)``."""
        return slice(self.rank(), None, self.size())


def get_ctx(config=None) -> Optional[HorovodContext]:
    """None when ``config`` (default: the global config) does not enable multi-worker training, else the
    :class:`HorovodContext`."""
    if config is None:
        from returnn.options.distributed import DistributedKeys
        from returnn.options.global_config import global_options, read_global

        if not (read_global(DistributedKeys, "use_horovod") or read_global(DistributedKeys, "distributed")):
            return None  # also without a global config
        return HorovodContext(DistributedOptions.from_keys(global_options(DistributedKeys)))
    if not is_enabled(config):
        return None
    return HorovodContext(config)
