"""``CollectionKeys`` (legacy ``TFUtil`` class): names of the graph collections RETURNN's own code uses (values as
the reference's)."""

from __future__ import annotations


class CollectionKeys:
    """Graph collection names (``tf.compat.v1.get_collection(CollectionKeys.STATE_VARS)``)."""

    RETURNN_LAYERS = "_RETURNN_layers"  # the layers created in the graph
    RETURNN_NET_STACK = "_RETURNN_network_stack"  # the networks under construction
    STATE_VARS = "_RETURNN_state_vars"  # variables holding state between runs (e.g. of stateful RNNs)
