"""``{"class": "slice_nd", "from": "base:encoder", "start": "p_start", "size": 5}``: per-sequence slices.

Shape: input ``{B, T, rest..}`` (``axis``, default ``"T"``), ``start`` int ``{B, S..}`` ->
``{B, S.., W, rest..}`` with ``out[b, s.., w] = in[b, start[b, s..] + w]``; frames outside ``[0, length[b])`` of the
input (negative starts, past the end) are 0, as the reference. ``W`` is a new dim ``'sliced-time:<layer>'``: static
``size``, or with ``size=None`` dynamic with lengths ``max(length - start, min_size)`` per slice (its
``dyn_size_ext`` has the start's dims ``{B, S..}``, as the reference); ``size`` as a layer (int, the start's dims
or fewer): dynamic with these lengths per slice, frames past them 0; ``start`` defaults to 0; a ``Dim`` as ``size`` (e.g. the config's time Dim that ``extern_data`` also uses) is ``W``
itself, as the reference's output template shows (``[B,T|'time:var:extern_data:data',F]``): windows of its
lengths, frames past a sequence's length 0. ``out_spatial_dim`` is declared the same as ``W``. The time axis is the
start's if it has one, else ``W`` if dynamic. The output tensor is named ``'<layer>_gather_output'``, as the
reference names it.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class SliceNdLayer(ConcatInputLayer):
    """Gathers a window of ``size`` frames from ``start`` for every sequence (and every extra start position)."""

    layer_class = "slice_nd"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, size: Union[int, Dim, LayerBase, None], start: Union[LayerBase, int, None] = 0,
                 min_size: Optional[int] = None, axis: Any = "T", out_spatial_dim: Optional[Dim] = None,
                 **kwargs: Any):
        """
        :param size: window length: an int, a Dim, a layer with int lengths, or None (up to the sequence end)
        :param start: layer with int start positions per sequence (and per extra position), or an int (default 0)
        :param min_size: with ``size=None``: the minimal window length
        :param axis: the axis to slice (default ``"T"``)
        :param out_spatial_dim: the Dim of the window axis (declared the same as the computed one)
        """
        super().__init__(**kwargs)
        if start is None:
            start = 0
        self.start = start
        self.size = size
        inp = self.input_data.copy_as_batch_major()
        ax = inp.get_axis_from_description(axis)
        x = inp.placeholder
        if ax != 1:
            x = tf.transpose(x, [0, ax] + [i for i in range(1, inp.batch_ndim) if i != ax])
        raw_len = tf.shape(x)[1]
        d = inp.dims[ax]
        lengths = d.dyn_size if d.dimension is None and d.dyn_size is not None else tf.fill([tf.shape(x)[0]], raw_len)
        if isinstance(start, int):  # the same start for every sequence
            st, st_raw = None, tf.fill(tf.shape(x)[:1], start)
        else:
            st = start.output.copy_as_batch_major() if start.output.batch_dim_axis is not None else start.output
            st_raw = tf.cast(st.placeholder, tf.int32)
        if st is not None and st.batch_dim_axis is None:
            st_raw = tf.broadcast_to(st_raw, tf.concat([tf.shape(x)[:1], tf.shape(st_raw)], axis=0))
        n_extra = st_raw.shape.rank - 1
        lens_bc = tf.reshape(lengths, [-1] + [1] * n_extra)
        size_lens = None  # [B, 1..] or [B, S..]: the window lengths of a dynamic Dim or a layer `size`
        out_dim = self.output.dims[1 + n_extra]
        if isinstance(size, Dim) and size.dimension is None:
            size_lens = tf.reshape(size.dyn_size, [-1] + [1] * n_extra)
            win = tf.reduce_max(size.dyn_size)
        elif isinstance(size, Dim):
            win = size.dimension
        elif _is_layer(size):  # per-slice sizes, with the start's dims
            sz = _as_start_dims(self.name, size.output, st, n_extra)
            size_lens = tf.broadcast_to(tf.cast(sz, tf.int32), tf.shape(st_raw))
            win = tf.maximum(tf.reduce_max(size_lens), 0)
            out_dim.dyn_size_ext = _sizes_tensor(self.output, n_extra, size_lens)
        elif size is None:
            sizes = tf.maximum(lens_bc - st_raw, min_size or 0)
            win = tf.reduce_max(sizes)
            out_dim.dyn_size_ext = _sizes_tensor(self.output, n_extra, sizes)
        else:
            win = size
        idx = tf.expand_dims(st_raw, -1) + tf.range(win)  # [B, S.., W]
        valid = tf.logical_and(idx >= 0, idx < tf.expand_dims(lens_bc, -1))
        if size_lens is not None:  # frames past the sequence's window length are 0
            valid = tf.logical_and(valid, tf.range(win) < tf.expand_dims(size_lens, -1))
        idx = tf.clip_by_value(idx, 0, tf.maximum(raw_len - 1, 0))
        y = tf.gather(x, idx, axis=1, batch_dims=1)  # [B, S.., W, rest..]
        mask = tf.reshape(valid, tf.concat([tf.shape(valid), tf.ones([inp.batch_ndim - 2], tf.int32)], axis=0))
        self.output.placeholder = tf.where(tf.broadcast_to(mask, tf.shape(y)), y, tf.zeros_like(y))

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [x for x in (self.start, self.size) if _is_layer(x)]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("start", "size"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), start: Union[LayerBase, int, None] = 0,
                               size: Union[int, Dim, LayerBase, None] = None, axis: Any = "T",
                               out_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: start not int, size not an int, Dim, int layer or None
        :raises LayerShapeError: input without batch axis"""
        if start is None:
            start = 0
        int_start = isinstance(start, int) and not isinstance(start, bool)  # as the reference: e.g. "start": 0
        if not int_start and (start is None or not hasattr(start, "output")
                              or not start.output.dtype.startswith(("int", "uint"))):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="start",
                                problem="missing required argument" if start is None else "invalid value",
                                got=start, expected="a layer with int start positions, or an int")
        size_layer = _is_layer(size)
        if size_layer and not size.output.dtype.startswith(("int", "uint")):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="size", problem="invalid value",
                                got=size, expected="a layer with int sizes, an int >= 0, a Dim or None")
        if size is not None and not size_layer and not isinstance(size, Dim) and (
                not isinstance(size, int) or isinstance(size, bool) or size < 0):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="size", problem="invalid value",
                                got=size, expected="an int >= 0, a Dim, a layer with int sizes or None")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.batch_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs an input with a batch axis",
                                  got=repr(inp))
        inp = inp.copy_as_batch_major()
        ax = inp.get_axis_from_description(axis)
        if int_start:
            st = Tensor(name=f"{name}_start", dims=[inp.dims[0]], dtype="int32")
        else:
            st = start.output.copy_as_batch_major() if start.output.batch_dim_axis is not None else start.output
        st_dims = [d for d in st.dims if not d.is_batch_dim()]
        base = name.split("/")[-1]
        if isinstance(size, Dim):
            new_dim = size
        elif size is None or size_layer:  # lengths per slice: dims of the start (with batch)
            new_dim = SpatialDim(f"sliced-time:{base}", None)
            new_dim.dyn_size_ext = Tensor(name=f"{base}_size", dims=[inp.dims[0]] + st_dims, dtype="int32")
        else:
            new_dim = SpatialDim(f"sliced-time:{base}", size)
        if out_spatial_dim is not None:
            out_spatial_dim.declare_same_as(new_dim)
        rest = [d for i, d in enumerate(inp.dims) if i not in (0, ax)]
        dims = [inp.dims[0]] + st_dims + [new_dim] + rest
        if st.time_dim_axis is not None:
            time_axis = 1 + st_dims.index(st.dims[st.time_dim_axis])
        elif size is None or size_layer or (isinstance(size, Dim) and size.dimension is None):
            time_axis = 1 + len(st_dims)
        else:
            time_axis = None
        feature_axis = dims.index(inp.feature_dim) if inp.feature_dim is not None and inp.feature_dim in rest else None
        return Tensor(name=f"{base}_gather_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis,
                      available_for_inference=inp.available_for_inference and st.available_for_inference)


def _is_layer(x: Any) -> bool:
    """:return: whether ``x`` is a layer (also a rec loop's template layer)"""
    return hasattr(x, "output") and not isinstance(x, (Dim, int))


def _as_start_dims(name: str, x: Tensor, st: Optional[Tensor], n_extra: int) -> tf.Tensor:
    """:return: the raw ``x`` (per-slice sizes) with the start's axes ``[B, S..]`` (missing ones size 1)"""
    if st is None or x.batch_dim_axis is None:
        raw = x.placeholder
        return tf.reshape(raw, [-1] + [1] * n_extra) if x.batch_ndim == 0 else raw
    order = [x.dims.index(d) for d in st.dims if d in x.dims]
    if sorted(order) != list(range(x.batch_ndim)):
        raise LayerShapeError(layer=name, layer_class="slice_nd", problem="size needs the start's dims",
                              got=repr(x), expected=repr(st))
    raw = tf.transpose(x.placeholder, order) if order != list(range(x.batch_ndim)) else x.placeholder
    for i, d in enumerate(st.dims):
        if d not in x.dims:
            raw = tf.expand_dims(raw, i)
    return raw


def _sizes_tensor(out: Tensor, n_extra: int, sizes: tf.Tensor) -> Tensor:
    """:return: the lengths ``[B, S..]`` of the slice axis as a Tensor (the output's first ``1 + n_extra`` dims)"""
    return Tensor(name=f"{out.name}_size", dims=list(out.dims[:1 + n_extra]), dtype="int32", placeholder=sizes)
