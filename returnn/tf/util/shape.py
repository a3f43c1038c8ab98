"""Shape queries, shape checks and axis moves on raw TF tensors (the legacy ``TFUtil`` helpers configs call).

Static sizes are returned as python ints, unknown ones as int32 scalar tensors, as the reference does. Checks
that can be decided on static shapes raise :class:`TFUtilArgError` (an ``AssertionError``, as the reference) at
graph-construction time; the rest become ``tf.debugging.assert_equal`` ops run with the returned tensor.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Union

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError

IntOrTensor = Union[int, tf.Tensor]


def get_shape(x: Any) -> List[IntOrTensor]:
    """:param x: tensor of known rank
    :return: per axis the static size (int) if known, else the dynamic size (int32 scalar), as the reference
    """
    x = tf.convert_to_tensor(x)
    static = x.shape.as_list()
    if all(d is not None for d in static):
        return static
    with tf.name_scope("get_shape"):
        dyn = tf.shape(x)
        return [d if d is not None else dyn[i] for i, d in enumerate(static)]


def get_shape_dim(x: Any, axis: int, name: str = "shape_dim") -> IntOrTensor:
    """:return: size of ``axis`` (negative counts from the end): int if static, else int32 scalar"""
    x = tf.convert_to_tensor(x)
    d = x.shape[axis]
    if d is not None:
        return int(d)
    with tf.name_scope(name):
        return tf.shape(x)[axis]


def _static_int(v: Any) -> Any:
    """:return: python int if ``v`` is an int or a constant-foldable scalar, else None"""
    if isinstance(v, int):
        return v
    value = tf.get_static_value(v) if isinstance(v, tf.Tensor) else v
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def check_input_dim(x: Any, axis: int, dim: IntOrTensor) -> tf.Tensor:
    """Checks that ``x.shape[axis] == dim``.

    :param dim: expected size (int or int32 scalar)
    :return: ``x`` itself when the check was decided statically, else ``x`` behind an assert op
    :raises TFUtilArgError: statically known and different
    """
    if dim is None:
        raise TFUtilArgError("check_input_dim", "dim is None; expected an int or a scalar int tensor")
    x = tf.convert_to_tensor(x)
    static_dim = x.shape[axis]
    want = dim if isinstance(dim, int) else None  # a tensor is checked when run, as the reference
    if static_dim is not None and want is not None:
        if static_dim != want:
            raise TFUtilArgError("check_input_dim", f"axis {axis} of {x.name} (shape {x.shape}) has size "
                                                    f"{static_dim}, expected {want}")
        return x
    with tf.name_scope("check_input_dim"):
        check = tf.debugging.assert_equal(tf.shape(x)[axis], tf.cast(dim, tf.int32),
                                          message=f"check_input_dim: axis {axis} of {x.name}")
        with tf.control_dependencies([check]):
            return tf.identity(x)


def check_shape_equal(x: Any, y: Any) -> tf.Tensor:
    """Checks that ``x`` and ``y`` have the same shape (rank and sizes).

    :return: ``x`` itself when decided statically, else ``x`` behind an assert op
    :raises TFUtilArgError: ranks differ, or statically known sizes differ
    """
    x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    if x.shape.rank is not None and y.shape.rank is not None and x.shape.rank != y.shape.rank:
        raise TFUtilArgError("check_shape_equal", f"rank of {x.name} {x.shape} differs from {y.name} {y.shape}")
    dynamic_axes = []
    for axis, (a, b) in enumerate(zip(x.shape.as_list(), y.shape.as_list())):
        if a is not None and b is not None:
            if a != b:
                raise TFUtilArgError("check_shape_equal", f"axis {axis}: {x.name} {x.shape} vs {y.name} {y.shape}")
        else:
            dynamic_axes.append(axis)
    if not dynamic_axes:
        return x
    with tf.name_scope("check_shape_equal"):
        checks = [tf.debugging.assert_equal(tf.shape(x)[axis], tf.shape(y)[axis],
                                            message=f"check_shape_equal: axis {axis} of {x.name} vs {y.name}")
                  for axis in dynamic_axes]
        with tf.control_dependencies(checks):
            return tf.identity(x)


def expand_dims_unbroadcast(x: Any, axis: int, dim: IntOrTensor, name: str = "expand_dims_unbroadcast"
                            ) -> tf.Tensor:
    """:return: ``x`` with a new axis ``axis`` (negative: counted in the output) of size ``dim``, the values
    repeated along it (tiled, not broadcast)"""
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x)
        ndim_out = x.shape.rank + 1
        if axis < 0:
            axis += ndim_out
        x = tf.expand_dims(x, axis)
        multiples = [1] * axis + [dim] + [1] * (ndim_out - axis - 1)
        return tf.tile(x, tf.stack(multiples) if any(isinstance(m, tf.Tensor) for m in multiples) else multiples)


def expand_multiple_dims(x: Any, axes: Sequence[int], name: str = "expand_multiple_dims") -> tf.Tensor:
    """:return: ``x`` with ``tf.expand_dims`` applied for each of ``axes`` in order (each axis refers to the
    shape after the previous insertions; negative counts from the end), as the reference"""
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x)
        for i, axis in enumerate(axes):
            x = tf.expand_dims(x, axis, name=f"expand_axis_{i}")
        return x


def move_axis(x: Any, old_axis: int, new_axis: int, name: str = "move_axis") -> tf.Tensor:
    """:return: ``x`` with axis ``old_axis`` moved to position ``new_axis`` (the others keep their order)"""
    x = tf.convert_to_tensor(x)
    ndim = x.shape.rank
    old_axis, new_axis = old_axis % ndim, new_axis % ndim
    if old_axis == new_axis:
        return x
    with tf.name_scope(name):
        perm = [i for i in range(ndim) if i != old_axis]
        perm.insert(new_axis, old_axis)
        return tf.transpose(x, perm)


def swapaxes(x: Any, axis1: int, axis2: int) -> tf.Tensor:
    """:return: ``x`` with ``axis1`` and ``axis2`` exchanged (like ``numpy.swapaxes``)"""
    with tf.name_scope("swapaxes"):
        x = tf.convert_to_tensor(x)
        ndim = x.shape.rank
        axis1, axis2 = axis1 % ndim, axis2 % ndim
        perm = list(range(ndim))
        perm[axis1], perm[axis2] = axis2, axis1
        return tf.transpose(x, perm)


def to_int32_64(x: Any) -> tf.Tensor:
    """:return: ``x`` if int32/int64, other integer dtypes cast to int32 (what ``tf.gather`` & co accept)
    :raises TFUtilArgError: ``x`` is not an integer tensor"""
    x = tf.convert_to_tensor(x)
    if x.dtype in (tf.int32, tf.int64):
        return x
    if not x.dtype.is_integer:
        raise TFUtilArgError("to_int32_64", f"expected an integer tensor, got {x.name} of dtype {x.dtype.name}")
    return tf.cast(x, tf.int32)


def tile_transposed(x: Any, axis: int, multiples: IntOrTensor) -> tf.Tensor:
    """Like ``tf.tile`` on one axis, but each entry is repeated ``multiples`` times in place
    (``[a, b]`` → ``[a, a, b, b]``), as the reference (e.g. for batch → batch*beam, beam inner).

    :param axis: 0 <= axis < rank
    :raises TFUtilArgError: negative or out-of-range axis (the reference rejects those too)
    """
    with tf.name_scope("tile_transposed"):
        x = tf.convert_to_tensor(x)
        ndim = x.shape.rank
        if not 0 <= axis < ndim:
            raise TFUtilArgError("tile_transposed", f"axis {axis} out of range for {x.name} of rank {ndim}; "
                                                    "expected 0 <= axis < rank")
        shape = get_shape(x)
        x = tf.expand_dims(x, axis + 1)
        x = tf.tile(x, [1] * (axis + 1) + [multiples] + [1] * (ndim - axis - 1))
        static_mult = _static_int(multiples)
        new_dim = shape[axis] * (static_mult if static_mult is not None else multiples)
        new_shape = shape[:axis] + [new_dim] + shape[axis + 1:]
        if any(isinstance(d, tf.Tensor) for d in new_shape):
            new_shape = tf.stack([tf.convert_to_tensor(d, tf.int32) for d in new_shape])
        return tf.reshape(x, new_shape)


def check_input_ndim(x: Any, ndim: int) -> tf.Tensor:
    """Checks that ``x`` has rank ``ndim``.

    :return: ``x`` itself when decided statically, else ``x`` behind an assert op
    :raises TFUtilArgError: statically known and different
    """
    x = tf.convert_to_tensor(x)
    if x.shape.rank is not None:
        if x.shape.rank != ndim:
            raise TFUtilArgError("check_input_ndim", f"{x.name} has rank {x.shape.rank} (shape {x.shape}), "
                                                     f"expected {ndim}")
        return x
    with tf.name_scope("check_input_ndim"):
        check = tf.debugging.assert_equal(tf.rank(x), ndim, message=f"check_input_ndim: rank of {x.name}")
        with tf.control_dependencies([check]):
            return tf.identity(x)


def check_input_ndim_equal_offset(x: Any, y: Any, y_ndim_offset: int = 0) -> tf.Tensor:
    """Checks that ``rank(x) == rank(y) + y_ndim_offset``.

    :return: ``x`` itself when decided statically, else ``x`` behind an assert op
    :raises TFUtilArgError: statically known and different
    """
    x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    if x.shape.rank is not None and y.shape.rank is not None:
        if x.shape.rank != y.shape.rank + y_ndim_offset:
            raise TFUtilArgError("check_input_ndim_equal_offset", f"rank of {x.name} {x.shape} != rank of {y.name} "
                                                                  f"{y.shape} + {y_ndim_offset}")
        return x
    with tf.name_scope("check_input_ndim_equal_offset"):
        check = tf.debugging.assert_equal(tf.rank(x), tf.rank(y) + y_ndim_offset,
                                          message=f"check_input_ndim_equal_offset: {x.name} vs {y.name}")
        with tf.control_dependencies([check]):
            return tf.identity(x)


def check_dim_equal(x: Any, x_axis: int, y: Any, y_axis: int, extra_msg: Sequence[Any] = ()) -> tf.Tensor:
    """Checks that ``x.shape[x_axis] == y.shape[y_axis]``.

    :param extra_msg: added to the error message
    :return: ``x`` itself when decided statically, else ``x`` behind an assert op
    :raises TFUtilArgError: statically known and different
    """
    x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    a, b = x.shape[x_axis], y.shape[y_axis]
    if a is not None and b is not None:
        if a != b:
            raise TFUtilArgError("check_dim_equal", f"axis {x_axis} of {x.name} {x.shape} != axis {y_axis} of "
                                                    f"{y.name} {y.shape} {' '.join(map(str, extra_msg))}".rstrip())
        return x
    with tf.name_scope("check_dim_equal"):
        check = tf.debugging.assert_equal(tf.shape(x)[x_axis], tf.shape(y)[y_axis],
                                          message=f"check_dim_equal: {x.name} axis {x_axis} vs {y.name} axis {y_axis}")
        with tf.control_dependencies([check]):
            return tf.identity(x)
