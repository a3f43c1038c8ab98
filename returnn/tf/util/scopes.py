"""Name/variable scope helpers (legacy ``TFUtil`` functions): ``reuse_name_scope``, ``get_current_var_scope_name``."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional, Union

import tensorflow as tf

_v1 = tf.compat.v1


@contextlib.contextmanager
def reuse_name_scope(name: Union[str, Any], absolute: Optional[bool] = None, **kwargs: Any) -> Iterator[Any]:
    """Enters the name scope ``name`` exactly (no ``_1`` suffix if it exists already) together with the variable
    scope of the same absolute name, as the reference.

    :param name: scope name, relative to the current name scope unless ``absolute``; or a
        ``tf.compat.v1.VariableScope`` (its name, absolute)
    :param absolute: ``name`` is absolute
    :param kwargs: passed to ``tf.compat.v1.variable_scope`` (e.g. ``reuse``, ``initializer``)
    :return: (yields) the variable scope
    """
    if isinstance(name, _v1.VariableScope):
        name, absolute = name.name, True
    graph = _v1.get_default_graph()
    if absolute:
        abs_name = name
    else:
        current = graph.get_name_scope()
        abs_name = f"{current}/{name}" if current and name else (current or name)
    abs_name = abs_name.strip("/")
    with graph.name_scope(abs_name + "/" if abs_name else ""):
        var_scope = _v1.VariableScope(name=abs_name, reuse=None)
        with _v1.variable_scope(var_scope, auxiliary_name_scope=False, **kwargs) as scope:
            yield scope


def get_current_var_scope_name() -> str:
    """:return: the name of the current ``tf.compat.v1`` variable scope (``""`` at the root)"""
    return _v1.get_variable_scope().name
