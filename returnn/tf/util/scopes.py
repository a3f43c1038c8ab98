"""Name/variable scope helpers (legacy ``TFUtil`` functions): ``reuse_name_scope``, ``get_current_name_scope``,
``get_current_var_scope_name``, ``reuse_name_scope_of_tensor``, ``get_name_scope_of_tensor``,
``opt_reuse_name_scope``, ``get_valid_scope_name_from_str``, ``get_base_name``."""

from __future__ import annotations

import contextlib
import re
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


def get_current_name_scope() -> str:
    """:return: the current name scope of the default graph, without trailing ``/`` (``""`` at the root), e.g.
        ``"lstm2/rec/sub"`` inside ``reuse_name_scope("lstm2")``, ``reuse_name_scope("rec")``,
        ``tf.name_scope("sub")``"""
    return _v1.get_default_graph().get_name_scope()


def get_name_scope_of_tensor(x: Union[tf.Tensor, tf.Operation]) -> str:
    """:param x: a graph tensor or operation
    :return: the name scope its op was created in (its op name up to the last ``/``; ``""`` at the root)"""
    op = x if isinstance(x, tf.Operation) else x.op
    return op.name.rpartition("/")[0]


def get_base_name(x: Union[tf.Tensor, tf.Variable, tf.Operation, str]) -> str:
    """:param x: a tensor, variable, operation or a name such as ``"layer/W:0"``
    :return: the last name part without the output index, e.g. ``"W"``"""
    name = x if isinstance(x, str) else x.name
    return name.rpartition("/")[2].partition(":")[0]


@contextlib.contextmanager
def reuse_name_scope_of_tensor(x: Union[tf.Tensor, tf.Operation], prefix: str = "", postfix: str = "",
                               add_tensor_name: bool = False) -> Iterator[Any]:
    """Enters (via :func:`reuse_name_scope`, absolute) the name scope ``x`` was created in.

    :param x: graph tensor or operation
    :param prefix: prepended to the (absolute) scope name, e.g. ``p_`` gives ``p_s1/s2``
    :param postfix: appended to the scope name
    :param add_tensor_name: enter a sub scope named after ``x``'s op (its base name) as well
    :return: (yields) the variable scope
    """
    scope = get_name_scope_of_tensor(x)
    if add_tensor_name:
        op_base = get_base_name(x if isinstance(x, tf.Operation) else x.op)
        scope = f"{scope}/{op_base}" if scope else op_base
    scope = prefix + scope + postfix
    with reuse_name_scope(scope, absolute=True) as var_scope:
        yield var_scope


@contextlib.contextmanager
def opt_reuse_name_scope(name: Union[str, Any]) -> Iterator[Any]:
    """:param name: a scope name or ``tf.compat.v1.VariableScope`` for :func:`reuse_name_scope`, or empty/None:
        stay in the current scope
    :return: (yields) the variable scope entered, or the current one"""
    if name:
        with reuse_name_scope(name) as scope:
            yield scope
    else:
        yield _v1.get_variable_scope()


def get_valid_scope_name_from_str(s: str) -> str:
    """:param s: any string, e.g. a layer name with spaces, colons or brackets
    :return: a name TF accepts as a scope, as the reference makes it: non-ASCII characters are dropped, ASCII
        characters other than letters, digits and ``_ . / > @ [ ]`` become ``__``, and a first character that is not
        a letter, digit or ``.`` becomes ``.<its code>.`` (``"_x"`` -> ``".95.x"``, ``"a b"`` -> ``"a__b"``)"""
    s = "".join(c for c in s if c.isascii())
    s = re.sub(r"[^A-Za-z0-9_./>@\[\]]", "__", s)
    if s and not re.match(r"[A-Za-z0-9.]", s[0]):
        s = f".{ord(s[0])}.{s[1:]}"
    return s
