"""Extra networks: layers named ``"extra.search:x"`` (``"extra:x"``, ``"extra.<name>:x"``) live in an extra network
beside the main one, built from the same network dict and sharing its params. As observed with the reference:

- the extra network of prefix ``"extra.search"`` (any prefix starting with it, e.g. ``"extra.search2"``) has the
  search flag set; others have the main network's flags; the train flag is the main network's;
- ``"extra.search:x"`` constructs ``x`` in the extra network, from the description ``"extra.search:x"`` if the
  dict has one, else from ``"x"``; it is then also a layer of the main network under that name;
- inside the extra network, a dependency ``y`` is constructed there if ``"extra.search:y"`` is described, else it
  is the main network's layer ``y``;
- params have the main network's names (``enc/W`` for ``"extra.search:enc"``): the variables are shared.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Optional, Tuple

_EXTRA_NAME = re.compile(r"^(extra(?:\.[A-Za-z0-9_.]+)?):(.+)$")


def split_extra_name(name: str) -> Optional[Tuple[str, str]]:
    """:return: (prefix, layer name) for ``"extra.search:x"`` (``("extra.search", "x")``), else None"""
    match = _EXTRA_NAME.match(name)
    if match is None:
        return None
    return match.group(1), match.group(2)


def extra_net_layers_desc(net_dict: Dict[str, Any], prefix: str) -> Dict[str, Any]:
    """:return: the descriptions the extra network ``prefix`` builds itself: ``"<prefix>:x"`` as ``"x"``"""
    result = {}
    for key, desc in net_dict.items():
        split = split_extra_name(key)
        if split is not None and split[0] == prefix:
            result[split[1]] = desc
    return result


def get_extra_net(net: Any, prefix: str) -> Any:
    """:return: the extra network ``prefix`` of ``net`` (created on first use)"""
    if prefix not in net.extra_nets:
        extra = type(net)(config=net.config, extern_data=net.extern_data, rnd_seed=net.rnd_seed,
                          train_flag=net.train_flag, eval_flag=net.eval_flag,
                          search_flag=True if prefix.startswith("extra.search") else net.search_flag,
                          extra_parent_net=net, absolute_name_prefix=net.get_absolute_name_prefix(),
                          name=f"({prefix})")
        extra.extra_prefix = prefix
        extra.layers_desc.update(extra_net_layers_desc(net.layers_desc, prefix))
        net.extra_nets[prefix] = extra
    return net.extra_nets[prefix]


def construct_extra_layer(net: Any, name: str) -> Any:
    """Constructs ``"<prefix>:x"`` of ``net`` in its extra network (see module doc) and registers it in ``net``.

    :return: the layer
    """
    prefix, sub = split_extra_name(name)
    extra = get_extra_net(net, prefix)
    if sub not in extra.layers_desc and sub in net.layers_desc:
        extra.layers_desc[sub] = net.layers_desc[sub]  # explicitly asked for: built in the extra network too
    layer = extra.construct_layer(extra.layers_desc, sub)
    net.layers[name] = layer
    for sub_name, sub_layer in list(extra.layers.items()):  # the losses of rec layers' sub layers ("x/y")
        if "/" in sub_name and sub_layer.loss:
            net.layers.setdefault(f"{prefix}:{sub_name}", sub_layer)
    return layer


def construct_search_train_layers(net: Any, net_dict: Dict[str, Any], names: Any) -> None:
    """Builds layers ``names`` of ``net_dict`` in ``net``'s extra network ``"extra.search"`` (search flag, the train
    flag of ``net``), as ``"extra.search:<name>"`` layers of ``net``, as the reference's engine does for config
    ``search_train_network_layers`` in training (observed: also the layers they depend on are built there, e.g. the
    encoder a search's rec layer reads; a layer with ``only_on_search`` too; their losses are the network's).

    :param names: layer names of ``net_dict``
    """
    extra = get_extra_net(net, "extra.search")
    for name, desc in net_dict.items():
        if not name.startswith("#") and split_extra_name(name) is None:
            extra.layers_desc.setdefault(name, desc)
    for name in names:
        net.construct_layer(net_dict, f"extra.search:{name}")
