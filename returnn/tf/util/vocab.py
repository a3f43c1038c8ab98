"""``get_shared_vocab``: a vocabulary as one string constant per graph (legacy ``TFUtil`` function; configs use it
to map label ids to BPE strings inside search, e.g. ``tf.gather(get_shared_vocab(labels), ids)``)."""

from __future__ import annotations

import hashlib
from typing import Any, Dict

import tensorflow as tf

_CACHE_ATTR = "_returnn_shared_vocab"


def get_shared_vocab(vocab_strings: Any) -> tf.Tensor:
    """:param vocab_strings: list/tuple of str (or bytes), a single str, or an object with ``labels`` (a
        :class:`returnn.datasets.generating.Vocabulary`)
    :return: string tensor (len(vocab),) (scalar for a single str), on the CPU; the same tensor for the same
        strings within one graph, created outside any control-flow context (usable in all loops)
    """
    if hasattr(vocab_strings, "labels") and not isinstance(vocab_strings, (str, bytes, list, tuple)):
        vocab_strings = vocab_strings.labels
    value = vocab_strings if isinstance(vocab_strings, (str, bytes)) else list(vocab_strings)
    key = repr(value)
    graph = tf.compat.v1.get_default_graph()
    cache: Dict[str, tf.Tensor] = getattr(graph, _CACHE_ATTR, None)
    if cache is None:
        cache = {}
        setattr(graph, _CACHE_ATTR, cache)
    if key not in cache:
        digest = hashlib.sha1(key.encode("utf8")).hexdigest()[:16]
        with tf.control_dependencies(None), graph.name_scope("globals/"), tf.device("/cpu:0"):
            cache[key] = tf.identity(tf.constant(value, dtype=tf.string), name=f"shared_vocab_{digest}")
    return cache[key]
