"""The reference's ``distributed_tf`` config key: the sessions of this process run through an in-process
TensorFlow server (gRPC) instead of in-process directly.

Only ``distributed_tf = {"local_only": True}`` is provided: a server for this one process
(``tf.distribute.Server.create_local_server()``); every session the engine creates then uses its target
(``grpc://localhost:<port>``, :func:`get_session_target`). A cluster of several processes (``local_only`` False,
ps/worker jobs) is not: use ``use_horovod``/``distributed`` (data-parallel training over TensorFlow's
collectives, see ``docs/distributed.md``).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options.distributed import DistributedKeys

_server: Optional[Any] = None  # tf.distribute.Server of this process, while enabled


def init_distributed_tf(config: Any) -> None:
    """Starts the in-process server when ``config`` has ``distributed_tf`` (no-op without it, or when started).

    :raises ConfigValueError: ``distributed_tf`` not a dict, an unknown option, or ``local_only`` not True
    """
    global _server
    opts = DistributedKeys.read_one(config, "distributed_tf")
    if opts is None or _server is not None:
        return
    if not opts.get("local_only", False):
        raise ConfigValueError("distributed_tf", expected='{"local_only": True} (a cluster of several processes is '
                                                          'not provided: use use_horovod/distributed)', got=opts)
    import tensorflow as tf

    server = tf.distribute.Server.create_local_server()
    print("Distributed TF: sessions use the local server %s." % server.target, file=log.v3)
    _server = server


def is_enabled() -> bool:
    """Whether the sessions run through the in-process server (:func:`init_distributed_tf` ran with
    ``distributed_tf``)."""
    return _server is not None


def get_session_target() -> str:
    """The ``target`` of ``tf.compat.v1.Session``: the server's (``grpc://localhost:<port>``), or ``""`` (in-process)
    when not enabled."""
    return _server.target if _server is not None else ""


def reset() -> None:
    """Forgets the server: sessions are in-process again (TensorFlow cannot stop a server; it stays idle)."""
    global _server
    _server = None


@contextlib.contextmanager
def _temporary_init_distributed_tf(config: Any) -> Iterator[None]:
    """:func:`init_distributed_tf` for the ``with`` block, then :func:`reset` (the reference's name; for tests)."""
    init_distributed_tf(config)
    try:
        yield
    finally:
        reset()
