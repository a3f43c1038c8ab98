"""``{"class": "dot", "from": [a, b], "red1": "F", "red2": "F", "var1": "T", "var2": "T?"}``: tensor product
of two inputs, summing over ``red1`` of ``a`` and ``red2`` of ``b`` (as ``tf.einsum``).

Reduce axes pair up in order: a static axis with one of the same size, a dynamic axis only with the same Dim.
Shapes: the axes of ``a`` and ``b`` that are neither reduced nor listed in ``var1``/``var2`` are common axes.
They are matched as the reference does: batch with batch, the same Dim with itself, then a remaining static axis
of ``a`` with the first remaining static axis of ``b`` of the same size (e.g. the heads axes of two separate
``split_dims`` layers); an unmatched axis (e.g. two time axes of different lengths) is an error.
Output ``{common..., var1..., var2...}`` in that order (float32), the common axes with ``a``'s Dims. With
``add_var2_if_empty`` (default True) and no ``var2`` axes (``var2=None`` or an optional ``"T?"`` that is absent),
a size-1 axis ``'<name>:dot:dummy-var2'`` is appended, as the reference does (e.g. attention energies
``(B, H, enc-T, 1)`` of keys ``(B, enc-T, H, D)`` and a query ``(B, H, D)`` in a rec loop).
The output's time axis is its first dynamic axis; its feature axis is its last static axis other than batch and
time, else its last axis other than batch and time (the reference's defaults, so the dummy axis is the feature
axis where present).
With ``use_mask`` (default True), the padded frames of a reduced dynamic axis count as 0 (as the reference).
``red*``/``var*``: an axis description (``"F"``, ``"T"``, ``"T?"``, ``"static:0"``, ``"spatial:-1"``, ``"stag:…"``,
an int counting the batch axis, ...) or a list of them; ``var*`` may be None (no free axes of that input).
"""

from __future__ import annotations

import string
from typing import Any, List, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError, TensorArgError
from returnn.tensor import Dim, Tensor
from returnn.tensor.dim import SpatialDim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _axes(data: Tensor, desc: Any) -> List[int]:
    if desc is None:
        return []
    if isinstance(desc, (list, tuple)):
        return [a for d in desc for a in data.get_axes_from_description(d)]
    return data.get_axes_from_description(desc)


def _match_common(a: Tensor, b: Tensor, common_a: List[int], common_b: List[int], name: str) -> List[Tuple[int, int]]:
    """Pairs each common axis of ``a`` with one of ``b``: batch/same Dim first, then static axes of equal size in
    order. :raises LayerShapeError: an axis left without counterpart on either side"""
    match = {}
    free_b = list(common_b)
    for i in common_a:
        da = a.dims[i]
        j = next((j for j in free_b if b.dims[j] == da or (da.is_batch_dim() and b.dims[j].is_batch_dim())), None)
        if j is not None:
            match[i] = j
            free_b.remove(j)
    for i in common_a:
        da = a.dims[i]
        if i in match or da.dimension is None or da.is_batch_dim():
            continue
        j = next((j for j in free_b if b.dims[j].dimension == da.dimension and not b.dims[j].is_batch_dim()), None)
        if j is not None:
            match[i] = j
            free_b.remove(j)
    for i in common_a:
        if i not in match:
            raise LayerShapeError(layer=name, layer_class="dot", problem=f"axis {a.dims[i].short_repr()} of the first "
                                  "input has no counterpart in the second", got=b.get_dims_repr(),
                                  hint="list it in var1, or reduce it with red1")
    if free_b:
        raise LayerShapeError(layer=name, layer_class="dot", problem="the second input has unmatched axes",
                              got=b.get_dims_repr(), hint="list them in var2")
    return [(i, match[i]) for i in common_a]


def _same_size(da: Dim, db: Dim) -> bool:
    """Reduce axes pair up if they are the same Dim, or both static of the same size (a dynamic axis only with
    itself, as the reference: two time axes of different lengths are rejected)."""
    if da == db:
        return True
    return da.dimension is not None and da.dimension == db.dimension


def _plan(a: Tensor, b: Tensor, red1: Any, red2: Any, var1: Any, var2: Any, name: str):
    ra, rb = _axes(a, red1), _axes(b, red2)
    if len(ra) != len(rb) or any(not _same_size(a.dims[i], b.dims[j]) for i, j in zip(ra, rb)):
        raise LayerShapeError(layer=name, layer_class="dot", problem="reduce axes do not match",
                              expected=f"red1 of {a.get_dims_repr()} matching red2 of {b.get_dims_repr()}",
                              got=f"red1={red1!r}, red2={red2!r}")
    va, vb = _axes(a, var1), _axes(b, var2)
    common_a = [i for i in range(a.batch_ndim) if i not in ra and i not in va]
    common_b = [j for j in range(b.batch_ndim) if j not in rb and j not in vb]
    pairs = _match_common(a, b, common_a, common_b, name)
    return ra, rb, va, vb, pairs


def _masked(data: Tensor, x: tf.Tensor, axis: int) -> tf.Tensor:
    """:return: ``x`` with the padded frames of the dynamic ``axis`` of ``data`` set to 0 (unchanged for a static
    axis, or without a batch axis or known lengths)"""
    if data.dims[axis].dimension is not None or data.batch_dim_axis is None:
        return x
    try:
        mask = data.get_sequence_mask_broadcast(axis)
    except TensorArgError:  # no lengths known for this axis: nothing to mask
        return x
    return tf.where(mask, x, tf.zeros_like(x))


def _default_axes(dims: Sequence[Dim]) -> Tuple[Any, Any]:
    """:return: (time axis, feature axis) as the reference's defaults for the dot output"""
    time_axis = next((k for k, d in enumerate(dims) if d.dimension is None and not d.is_batch_dim()), None)
    rest = [k for k, d in enumerate(dims) if not d.is_batch_dim() and k != time_axis]
    static = [k for k in rest if dims[k].dimension is not None]
    feat = static[-1] if static else (rest[-1] if rest else None)
    return time_axis, feat


@register_layer
class DotLayer(LayerBase):
    """See the module docstring."""

    layer_class = "dot"

    def __init__(self, red1: Any = -1, red2: Any = -2, var1: Any = -2, var2: Any = -1, add_var2_if_empty: bool = True,
                 use_mask: bool = True, debug: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        a, b = self.sources[0].output, self.sources[1].output
        ra, rb, va, vb, pairs = _plan(a, b, red1, red2, var1, var2, self.name)
        x_a, x_b = tf.cast(a.placeholder, tf.float32), tf.cast(b.placeholder, tf.float32)
        if use_mask:
            for i, j in zip(ra, rb):
                x_a, x_b = _masked(a, x_a, i), _masked(b, x_b, j)
        letters = iter(string.ascii_letters)
        la = [""] * a.batch_ndim
        lb = [""] * b.batch_ndim
        for i, j in pairs:
            la[i] = lb[j] = next(letters)
        for i, j in zip(ra, rb):
            la[i] = lb[j] = next(letters)
        for i in va:
            la[i] = next(letters)
        for j in vb:
            lb[j] = next(letters)
        out = "".join(la[i] for i, _ in pairs) + "".join(la[i] for i in va) + "".join(lb[j] for j in vb)
        y = self.network.amp.einsum(f"{''.join(la)},{''.join(lb)}->{out}", x_a, x_b)  # tf_amp: float32 out
        if not vb and add_var2_if_empty:
            y = tf.expand_dims(y, -1)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), red1: Any = -1,
                               red2: Any = -2, var1: Any = -2, var2: Any = -1, add_var2_if_empty: bool = True,
                               **kwargs: Any) -> Tensor:
        """:return: ``{common..., var1..., var2...}`` (plus a size-1 ``dummy-var2`` axis, see the module docstring)
        :raises LayerShapeError: reduce axes of different sizes, unmatched common axes"""
        if len(sources) != 2:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs exactly two sources",
                                  got=str([s.name for s in sources]))
        a, b = sources[0].output, sources[1].output
        ra, rb, va, vb, pairs = _plan(a, b, red1, red2, var1, var2, name)
        dims = [a.dims[i] for i, _ in pairs] + [a.dims[i] for i in va] + [b.dims[j] for j in vb]
        if not vb and add_var2_if_empty:
            dims.append(SpatialDim(f"{name}:dot:dummy-var2", 1))
        time_axis, feat = _default_axes(dims)
        return Tensor(name=f"{name}_output", dims=dims, dtype="float32", time_dim_axis=time_axis,
                      feature_dim_axis=feat)
