"""``{"class": "dot", "from": [a, b], "red1": "F", "red2": "F", "var1": "T", "var2": "T?"}``: tensor product
of two inputs, summing over ``red1`` of ``a`` and ``red2`` of ``b`` (as ``tf.einsum``).

Shapes: the axes of ``a`` and ``b`` that are neither reduced nor listed in ``var1``/``var2`` are common axes,
matched by Dim (batch with batch); output ``{common..., var1..., var2...}`` in that order (float32).
``red*``/``var*``: an axis description or a list of them; ``var*`` may be None (no free axes of that input).
"""

from __future__ import annotations

import string
from typing import Any, List, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _axes(data: Tensor, desc: Any) -> List[int]:
    if desc is None:
        return []
    if isinstance(desc, (list, tuple)):
        return [a for d in desc for a in data.get_axes_from_description(d)]
    return data.get_axes_from_description(desc)


def _plan(a: Tensor, b: Tensor, red1: Any, red2: Any, var1: Any, var2: Any, name: str):
    ra, rb = _axes(a, red1), _axes(b, red2)
    if len(ra) != len(rb) or any(a.dims[i].dimension != b.dims[j].dimension for i, j in zip(ra, rb)):
        raise LayerShapeError(layer=name, layer_class="dot", problem="reduce axes do not match",
                              expected=f"red1 of {a.get_dims_repr()} matching red2 of {b.get_dims_repr()}",
                              got=f"red1={red1!r}, red2={red2!r}")
    va, vb = _axes(a, var1), _axes(b, var2)
    common_a = [i for i in range(a.batch_ndim) if i not in ra and i not in va]
    common_b = [i for i in range(b.batch_ndim) if i not in rb and i not in vb]
    pairs: List[Tuple[int, int]] = []
    for i in common_a:
        match = [j for j in common_b if j not in [p[1] for p in pairs]
                 and (b.dims[j] == a.dims[i] or (a.dims[i].is_batch_dim() and b.dims[j].is_batch_dim()))]
        if not match:
            raise LayerShapeError(layer=name, layer_class="dot", problem=f"axis {a.dims[i].short_repr()} of the first "
                                  "input has no counterpart in the second", got=b.get_dims_repr(),
                                  hint="list it in var1, or reduce it with red1")
        pairs.append((i, match[0]))
    if len(pairs) != len(common_b):
        raise LayerShapeError(layer=name, layer_class="dot", problem="the second input has unmatched axes",
                              got=b.get_dims_repr(), hint="list them in var2")
    return ra, rb, va, vb, pairs


@register_layer
class DotLayer(LayerBase):
    """See the module docstring."""

    layer_class = "dot"

    def __init__(self, red1: Any = -1, red2: Any = -2, var1: Any = -2, var2: Any = -1, add_var2_if_empty: bool = True,
                 debug: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        a, b = self.sources[0].output, self.sources[1].output
        ra, rb, va, vb, pairs = _plan(a, b, red1, red2, var1, var2, self.name)
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
        self.output.placeholder = tf.einsum(f"{''.join(la)},{''.join(lb)}->{out}",
                                            tf.cast(a.placeholder, tf.float32), tf.cast(b.placeholder, tf.float32))

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), red1: Any = -1,
                               red2: Any = -2, var1: Any = -2, var2: Any = -1, **kwargs: Any) -> Tensor:
        """:return: ``{common..., var1..., var2...}``
        :raises LayerShapeError: reduce axes of different sizes, unmatched common axes"""
        if len(sources) != 2:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs exactly two sources",
                                  got=str([s.name for s in sources]))
        a, b = sources[0].output, sources[1].output
        ra, rb, va, vb, pairs = _plan(a, b, red1, red2, var1, var2, name)
        dims = [a.dims[i] for i, _ in pairs] + [a.dims[i] for i in va] + [b.dims[j] for j in vb]
        time_axis = next((k for k, d in enumerate(dims) if d.is_dynamic()), None)
        feat = next((k for k, d in enumerate(dims) if d.is_feature_dim()), None)
        return Tensor(name=f"{name}_output", dims=dims, dtype="float32", time_dim_axis=time_axis,
                      feature_dim_axis=feat)
