"""The value of ``Tensor.size_placeholder``: a dict axis-without-batch → raw lengths that writes through to the
tensor (``data.size_placeholder[1] = lengths`` sets the lengths of that axis, as in the reference) and has the
reference's ``as_dict()``."""

from __future__ import annotations

from typing import Any, Dict


class SizePlaceholderProxy(dict):
    """A snapshot dict of the tensor's lengths; item assignment and deletion also change the tensor."""

    def __init__(self, tensor: Any, sizes: Dict[int, Any]):
        super().__init__(sizes)
        self._tensor = tensor

    def __setitem__(self, axis_wo_batch: int, size: Any) -> None:
        self._tensor.size_placeholder = {axis_wo_batch: size}
        super().__setitem__(axis_wo_batch, size)

    def as_dict(self) -> Dict[int, Any]:
        """:return: a plain dict copy"""
        return dict(self)
