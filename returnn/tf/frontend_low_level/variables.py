"""The TF variables of the parameters of an ``rf.Module``: :func:`create_parameter_variables` creates one
``tf.compat.v1`` variable per :class:`returnn.frontend.parameter.Parameter` (its initial value from the parameter's
``initial``) under a name from a naming function, and makes it the parameter's raw tensor."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter

__all__ = ["create_parameter_variables", "default_param_name", "register_dim_sizes"]


def register_dim_sizes(*tensors: Any) -> None:
    """Records, for the current graph, the sizes of the batch and dynamic dims of ``tensors`` (e.g. the extern data)
    from their raw shapes, so that ops creating tensors of these dims (``rf.zeros([batch_dim])``) know them."""
    for x in tensors:
        _utils.register_dim_values(x)


def default_param_name(path: str, param: Parameter) -> str:
    """:return: the module attribute path with ``"/"`` (``"layers.0.filter"`` → ``"layers/0/filter"``)"""
    return path.replace(".", "/")


def create_parameter_variables(module: Module, *, name_fn: Optional[Callable[[str, Parameter], str]] = None,
                               ) -> Dict[str, Any]:
    """Creates the variables of all parameters of ``module`` (each once) in the current graph.

    :param name_fn: ``(path, parameter) -> variable name`` (without ``:0``); default :func:`default_param_name`
    :return: variable name → variable
    :raises FrontendError: two parameters under the same name, a parameter that already has a variable
    """
    name_fn = name_fn or default_param_name
    out: Dict[str, Any] = {}
    for path, param in module.named_parameters():
        name = name_fn(path, param)
        if name in out:
            raise FrontendError("create_parameter_variables", f"two parameters get the variable name {name!r}")
        if param.raw_tensor is not None and isinstance(param.raw_tensor, tf.Variable) and \
                param.raw_tensor.graph is tf.compat.v1.get_default_graph():
            raise FrontendError("create_parameter_variables", f"parameter {path!r} has a variable already",
                                got=param.raw_tensor.name)
        param.raw_tensor = None
        init = param.initial_value()
        raw_init = _utils.aligned_raw(init, param.dims) if init.dims else init.raw_tensor
        if init.dtype != param.dtype:
            raw_init = tf.cast(raw_init, param.dtype)
        var = tf.compat.v1.get_variable(name, initializer=raw_init, trainable=param.is_trainable,
                                        dtype=param.dtype)
        param.raw_tensor = var
        out[name] = var
    return out

