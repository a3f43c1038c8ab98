"""A network's access to its extern data (:class:`NetworkExternDataMixin`, a base class of ``TFNetwork``): the data
by key (marking it used), the keys used, the batch size."""

from __future__ import annotations

from typing import List

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tensor import Tensor
from returnn.tf.network.run_hooks import SEQ_IDX_KEY
from returnn.util.suggest import close_matches


class NetworkExternDataMixin:
    """Extern data lookups of ``TFNetwork`` (uses its ``extern_data``, ``get_root_network()``, ``used_data_keys`` of the
    root and ``add_seq_idx_extern_data()``)."""

    def get_data_batch_dim(self) -> tf.Tensor:
        """:return: int32 scalar, the batch size of the extern data (``extern_data.get_batch_info().dim``)

        :raises ConfigValueError: no extern data has a batch axis with a placeholder"""
        return self.extern_data.get_batch_info().dim

    def get_extern_data(self, key: str, mark_data_key_as_used: bool = True) -> Tensor:
        """``seq_idx`` (the batch entries' sequence indices, int32 ``[B]``) is added on first use, as the reference.

        :raises LayerArgError-like ConfigValueError: unknown key (lists the known keys)"""
        if key == SEQ_IDX_KEY and key not in self.extern_data.data:
            self.add_seq_idx_extern_data()
        if key not in self.extern_data.data:
            raise ConfigValueError("extern_data", expected=f"a key {key!r} (known: {', '.join(sorted(self.extern_data.data))})",
                                   got=sorted(self.extern_data.data),
                                   suggestions=close_matches(key, self.extern_data.data),
                                   hint=f"add {key!r} to extern_data, or fix the \"target\"/\"from\" that names it")
        if mark_data_key_as_used:
            self.get_root_network().used_data_keys.add(key)
        return self.extern_data.data[key]

    def get_used_data_keys(self) -> List[str]:
        """:return: the extern data keys the network's layers read (root network), sorted"""
        return sorted(self.get_root_network().used_data_keys)

