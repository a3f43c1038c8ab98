"""Initial outputs (``initial_output``) of layers inside a rec unit: the value ``prev:X`` has at step 0.

Accepted (as the reference): None / ``"zeros"`` / 0 (default: zeros; label 0 for sparse layers such as
``choice``), ``"ones"``, a number, ``"var"`` (a trainable variable ``<layer>/init_<layer>_var`` of the frame
shape, zeros-initialised), ``"apply(0)"`` (zeros, see note), or the name of a layer outside the loop
(``"base:X"``) whose output has the frame's shape ``{B, ...}``.

Note: ``"apply(0)"`` is accepted and gives zeros; the reference applies the layer to zero inputs, which equals
zeros for bias-free linear layers (and differs otherwise).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerNotFound
from returnn.tensor import Tensor

_CONST = {"zeros": 0, "ones": 1, "apply(0)": 0}


def check_initial_output(full_name: str, layer_class: str, spec: Any, frame: Tensor,
                         get_base_layer: Callable[[str], Any]) -> None:
    """Construction-time check that ``prev:<layer>`` has a defined value at step 0.

    :raises LayerArgError: ``initial_output`` of an unknown kind, a layer of the wrong shape, or a frame with a
        dynamic axis whose lengths are not known before the loop (then no zeros can be built)
    """
    if isinstance(spec, str) and spec not in _CONST and spec != "var":
        try:
            layer = get_base_layer(spec)
        except LayerNotFound as exc:
            raise LayerArgError(layer=full_name, layer_class=layer_class, arg="initial_output",
                                problem="'prev:' is used but there is no defined initial output:", got=spec,
                                expected='None, "zeros", "ones", a number, "var", "apply(0)" or a layer outside '
                                         'the loop ("base:X")', suggestions=exc.suggestions) from None
        out = layer.output
        if out.batch_ndim != frame.batch_ndim or out.dim != frame.dim:
            raise LayerArgError(layer=full_name, layer_class=layer_class, arg="initial_output",
                                problem=f"layer {spec!r} does not have the frame shape needed for 'prev:' in",
                                expected=frame.get_dims_repr(), got=out.get_dims_repr())
        return
    if spec is not None and not isinstance(spec, (str, int, float)):
        raise LayerArgError(layer=full_name, layer_class=layer_class, arg="initial_output", problem="invalid value",
                            got=spec, expected='None, "zeros", "ones", a number, "var", "apply(0)" or a layer name')
    for d in frame.dims:
        if d.is_dynamic() and d.dyn_size is None:
            raise LayerArgError(layer=full_name, layer_class=layer_class, arg="initial_output",
                                problem="'prev:' is used but there is no defined initial output for",
                                got=spec, expected=f"an initial_output layer with shape {frame.get_dims_repr()}",
                                hint=f"its output has the axis {d.short_repr()} whose length is only known inside "
                                     "the loop; set initial_output to a layer outside the loop (\"base:...\")")


def initial_output_value(spec: Any, frame: Tensor, batch_size: tf.Tensor, get_base_layer: Callable[[str], Any],
                         var_scope_name: Optional[str] = None) -> tf.Tensor:
    """:return: raw tensor with the frame's dims (batch axis of size ``batch_size``), the value at step 0"""
    if isinstance(spec, str) and spec not in _CONST and spec != "var":
        out = get_base_layer(spec).output
        perm = [next(i for i, d in enumerate(out.dims) if d == fd or (fd.is_batch_dim() and d.is_batch_dim())
                     or (fd.is_feature_dim() and d.is_feature_dim())) for fd in frame.dims]
        return tf.cast(out.copy_transpose(perm).placeholder, frame.dtype)
    shape = []
    for d in frame.dims:
        if d.is_batch_dim():
            shape.append(batch_size)
        elif d.dimension is not None:
            shape.append(d.dimension)
        else:
            shape.append(tf.reduce_max(d.dyn_size))
    if spec == "var":
        static = [d.dimension for d in frame.dims if not d.is_batch_dim()]
        with tf.compat.v1.variable_scope(var_scope_name or "initial"):
            # named as the reference (observed): <layer>/init_<layer>_var
            var_name = f"init_{(var_scope_name or 'initial').split('/')[-1]}_var"
            var = tf.compat.v1.get_variable(var_name, shape=static, dtype=frame.dtype,
                                            initializer=tf.zeros_initializer())
        batch_axis = frame.batch_dim_axis
        value = tf.expand_dims(var, batch_axis) if batch_axis is not None else var
        return tf.tile(value, [batch_size if i == batch_axis else 1 for i in range(frame.batch_ndim)])
    value = _CONST.get(spec, spec) if spec is not None else 0
    return tf.fill(tf.stack(shape) if shape else [], tf.cast(value, frame.dtype))
