"""``{"class": "repeat", "repetitions": 2, "axis": "T"}``: repeats every frame of an axis (``np.repeat``).

``repetitions`` is an int, or a layer (a layer name in the config) with int per-frame counts, e.g. ``{B, T}``
durations, whose frames are matched to ``axis``: the axis itself when the counts have it, else the counts' only
non-batch axis (same static size, or both dynamic).

Shape: with an int, the axis becomes ``dim * repetitions`` (``'time:var:extern_data:data*2'``, as the reference) or
``out_dim``; with per-frame counts a new dynamic dim ``'repeated:<layer>'`` (or ``out_dim``) whose lengths are the
per-sequence sums of the counts (frames past the counts' lengths count 0). The axis is moved right after the batch
axis (as the reference orders the output); an input without a batch axis gets the counts' batch axis. Dynamic
axes: frames past a sequence's new length are 0 (the padded frames are not repeated into it).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_mul


def _order(inp: Tensor, ax: int) -> list:
    lead = [inp.batch_dim_axis] if inp.batch_dim_axis is not None else []
    return lead + [ax] + [i for i in range(inp.batch_ndim) if i not in lead and i != ax]


def _counts_axis(name: str, counts: Tensor, dim: Dim) -> int:
    """:return: the axis of ``counts`` with one count per frame of ``dim``

    :raises LayerArgError: the counts have other axes than batch and that one, or none that matches ``dim``
    """
    other = [i for i, d in enumerate(counts.dims) if not d.is_batch_dim()]
    if dim in counts.dims:
        found = counts.dims.index(dim)
    elif len(other) == 1 and counts.dims[other[0]].dimension == dim.dimension:
        found = other[0]
    else:
        found = None
    if found is None or len(other) != 1:
        raise LayerArgError(layer=name, layer_class=RepeatLayer.layer_class, arg="repetitions",
                            problem="has no axis of per-frame counts matching the repeated axis:", got=repr(counts),
                            expected=f"int counts with the axes [B,] {dim!r} (e.g. durations {{B, T}})")
    return found


def _repeat_per_frame(x: tf.Tensor, counts: tf.Tensor, count_lens: Optional[tf.Tensor]) -> Any:
    """``x`` ``[B|1, T, ...]``, ``counts`` int ``[B|1, T]``, ``count_lens`` ``[B|1]`` or None (all frames count).

    :return: ``(y [B, T', ...], new lengths [B])``; frames of ``y`` past a sequence's new length are 0
    """
    counts = tf.cast(counts, tf.int32)
    n_time = tf.shape(counts)[1]
    if count_lens is not None:
        counts = tf.where(tf.range(n_time)[None, :] < tf.reshape(count_lens, [-1, 1]), counts, tf.zeros_like(counts))
    n_batch = tf.maximum(tf.shape(x)[0], tf.shape(counts)[0])
    x = tf.broadcast_to(x, tf.concat([[n_batch], tf.shape(x)[1:]], axis=0))
    counts = tf.broadcast_to(counts, [n_batch, n_time])
    ends = tf.cumsum(counts, axis=1)  # [B, T]: end position (exclusive) of each frame's copies
    new_lens = tf.reduce_sum(counts, axis=1)  # [B]
    positions = tf.broadcast_to(tf.range(tf.reduce_max(new_lens))[None, :], [n_batch, tf.reduce_max(new_lens)])
    src = tf.minimum(tf.searchsorted(ends, positions, side="right"), tf.maximum(n_time - 1, 0))  # [B, T']
    y = tf.gather(x, src, axis=1, batch_dims=1)
    valid = positions < new_lens[:, None]
    valid = tf.reshape(valid, tf.concat([tf.shape(valid), tf.ones([y.shape.rank - 2], tf.int32)], axis=0))
    return tf.where(tf.broadcast_to(valid, tf.shape(y)), y, tf.zeros_like(y)), new_lens


@register_layer
class RepeatLayer(ConcatInputLayer):
    """Repeats each frame along ``axis`` (``repetitions``: an int or a layer of per-frame int counts)."""

    layer_class = "repeat"

    def __init__(self, repetitions: Any, axis: Any = "T", out_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param repetitions: how often each frame is repeated: an int, or a layer with int counts per frame
        :param axis: the axis whose frames are repeated (default ``"T"``)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        order = _order(inp, ax)
        x = tf.transpose(inp.placeholder, order)
        rep_axis = order.index(ax)
        d = inp.dims[ax]
        if isinstance(repetitions, LayerBase):
            self.extra_deps.append(repetitions)
            self.output.placeholder = self._repeat_by_layer(x, rep_axis, d, repetitions.output)
            return
        y = tf.repeat(x, repetitions, axis=rep_axis)
        if d.dimension is None and d.dyn_size is not None and inp.batch_dim_axis is not None:
            new_len = d.dyn_size * repetitions
            mask = tf.sequence_mask(new_len, maxlen=tf.shape(y)[rep_axis])  # [B, T']
            mask = tf.reshape(mask, tf.concat([tf.shape(mask), tf.ones([y.shape.rank - 2], tf.int32)], axis=0))
            y = tf.where(tf.broadcast_to(mask, tf.shape(y)), y, tf.zeros_like(y))
        self.output.placeholder = y

    def _repeat_by_layer(self, x: tf.Tensor, rep_axis: int, dim: Dim, counts: Tensor) -> tf.Tensor:
        """:return: the output raw tensor (and sets the new dim's lengths if not known yet)"""
        has_batch = rep_axis == 1
        if not has_batch:
            x = x[None]
        c_ax = _counts_axis(self.name, counts, dim)
        c_order = ([counts.batch_dim_axis] if counts.batch_dim_axis is not None else []) + [c_ax]
        c = tf.transpose(counts.placeholder, c_order)
        if counts.batch_dim_axis is None:
            c = c[None]
        c_dim = counts.dims[c_ax]
        lens = c_dim.dyn_size if c_dim.dimension is None else None
        y, new_lens = _repeat_per_frame(x, c, lens)
        if self.output.batch_dim_axis is None:
            y = y[0]
        out_dim = self.output.dims[self.output.batch_dim_axis + 1 if self.output.batch_dim_axis is not None else 0]
        if out_dim.dyn_size is None:
            out_dim.dyn_size = new_lens
        return y

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """``repetitions`` given as a layer name → that layer."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("repetitions"), str):
            d["repetitions"] = get_layer(d["repetitions"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), repetitions: Any = None, axis: Any = "T",
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``repetitions`` neither an int nor a layer with per-frame counts of ``axis``"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        order = _order(inp, ax)
        batch = []
        if isinstance(repetitions, LayerBase):
            counts = repetitions.output
            _counts_axis(name, counts, inp.dims[ax])
            new = out_dim if out_dim is not None else Dim(None, description=f"repeated:{name.split('/')[-1]}",
                                                          kind=Dim.Types.Spatial)
            if inp.batch_dim_axis is None and counts.batch_dim_axis is not None:
                batch = [counts.dims[counts.batch_dim_axis]]
        elif isinstance(repetitions, int) and not isinstance(repetitions, bool):
            new = dim_mul(inp.dims[ax], repetitions)
            if out_dim is not None:
                out_dim.declare_same_as(new)
        else:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="repetitions", problem="invalid value",
                                got=repetitions, expected="an int, or a layer with int per-frame counts")
        dims = batch + [inp.dims[i] if i != ax else new for i in order]

        def moved(old: Optional[int]) -> Optional[int]:
            return None if old is None else order.index(old) + len(batch)

        return Tensor(name=f"{name.split('/')[-1]}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=moved(inp.time_dim_axis), feature_dim_axis=moved(inp.feature_dim_axis),
                      available_for_inference=inp.available_for_inference)
