"""The ``forward_callback`` of ``task = "forward"`` checked once, for layer-dict and RF models alike."""

from __future__ import annotations

from typing import Any

from returnn.errors import ConfigValueError


def checked_forward_callback(dataset: Any, callback: Any) -> Any:
    """:return: ``callback`` (or what the factory ``callback()`` returns) with ``init``, ``process_seq`` and
        ``finish`` (a :class:`returnn.forward_iface.ForwardCallbackIface`)
    :raises ConfigValueError: no dataset to forward, or a callback without those methods
    """
    from returnn.forward_iface import ForwardCallbackIface

    if dataset is None:
        raise ConfigValueError("eval", expected="a dataset to forward (config key 'eval' or 'forward_data')", got=None)
    if not isinstance(callback, ForwardCallbackIface) and callable(callback):
        callback = callback()
    for method in ("init", "process_seq", "finish"):
        if not callable(getattr(callback, method, None)):
            raise ConfigValueError("forward_callback", expected="a ForwardCallbackIface (with init, process_seq, "
                                                                "finish) or a function returning one", got=callback)
    return callback
