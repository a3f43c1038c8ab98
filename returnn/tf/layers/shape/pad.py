"""``{"class": "pad", "axes": "T", "padding": (1, 2), "value": 0, "mode": "constant"}``: pad axes.

``padding``: an int (both sides), a pair ``(left, right)``, or a list of pairs (one per axis). Dynamic axes get
lengths ``len + left + right``; as the reference, the padding is added to the raw (padded) tensor, so for a
sequence shorter than the batch maximum the right padding lies after the batch's padded frames (which are set
to 0 here, so results equal the reference's on zero-padded batches); static axes grow by ``left + right``. ``mode``: ``constant``, ``reflect``,
``symmetric``, ``replication`` (repeat the edge frames). ``handle_dynamic_dims=False``: no zeroing of the padded frames
of a dynamic axis first. A padding of 0 on both sides keeps the axis as it is (same dim). The padded axis is the
dim expression ``left + d + right`` (a zero side left out), as the reference: two layers with the same padding share
it, and a valid conv of filter ``left + right + 1`` afterwards has ``d`` itself again (with its lengths tensor).
``out_dims``: the Dims of the padded axes (one, or a list with one per axis), instead of new ones (as the reference).
"""

from __future__ import annotations

from typing import Any, List, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import mask_padded


def _paddings(axes: List[int], padding: Any, name: str, layer_class: str) -> List[Tuple[int, int]]:
    if isinstance(padding, int):
        return [(padding, padding)] * len(axes)
    padding = list(padding)
    if len(padding) == 2 and all(isinstance(p, int) for p in padding):
        return [tuple(padding)] * len(axes)
    if len(padding) != len(axes):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="padding",
                            problem=f"needs one (left, right) pair per axis ({len(axes)}):", got=padding)
    return [(p, p) if isinstance(p, int) else tuple(p) for p in padding]


@register_layer
class PadLayer(ConcatInputLayer):
    """Pads ``axes`` with ``value``."""

    layer_class = "pad"

    def __init__(self, axes: Any, padding: Any, out_dims: Any = None, value: float = 0, mode: str = "constant",
                 handle_dynamic_dims: Any = None, **kwargs: Any):
        """:param handle_dynamic_dims: for a dynamic axis (default True): zero the padded frames of shorter
            sequences first and add the padding to the lengths; False pads the raw tensor only (the lengths
            still grow by the padding)
        :param axes: the axis (or axes) to pad
        :param padding: an int (both sides), a pair ``(left, right)``, or one pair per axis
        :param out_dims: the Dims of the padded axes (one, or one per axis) instead of new ones
        :param value: the value of the new frames with ``mode="constant"`` (default 0)
        :param mode: ``"constant"``, ``"reflect"``, ``"symmetric"`` or ``"replication"``
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axes_from_description(axes)
        pads = _paddings(ax, padding, self.name, self.layer_class)
        x = inp.placeholder
        for a, (left, right) in zip(ax, pads):
            if not left and not right:
                continue
            d = inp.dims[a]
            spec = [[0, 0]] * inp.batch_ndim
            spec[a] = [left, right]
            dynamic = d.is_dynamic() and d.dyn_size is not None
            if dynamic and handle_dynamic_dims is not False:
                tmp = inp.copy()
                tmp.placeholder = x
                x = mask_padded(tmp, a, 0)
            if mode == "replication":
                x = _pad_replicate(x, a, left, right)
            elif mode == "constant":
                x = tf.pad(x, spec, constant_values=value)
            else:
                x = tf.pad(x, spec, mode=mode.upper())
            out_dim = self.output.dims[a]
            # a derived dim shared with another layer keeps its lengths; a given out_dims gets them (maybe anew)
            if dynamic and out_dim is not d and (out_dims is not None or out_dim.dyn_size is None):
                out_dim.dyn_size = d.dyn_size + left + right
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, padding: Any = 0,
                               out_dims: Any = None, mode: str = "constant", **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown ``mode``; ``out_dims`` not one Dim per padded axis"""
        if mode not in ("constant", "reflect", "symmetric", "replication"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value", got=mode,
                                expected="constant | reflect | symmetric | replication")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axes_from_description(axes)
        out = inp
        if out_dims is not None:
            out_dims = list(out_dims) if isinstance(out_dims, (list, tuple)) else [out_dims]
            if len(out_dims) != len(ax) or not all(isinstance(d, Dim) for d in out_dims):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_dims",
                                    problem=f"needs one Dim per padded axis ({len(ax)}):", got=out_dims)
        for k, (a, (left, right)) in enumerate(zip(ax, _paddings(ax, padding, name, cls.layer_class))):
            if out_dims is not None:
                out = out.copy_template_replace_dim(a, out_dims[k])
                continue
            if not left and not right:  # no-op: the axis keeps its dim
                continue
            new = inp.dims[a]
            if left:
                new = left + new
            if right:
                new = new + right
            out = out.copy_template_replace_dim(a, new)
        return out


def _pad_replicate(x: tf.Tensor, axis: int, left: int, right: int) -> tf.Tensor:
    """Pads ``axis`` by repeating its first frame ``left`` times and its last frame ``right`` times."""
    parts = []
    if left:
        first = tf.gather(x, [0], axis=axis)
        parts.append(tf.repeat(first, left, axis=axis))
    parts.append(x)
    if right:
        last = tf.gather(x, [tf.shape(x)[axis] - 1], axis=axis)
        parts.append(tf.repeat(last, right, axis=axis))
    return tf.concat(parts, axis=axis)
