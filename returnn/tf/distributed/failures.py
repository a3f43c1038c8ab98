"""Turning TensorFlow's collective failures into one clear :class:`~returnn.errors.DistributedError`.

When a peer dies, the collective ops of the survivors fail within the collective timeout with
``DeadlineExceededError`` ("Collective has timed out ..."), or at once with ``UnavailableError``
("failed to connect ...") when the dead peer's port refuses connections. After such a failure TensorFlow's
collective executor of this process is aborted, so the process must exit; training is resumed by restarting
all workers (the engine continues from the last checkpoint).
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from returnn.errors import DistributedError

from . import cluster


def _collective_error_types():
    import tensorflow as tf

    return (tf.errors.DeadlineExceededError, tf.errors.UnavailableError, tf.errors.AbortedError,
            tf.errors.CancelledError, tf.errors.InternalError)


def translate_error(exc: BaseException, what: str = "a training step") -> Optional[DistributedError]:
    """The :class:`DistributedError` for a TensorFlow error raised by a collective op, else None.

    :param exc: exception raised by ``session.run``
    :param what: what was running, for the message (e.g. ``"train step 12 of epoch 3"``)
    """
    if not cluster.is_active() or not isinstance(exc, _collective_error_types()):
        return None
    text = str(exc)
    if "ollective" not in text and not isinstance(exc, __import__("tensorflow").errors.UnavailableError):
        return None
    opts = cluster.options()
    node = getattr(getattr(exc, "op", None), "name", None) or "?"
    first = next((line.strip() for line in text.splitlines()
                  if "ollective" in line and ("timed out" in line or "abort" in line.lower())), None)
    first = first or next((line.strip() for line in text.splitlines() if "failed to connect" in line), None)
    first = first or text.strip().splitlines()[0]
    hosts = cluster.get_state().info.hosts
    return DistributedError(
        f"distributed training: worker {cluster.rank()} of {cluster.size()} "
        f"({hosts[cluster.rank()] if hosts else '?'}): the collective op {node!r} in {what} failed: "
        f"{type(exc).__name__}: {first}\n"
        f"  Most likely another worker died or hangs (collective timeout {opts.collective_timeout:g} s, config key "
        f"'distributed_collective_timeout'; start/epoch-end timeout {opts.start_timeout:g} s, "
        f"'distributed_start_timeout').\n"
        f"  Restart all workers; training continues from the last checkpoint.")


@contextlib.contextmanager
def collective_errors(what: str = "a training step") -> Iterator[None]:
    """Context manager: re-raises a collective failure inside as :class:`DistributedError` (see
    :func:`translate_error`); other exceptions pass unchanged."""
    try:
        yield
    except Exception as exc:
        err = translate_error(exc, what)
        if err is None:
            raise
        raise err from None
