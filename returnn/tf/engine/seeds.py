"""The two seeds a run's graph is built with, derived from the config's ``random_seed``.

As the reference (observed by running it on configs with and without ``random_seed``: the ``seed`` attribute of
the parameter initializers' random ops is the graph-level seed, their ``seed2`` is the first draw of
``numpy.random.RandomState(network seed)``):

- ``random_seed`` unset: graph-level seed 42, network seed 1;
- ``random_seed`` = ``s``: graph-level seed ``(10 * s + 23) % 2**31``, network seed ``(5 * s + 10) % 2**31``.

The network seed seeds the network's generator (:attr:`returnn.tf.network.TFNetwork.random`), whose draws give the
parameter initializers and dropout ops their op seeds, in construction order.
"""

from __future__ import annotations

from typing import Optional, Tuple

_MOD = 2 ** 31


def run_seeds(random_seed: Optional[int]) -> Tuple[int, int]:
    """:param random_seed: the config's ``random_seed`` (None: not set)
    :return: (graph-level TF seed, seed of the network's numpy generator), both in ``[0, 2**31)``"""
    if random_seed is None:
        return 42, 1
    seed = int(random_seed)
    return (10 * seed + 23) % _MOD, (5 * seed + 10) % _MOD
