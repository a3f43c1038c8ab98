"""What a network's layers ask the engine to do around a ``Session.run`` (:class:`NetworkRunHooksMixin`, a base class
of ``TFNetwork``): sequence tags as extern data, ops to run after each step, callbacks when the graph is discarded.

All of it is kept on the root network (subnetworks and rec loops register there).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, List, Sequence

import tensorflow as tf

from returnn.tensor import Tensor, batch_dim

#: the extern data key of the sequence tags (string ``[B]``), as the reference
SEQ_TAG_KEY = "seq_tag"
#: the extern data key of the sequence indices in the epoch (int32 ``[B]``), as the reference
SEQ_IDX_KEY = "seq_idx"


def _in_graph_of(network):
    """Context: the network's graph as the default graph (a caller outside it, e.g. a script fetching the sequence
    tags of an engine's network, which lives in the engine's own graph); nothing when it is the default already."""
    graph = getattr(network, "graph", None)
    if graph is None or graph is tf.compat.v1.get_default_graph():
        return contextlib.nullcontext()
    return graph.as_default()


class NetworkRunHooksMixin:
    """Run hooks of ``TFNetwork`` (see module doc). Uses the network's public ``get_root_network``,
    ``extern_data``, ``get_extern_data`` and the root's lists ``post_control_dependencies`` and
    ``graph_reset_callbacks``."""

    def get_seq_tags(self, mark_data_key_as_used: bool = True, beam: Any = None) -> tf.Tensor:
        """:param mark_data_key_as_used: count ``seq_tag`` among the used data keys (so the engine feeds it)
        :param beam: accepted for the reference's signature (no beam expansion here; must be None)
        :return: string ``[B]`` placeholder of extern data ``seq_tag`` (added to the root network's extern data
            on first use, placeholder ``extern_data/placeholders/seq_tag/seq_tag``; when not fed, it is an empty
            vector: a caller must handle that, as hdf_dump does with running numbers)
        :raises ValueError: a ``beam`` given
        """
        if beam is not None:
            raise ValueError("get_seq_tags: beam is not supported here")
        root = self.get_root_network()
        if SEQ_TAG_KEY not in root.extern_data.data:
            with _in_graph_of(root), tf.name_scope(f"extern_data/placeholders/{SEQ_TAG_KEY}/"):
                placeholder = tf.compat.v1.placeholder_with_default(tf.zeros([0], tf.string), shape=[None],
                                                                    name=SEQ_TAG_KEY)
            root.extern_data.register_data(Tensor(name=SEQ_TAG_KEY, dims=(batch_dim,), dtype="string",
                                                  placeholder=placeholder))
        return root.get_extern_data(SEQ_TAG_KEY, mark_data_key_as_used=mark_data_key_as_used).placeholder

    def get_epoch_step(self) -> tf.Tensor:
        """The step within the current epoch, which a layer's state kept over runs (``initial_state``
        ``"keep_over_epoch"``) compares with 0 to start fresh. Created on first use, on the root network, as its
        ``epoch_step`` attribute: a scalar int64 placeholder ``epoch_step`` (as the reference) that the caller feeds.

        :return: the placeholder
        """
        root = self.get_root_network()
        if root.epoch_step is None:
            with tf.compat.v1.get_default_graph().name_scope(""):  # the graph root, whatever the current scope
                root.epoch_step = tf.compat.v1.placeholder(tf.int64, shape=(), name="epoch_step")
        return root.epoch_step

    def add_seq_idx_extern_data(self) -> None:
        """Adds extern data ``seq_idx`` (int32 ``[B]``: each batch entry's sequence index in the epoch, fed by the
        engine when a layer uses it) to the root network's extern data, unless it is there (placeholder
        ``extern_data/placeholders/seq_idx/seq_idx``; an empty vector when not fed)."""
        root = self.get_root_network()
        if SEQ_IDX_KEY not in root.extern_data.data:
            with _in_graph_of(root), tf.name_scope(f"extern_data/placeholders/{SEQ_IDX_KEY}/"):
                placeholder = tf.compat.v1.placeholder_with_default(tf.zeros([0], tf.int32), shape=[None],
                                                                    name=SEQ_IDX_KEY)
            root.extern_data.register_data(Tensor(name=SEQ_IDX_KEY, dims=(batch_dim,), dtype="int32",
                                                  placeholder=placeholder))

    def register_post_control_dependencies(self, deps: Sequence[Any]) -> None:
        """Adds ops (or tensors) that every step fetching the network's outputs should run too (e.g. HDF dumps)."""
        self.get_root_network().post_control_dependencies.extend(deps)

    def get_post_control_dependencies(self) -> List[Any]:
        """:return: the ops registered with :meth:`register_post_control_dependencies` (fetch them with the
            outputs)"""
        return list(self.get_root_network().post_control_dependencies)

    def register_graph_reset_callback(self, cb: Callable[[], Any]) -> None:
        """Adds a function to call when the graph of this network is discarded (e.g. closing an HDF file)."""
        self.get_root_network().graph_reset_callbacks.append(cb)

    def get_graph_reset_callbacks(self) -> List[Callable[[], Any]]:
        """:return: the registered graph reset callbacks, in registration order"""
        return list(self.get_root_network().graph_reset_callbacks)

    def call_graph_reset_callbacks(self) -> None:
        """Calls each graph reset callback once, in registration order, and forgets them."""
        root = self.get_root_network()
        callbacks, root.graph_reset_callbacks = root.graph_reset_callbacks, []
        for cb in callbacks:
            cb()
