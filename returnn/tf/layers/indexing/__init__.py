"""Indexing layers: gather_nd, scatter_nd, slice_nd, ... (one file per layer)."""

from returnn.tf.layers.indexing import boolean_mask as _boolean_mask  # noqa: F401
from returnn.tf.layers.indexing import gather_nd as _gather_nd  # noqa: F401
from returnn.tf.layers.indexing import scatter_nd as _scatter_nd  # noqa: F401
from returnn.tf.layers.indexing import search_sorted as _search_sorted  # noqa: F401
from returnn.tf.layers.indexing import slice_nd as _slice_nd  # noqa: F401
from returnn.tf.layers.indexing import top_k as _top_k  # noqa: F401
