"""Dataset distribution over workers (``horovod_dataset_distribution``) and per-rank file names.

* ``"shard"``: worker ``r`` of ``n`` takes positions ``r, r+n, r+2n, ...`` of the epoch's sequence order
  (all workers compute the same order, then each keeps its share), so the union over workers is the epoch.
* ``"random_seed_offset"``: each worker reads all sequences, shuffled with the dataset's seed plus
  :func:`random_seed_offset` (a different order per worker).
"""

from __future__ import annotations

from typing import List, Sequence

from . import cluster

SEED_OFFSET_PER_RANK = 16127  # a prime, so worker r's seeds do not coincide with another epoch's seed


def is_sharding() -> bool:
    """Whether each worker reads only its shard of every epoch."""
    return cluster.is_active() and cluster.options().dataset_distribution == "shard"


def shard_seq_order(seq_order: Sequence[int]) -> List[int]:
    """This worker's share of an epoch's sequence order (everything when not sharding).

    :param seq_order: sequence indices of the epoch in reading order (identical on all workers)
    :return: ``seq_order[rank::size]``
    """
    if not is_sharding():
        return list(seq_order)
    return list(seq_order)[cluster.rank()::cluster.size()]


def random_seed_offset() -> int:
    """Offset added to the dataset's shuffling seed: ``rank * 16127`` with ``"random_seed_offset"``, else 0."""
    if cluster.is_active() and cluster.options().dataset_distribution == "random_seed_offset":
        return cluster.rank() * SEED_OFFSET_PER_RANK
    return 0


def is_root() -> bool:
    """Whether this worker writes checkpoints, the learning-rate file, summaries and the main log (rank 0)."""
    return cluster.rank() == 0


def log_filename_for_rank(filename: str) -> str:
    """The ``log`` file for this worker: unchanged on rank 0, ``<log>.rank<N>`` on the others."""
    if cluster.rank() == 0:
        return filename
    return f"{filename}.rank{cluster.rank()}"


def apply_random_seed_offset(dataset) -> None:
    """Adds :func:`random_seed_offset` to ``dataset.random_seed_offset`` (call once, after creating the train
    dataset, before its first ``init_seq_order``); no-op unless ``"random_seed_offset"`` is configured."""
    offset = random_seed_offset()
    if offset:
        dataset.random_seed_offset = int(getattr(dataset, "random_seed_offset", 0) or 0) + offset


def init_dataset_epoch(dataset, epoch: int) -> None:
    """``dataset.init_seq_order(epoch)``, then, with ``"shard"``, restricts the epoch to this worker's share
    (:func:`shard_seq_order` of ``dataset.get_current_seq_order()``, via ``init_seq_order(epoch,
    seq_order=...)``). Without sharding just ``init_seq_order(epoch)``.

    :raises DistributedError: the dataset cannot be restricted to an explicit sequence order
    """
    from returnn.errors import DistributedError

    dataset.init_seq_order(epoch=epoch)
    if not is_sharding():
        return
    try:
        order = dataset.get_current_seq_order()
        dataset.init_seq_order(epoch=epoch, seq_order=shard_seq_order(order))
    except (AttributeError, TypeError, NotImplementedError) as exc:
        raise DistributedError(
            f"horovod_dataset_distribution 'shard': dataset {getattr(dataset, 'name', dataset)!r} "
            f"({type(dataset).__name__}) cannot be restricted to an explicit sequence order ({exc}). "
            "Use horovod_dataset_distribution = 'random_seed_offset' for it.") from None
