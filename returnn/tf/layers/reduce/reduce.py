"""``{"class": "reduce", "mode": "mean", "axes": "T"}``: reduce over axes (any axis description).

Shape: ``{B, T, F} --axes=T--> {B, F}`` (``keep_dims``: the reduced axes stay with size 1). Padded frames of
dynamic axes never contribute (``use_time_mask``, default True): ``mean`` divides by the true lengths, ``max``
ignores padding. Modes: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``logsumexp``, ``any``, ``all``,
``argmax``, ``argmin`` (one axis; sparse int32 output over that axis).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import mask_padded, valid_frames_mask
from returnn.util.suggest import close_matches

_FILL = {"sum": 0.0, "mean": 0.0, "max": -math.inf, "min": math.inf, "prod": 1.0, "logsumexp": -math.inf,
         "any": False, "all": True, "argmax": -math.inf, "argmin": math.inf}
_TF = {"sum": tf.reduce_sum, "max": tf.reduce_max, "min": tf.reduce_min, "prod": tf.reduce_prod,
       "logsumexp": tf.reduce_logsumexp, "any": tf.reduce_any, "all": tf.reduce_all}
_ALIASES = {"avg": "mean"}  # the reference accepts "avg" (observed: the same values as "mean", padding masked)


def _mode(mode: str) -> str:
    return _ALIASES.get(mode.lower(), mode.lower())


@register_layer
class ReduceLayer(ConcatInputLayer):
    """Reduces the input over ``axes`` (or ``axis``)."""

    layer_class = "reduce"

    def __init__(self, mode: str, axes: Any = None, axis: Any = None, keep_dims: bool = False,
                 enforce_batch_dim_axis: Optional[int] = None, use_time_mask: bool = True, **kwargs: Any):
        """
        :param mode: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``logsumexp``, ``any``, ``all``, ``argmax`` or
            ``argmin``
        :param axes: the axes to reduce (axis description, Dim, or list of them)
        :param axis: alternative name of ``axes``
        :param keep_dims: keep each reduced axis with size 1
        :param enforce_batch_dim_axis: accepted for compatibility with the reference; no effect here
        :param use_time_mask: exclude padded frames of reduced dynamic axes (default True)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        mode = _mode(mode)
        ax = inp.get_axes_from_description(axes if axes is not None else axis)
        if use_time_mask:
            inp, ax = _with_length_dims(inp, ax, self.network, with_raw=True)
        x = inp.placeholder
        if use_time_mask:
            tmp = inp.copy()
            for a in ax:
                if inp.dims[a].is_dynamic():
                    fill = _FILL[mode]
                    if inp.dtype.startswith("int") and isinstance(fill, float) and math.isinf(fill):
                        fill = inp.dtype == "int32" and (-2 ** 31 if fill < 0 else 2 ** 31 - 1) or 0
                    tmp.placeholder = mask_padded(tmp, a, fill)
            x = tmp.placeholder
        if mode in ("argmax", "argmin"):
            fn = tf.argmax if mode == "argmax" else tf.argmin
            y = fn(x, axis=ax[0], output_type=tf.int32)
            if keep_dims:
                y = tf.expand_dims(y, ax[0])
        elif mode == "mean" and use_time_mask and (inp.batch_dim_axis in ax or _lengths_beyond_batch(inp, ax)) \
                and (valid := valid_frames_mask(inp, ax)) is not None:
            # over the batch and a dynamic axis: the mean over all valid frames of the batch (as the reference); so
            # too over an axis whose lengths have other dims than the batch (e.g. per loop frame)
            weights = tf.cast(tf.broadcast_to(valid, tf.shape(x)), x.dtype)
            y = tf.reduce_sum(x, axis=ax, keepdims=keep_dims) / tf.reduce_sum(weights, axis=ax, keepdims=keep_dims)
        elif mode == "mean":
            total = tf.reduce_sum(x, axis=ax, keepdims=keep_dims)
            count = None
            for a in ax:
                d = inp.dims[a]
                if use_time_mask and d.is_dynamic():
                    n = tf.cast(d.dyn_size, x.dtype)
                    n = _lens_broadcast(n, inp, ax, keep_dims)
                else:
                    n = tf.cast(tf.shape(x)[a], x.dtype)
                count = n if count is None else count * n
            y = total / count
        else:
            y = _TF[mode](x, axis=ax, keepdims=keep_dims)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mode: str = "", axes: Any = None, axis: Any = None,
                               keep_dims: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown mode; missing axes; several axes for argmax/argmin"""
        mode = _mode(mode)
        if mode not in _FILL:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value",
                                got=mode, expected=" | ".join(_FILL), suggestions=close_matches(mode, _FILL))
        if axes is None and axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axes", problem="missing required argument")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axes_from_description(axes if axes is not None else axis)
        if kwargs.get("use_time_mask", True):
            inp, ax = _with_length_dims(inp, ax, kwargs.get("network"))
        if mode.lower() in ("argmax", "argmin") and len(ax) != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axes", problem="needs exactly one axis for "
                                f"mode {mode!r}:", got=axes if axes is not None else axis)
        out = inp.copy_template(name=f"{name}_output")
        if mode.lower() in ("argmax", "argmin"):
            sparse_dim = inp.dims[ax[0]]
        for a in sorted(ax, reverse=True):
            if keep_dims:
                # as the reference: a size-1 dim "<layer>:keep-dim-<axis>" of the same kind, in the same role
                # (time/feature axis); the batch axis stays the batch dim
                old = inp.dims[a]
                if not old.is_batch_dim():
                    kept = (FeatureDim if old.is_feature_dim() else SpatialDim)(f"{name}:keep-dim-{a}", 1)
                    out = out.copy_template_replace_dim(a, kept)
            else:
                out = out.copy_template_excluding_axis(a)
        if keep_dims:  # the same axes in the same roles
            out = Tensor(name=out.name, dims=out.dims, dtype=out.dtype, sparse_dim=out.sparse_dim,
                         time_dim_axis=inp.time_dim_axis, feature_dim_axis=inp.feature_dim_axis, batch=out.batch,
                         beam=out.beam, vocab=out.vocab, available_for_inference=out.available_for_inference)
        if mode.lower() in ("argmax", "argmin"):
            out = Tensor(**{**out.get_kwargs(), "dtype": "int32", "sparse_dim": sparse_dim, "feature_dim_axis": None})
        elif mode.lower() in ("any", "all"):
            out.dtype = "bool"
        return out


def _with_length_dims(inp: Tensor, ax: Any, network: Any, with_raw: bool = False) -> Tuple[Tensor, list]:
    """:return: ``inp`` (and the reduced axes ``ax`` in it) with the dims of the lengths of the reduced axes that it
        lacks added in front, broadcast (e.g. the history of a ``cum_concat`` moved out of its rec loop, whose lengths
        are per loop frame ``{T}``: a sum over it is per loop frame, ``{T, ...}``, as in the loop); outside of a rec
        loop's step only (there a frame has no such dims)"""
    if network is None or network.is_inside_rec_layer():
        return inp, ax
    missing = []
    for a in ax:
        ext = inp.dims[a].dyn_size_ext if inp.dims[a].is_dynamic() else None
        for d in (ext.dims if ext is not None else ()):
            if d not in inp.dims and d not in missing and not d.is_batch_dim():
                missing.append((d, ext))
    if not missing:
        return inp, ax
    dims = [d for d, _ in missing]
    out = Tensor(name=inp.name, dims=dims + list(inp.dims), dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                 time_dim_axis=None if inp.time_dim_axis is None else inp.time_dim_axis + len(dims),
                 feature_dim_axis=None if inp.feature_dim_axis is None else inp.feature_dim_axis + len(dims))
    if with_raw:
        sizes = [tf.shape(ext.placeholder)[ext.dims.index(d)] for d, ext in missing]
        raw = tf.reshape(inp.placeholder, tf.concat([[1] * len(dims), tf.shape(inp.placeholder)], axis=0))
        out.placeholder = tf.broadcast_to(raw, tf.concat([sizes, tf.shape(inp.placeholder)], axis=0))
    return out, [a + len(dims) for a in ax]


def _lengths_beyond_batch(inp: Tensor, ax: Any) -> bool:
    """:return: whether a reduced dynamic axis has lengths with another dim than the batch (e.g. ``{T}``)"""
    for a in ax:
        ext = inp.dims[a].dyn_size_ext if inp.dims[a].is_dynamic() else None
        if ext is not None and any(not d.is_batch_dim() for d in ext.dims):
            return True
    return False


def _remaining(inp: Tensor, ax: Any, keep_dims: bool) -> list:
    return [i for i in range(inp.batch_ndim) if keep_dims or i not in ax]


def _lens_broadcast(n: tf.Tensor, inp: Tensor, ax: Any, keep_dims: bool) -> tf.Tensor:
    """Lengths ``[B]`` reshaped to broadcast over the reduced output."""
    remaining = _remaining(inp, ax, keep_dims)
    if inp.batch_dim_axis not in remaining:
        return tf.reduce_sum(n)
    shape = [-1 if i == inp.batch_dim_axis else 1 for i in remaining]
    return tf.reshape(n, shape)
