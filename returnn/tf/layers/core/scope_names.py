"""TF scope names of layers: layer names may hold characters TF does not allow in scope names.

As the reference (observed with ``returnn.tf.util.basic.get_valid_scope_name_from_str``):

- each of the characters ``space " & ' ( ) * + , - : { }`` becomes ``__`` (``"a:b"`` → ``"a__b"``);
- non-ASCII characters are dropped;
- then, if the first character is ``_``, ``/`` or ``\\``, it becomes ``.<ord>.`` (``"_bpe0"`` → ``".95.bpe0"``,
  ``":x"`` → ``"__x"`` → ``".95._x"``), since a TF root scope name must not start with it.

A layer's variables and ops live under the scope ``<network scope prefix><valid layer name>/`` (``sub/.95.in/W``
for layer ``_in`` inside subnetwork ``sub``).
"""

from __future__ import annotations

from typing import Optional

_REPLACED_CHARS = frozenset(" \"&'()*+,-:{}")
_INVALID_FIRST_CHARS = frozenset("_/\\")


def get_valid_scope_name_from_str(name: str) -> str:
    """:return: ``name`` made usable as a TF (root) scope name, as the reference does it (see module doc);
    ``""`` stays ``""``"""
    chars = []
    for char in name:
        if ord(char) >= 128:
            continue
        chars.append("__" if char in _REPLACED_CHARS else char)
    result = "".join(chars)
    if result and result[0] in _INVALID_FIRST_CHARS:
        result = f".{ord(result[0])}.{result[1:]}"
    return result


def get_scope_prefix_from_name_prefix(name_prefix: str) -> str:
    """:return: scope prefix for a network's layer name prefix: each ``/``-separated part made valid
    (``"_sub/"`` → ``".95.sub/"``, ``""`` → ``""``)"""
    if not name_prefix:
        return ""
    parts = name_prefix.split("/")
    if parts[-1] == "":
        parts = parts[:-1]
    return "".join(get_valid_scope_name_from_str(part) + "/" for part in parts)


def get_layer_scope_name(net_scope_prefix: str, name: str, name_scope: Optional[str] = None) -> str:
    """:return: the absolute TF scope of a layer (no trailing ``/``; ``""`` is the root scope), as the reference
    (observed) gives it for the layer arg ``name_scope``:

    - None (default): ``<net_scope_prefix><valid layer name>`` (``"sub/.95.in"`` for layer ``_in`` in ``sub``);
    - ``""``: the network's own scope (``net_scope_prefix`` without its ``/``; the root scope at the top);
    - ``"/x"``: absolute, ``"x"`` wherever the layer is;
    - ``"x"`` (also ``"x/y"``): relative to the network, ``<net_scope_prefix>x``.

    :param net_scope_prefix: the network's scope prefix, ``""`` or ending with ``/`` (``"output/rec/"``)
    :param name: the layer name in its network
    :param name_scope: the layer dict's ``name_scope``
    :raises TypeError: ``name_scope`` is neither None nor a str
    """
    if name_scope is None:
        return net_scope_prefix + get_valid_scope_name_from_str(name)
    if not isinstance(name_scope, str):
        raise TypeError(f"name_scope: expected None or a str, got {name_scope!r}")
    if name_scope.startswith("/"):
        return name_scope[1:].rstrip("/")
    if name_scope == "":
        return net_scope_prefix[:-1] if net_scope_prefix.endswith("/") else net_scope_prefix
    return net_scope_prefix + name_scope.rstrip("/")


def scope_prefix_of(scope_name: str) -> str:
    """:return: the prefix of names inside scope ``scope_name``: ``"a/b/"`` for ``"a/b"``, ``""`` for the root"""
    return scope_name + "/" if scope_name else ""
