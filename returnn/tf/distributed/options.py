"""Config keys of multi-process data-parallel training, read and validated in one place.

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

from returnn.errors import ConfigValueError

REDUCE_TYPES = ("grad", "param")
DATASET_DISTRIBUTIONS = ("shard", "random_seed_offset")


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


def is_enabled(config) -> bool:
    """Whether the config asks for data-parallel training: ``use_horovod = True`` or ``distributed = True``.

    :param config: :class:`returnn.config.Config`
    :raises ConfigValueError: one of the keys is not a bool
    """
    return bool(config.bool("use_horovod", False)) or bool(config.bool("distributed", False))


def _choice(config, key: str, choices, default: str) -> str:
    from returnn.util.suggest import close_matches

    value = config.value(key, default)
    if value not in choices:
        raise ConfigValueError(key, expected="one of " + ", ".join(repr(c) for c in choices), got=value,
                               suggestions=close_matches(str(value), choices) or choices)
    return value


def _positive_float(config, key: str, default: float) -> float:
    value = config.float(key, default)
    if not value > 0:
        raise ConfigValueError(key, expected="a positive number of seconds", got=value)
    return float(value)


def get_options(config) -> DistributedOptions:
    """Reads and validates all distributed keys from ``config``.

    :param config: :class:`returnn.config.Config`
    :raises ConfigValueError: naming the key, for an unknown ``horovod_reduce_type`` /
        ``horovod_dataset_distribution`` (with did-you-mean), a ``horovod_param_sync_step`` < 1,
        or a non-positive timeout
    """
    sync_step = config.int("horovod_param_sync_step", 1)
    if sync_step < 1:
        raise ConfigValueError("horovod_param_sync_step", expected="an integer >= 1 (steps between parameter "
                                                                   "averaging)", got=sync_step)
    return DistributedOptions(
        enabled=is_enabled(config),
        reduce_type=_choice(config, "horovod_reduce_type", REDUCE_TYPES, "grad"),
        param_sync_step=sync_step,
        dataset_distribution=_choice(config, "horovod_dataset_distribution", DATASET_DISTRIBUTIONS, "shard"),
        scale_lr=bool(config.bool("horovod_scale_lr", False)),
        collective_timeout=_positive_float(config, "distributed_collective_timeout", 120.0),
        start_timeout=_positive_float(config, "distributed_start_timeout", 600.0),
    )
