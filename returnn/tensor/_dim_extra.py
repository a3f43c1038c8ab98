"""``Dim._extra``: the state a :class:`returnn.tensor.Dim` keeps for itself alone, that is not part of what the
dim is and is never pickled (an unpickled dim starts with a new, empty one, as the reference's ``_extra``).

- ``cache_dim_math``: the dims derived from this dim by arithmetic in the current graph (see
  :mod:`returnn.tensor._dim_math`), so that ``T + 1`` twice is one Dim object.
- ``batch_variant_of`` / ``variant_dyn_size``: for a *batch variant* (:meth:`returnn.tensor.Dim.make_batch_variant`),
  the dim it is a variant of and its own lengths (one per entry of another batch, e.g. the batch merged with a time
  axis); None otherwise.
"""

from __future__ import annotations

from typing import Any, Dict


class DimExtra:
    """Per-dim state that is not pickled (see the module doc)."""

    def __init__(self) -> None:
        self.cache_dim_math: Dict[Any, Any] = {}
        self.batch_variant_of: Any = None
        self.variant_dyn_size: Any = None

    def __repr__(self) -> str:
        n = len([k for k in self.cache_dim_math if k != "graph"])
        return f"<DimExtra cache_dim_math: {n} derived dims>"
