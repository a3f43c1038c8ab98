"""``returnn.pretrain`` (legacy name ``Pretrain``): values and networks that depend on the training epoch.

:class:`WrapEpochValue` marks a value in a network dict that is computed from the epoch of the network being
built. The layer-wise pretraining schedule itself (the ``pretrain`` config key) is not provided yet: the engine
warns and trains the final network from epoch 1.
"""

from __future__ import annotations

from typing import Any, Callable


class WrapEpochValue:
    """A value in a network dict computed from the epoch: ``WrapEpochValue(lambda epoch: ...)``.

    :param func: called as ``func(epoch=epoch)`` (keyword argument, as the reference calls it; a function
        whose parameter has another name raises ``TypeError``)
    """

    def __init__(self, func: Callable[..., Any]):
        self.func = func

    def get_value(self, epoch: int) -> Any:
        """:return: ``func(epoch=epoch)``"""
        return self.func(epoch=epoch)
