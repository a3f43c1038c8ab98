"""Keys that shape the mini-batches of every pass (train, eval, forward, search)."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional

from returnn.options.declare import OptionGroup, option

_BATCH_SIZE_VALID = "an int > 0 (frames per batch, padding included) or a dict data key -> int > 0"
_BATCH_SIZE_HINT = ("the reference rejects it too ('batch_size must be set and be greater than 0'); to bound a batch "
                    "by its number of sequences only, set a large batch_size and max_seqs")


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_batch_size(value: Any) -> Optional[str]:
    """None for a valid ``batch_size`` (int > 0, or a dict / NumbersDict of such), else what is valid.

    The reference rejects 0, negative, float and string values when it builds the first batch (``batch_size must
    be set and be greater than 0``, an ``AssertionError``, a ``TypeError``); here the key is checked before the
    network is built.
    """
    from returnn.util.numbers_dict import NumbersDict

    if isinstance(value, NumbersDict):
        values = list(value.dict.values()) + ([value.value] if value.value is not None else [])
        return None if values and all(_is_positive_int(v) for v in values) else _BATCH_SIZE_VALID
    if isinstance(value, dict):
        return None if value and all(_is_positive_int(v) for v in value.values()) else _BATCH_SIZE_VALID
    return None if _is_positive_int(value) else _BATCH_SIZE_VALID


def _read_batch_size(config, key: str, default: Any) -> Any:
    value = config.typed_value(key, default)
    if isinstance(value, str):  # a string value: '++batch_size 5000' over a string, or set by code
        value = config.int(key, default)
    return value


def _read_max_seq_length(config, key: str, default: Any) -> Any:
    value = config.typed_value(key, default)
    if isinstance(value, str):
        value = config.int(key, 0)
    return value or None


@dataclasses.dataclass(frozen=True)
class BatchingOptions(OptionGroup):
    """Mini-batches (:func:`returnn.datasets.batching.generate_batches`)."""

    topic = "batching"

    batch_size: Any = option(1, "max frames per batch (padding included): an int > 0, or a dict data key -> int",
                             kind="any", check=check_batch_size, reader=_read_batch_size, none_ok=False,
                             hint=_BATCH_SIZE_HINT)
    max_seqs: int = option(-1, "max sequences per batch (-1: no limit)", kind="int")
    max_seq_length: Any = option(None, "sequences longer than this (an int, or a dict data key -> int) are skipped",
                                 kind="any", reader=_read_max_seq_length)
    max_pad_size: Any = option(None, "max padding frames per batch (an int or a dict data key -> int)", kind="any")
    seq_drop: float = option(0.0, "training only: drop each sequence with this probability", kind="float")
    shuffle_batches: bool = option(False, "training only: build all batches of the epoch first, then shuffle their "
                                          "order", kind="bool")

    @classmethod
    def explicit_batch_size(cls, config) -> Any:
        """:return: the config's ``batch_size`` when it sets one (checked as declared), else None"""
        return cls.read_one(config, "batch_size") if config.has("batch_size") else None

    def generate_batches_kwargs(self, *, train: bool, batch_size: Any = None,
                                recurrent_net: bool = True) -> Dict[str, Any]:
        """Keyword args for ``Dataset.generate_batches``.

        :param train: with ``seq_drop`` and ``shuffle_batches``
        :param batch_size: instead of :attr:`batch_size` (e.g. ``forward_batch_size``)
        :param recurrent_net: False: batches of frames across sequences (a network without layers over time,
            :attr:`returnn.tf.network.TFNetwork.recurrent`), as the reference trains such networks
        """
        opts = {
            "recurrent_net": recurrent_net,
            "batch_size": self.batch_size if batch_size is None else batch_size,
            "max_seqs": self.max_seqs,
            "max_seq_length": self.max_seq_length,
            "max_pad_size": self.max_pad_size,
        }
        if train:
            opts["seq_drop"] = self.seq_drop
            opts["shuffle_batches"] = self.shuffle_batches
        return opts
