"""Stand-ins of layers that a layer's ``reuse_params`` needs before they can be constructed.

A ``custom`` function of ``reuse_params`` gets the layer whose params it reuses (``reuse_layer.params["W"]``). That
layer may depend on the layer asking (e.g. an output softmax reusing the transposed embedding of its own
predictions in a rec unit, or ``l1`` reusing the weights of ``output``, which reads ``l1``): it cannot be
constructed while the asking layer's ``__init__`` runs. As the reference (observed: the function gets a layer with
those params, and the variables are created then), a stand-in of it is built in a throwaway network with the same
names and scope: the layers under construction are replaced by inputs of zeros shaped like their output templates,
other layers of the network dict it needs are built there too. Its variables (``get_variable`` in the real scope,
with reuse) are the ones the real layer gets when it is constructed later; its ops are never run.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer


def _zeros_like_template(template: Tensor) -> tf.Tensor:
    """:return: zeros of the template's dtype and shape (1 for axes of unknown size)"""
    shape = [1 if size is None else size for size in template.batch_shape]
    return tf.zeros(shape, dtype=template.dtype)


def construct_params_stand_in(network: Any, name: str, net_dict: Dict[str, Any],
                              get_layer: Callable[[str], Any]) -> Any:
    """:return: a stand-in of layer ``name`` of ``network`` (see module doc)

    :param network: the network the layer belongs to (a :class:`returnn.tf.network.TFNetwork`)
    :param name: the layer's name
    :param net_dict: the layer dicts ``network`` constructs from (its ``network`` dict, or a rec unit)
    :param get_layer: the network's name resolver for names that are no layers of ``net_dict`` (``"prev:x"``,
        ``"base:x"``, ``"data:x"``)
    :raises NetworkConstructionDependencyLoopException: the stand-in itself depends on a layer whose output template
        is not known yet
    """
    from returnn.tf.network.tfnetwork import TFNetwork

    temp = TFNetwork(config=network.config, extern_data=network.extern_data, parent_net=network.parent_net,
                     parent_layer=network.parent_layer, train_flag=network.train_flag, eval_flag=network.eval_flag,
                     search_flag=network.search_flag, is_inside_rec_layer=network.is_inside_rec_layer(),
                     absolute_name_prefix=network.get_absolute_name_prefix(), name=f"{network.name}(stand-in)",
                     absolute_name_scope_prefix=network.get_absolute_name_scope_prefix(), rnd_seed=network.rnd_seed)
    stand_ins: Dict[str, Any] = {}

    def resolve(src: str) -> Any:
        if src in network.layers:
            return network.layers[src]
        if src in temp.layers:
            return temp.layers[src]
        template = network.get_template_under_construction(src)
        if template is not None:  # under construction: zeros of its output's shape
            if src not in stand_ins:
                out = template.copy_template()
                out.placeholder = _zeros_like_template(out)
                stand_ins[src] = InternalLayer(name=src, network=temp, output=out)
            return stand_ins[src]
        if src in net_dict:
            return temp.construct_layer(net_dict, src, get_layer=resolve)
        return get_layer(src)

    if name in network.layers:
        return network.layers[name]
    return temp.construct_layer(net_dict, name, get_layer=resolve)
