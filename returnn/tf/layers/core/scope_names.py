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
