"""``global_tensor`` (legacy ``TFUtil`` function): one tensor per graph and name, created on first use."""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from returnn.tf.util.control_flow import default_control_flow_ctx
from returnn.tf.util.scopes import reuse_name_scope

_COLLECTION_PREFIX = "_returnn_global_tensor_"


def global_tensor(f: Callable[[], Any], name: str) -> Any:
    """:param f: creates the tensor (called once per graph and ``name``)
    :param name: key within the default graph; the tensor is created in name scope ``globals/`` outside of any
        loop/cond and without control dependencies
    :return: the tensor ``f`` created for this graph and ``name``"""
    graph = tf.compat.v1.get_default_graph()
    ref = graph.get_collection_ref(_COLLECTION_PREFIX + name)
    if not ref:
        with default_control_flow_ctx(), reuse_name_scope("globals", absolute=True):
            ref.append(f())
    return ref[0]
