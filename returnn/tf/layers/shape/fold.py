"""``{"class": "fold", "mode": "mean", "in_spatial_dim": "T", "window_dim": "stag:w:window"}``: the inverse of
``window``: overlapping windows added (``mode="sum"``) or averaged (``mode="mean"``) back into one axis.

Shape: ``{in_spatial, W, rest..} -> {out_spatial, rest..}``, the new axis first, then the other axes in their order
(as the reference). The frame ``t`` of the input and the window position ``w`` go to the output frame
``t * stride + w - offset``, with ``offset`` 0 for ``padding="valid"`` and ``window_left`` (default ``(W - 1) // 2``,
or ``W - 1 - window_right``) for ``padding="same"``; only input frames within the lengths of ``in_spatial_dim``
count; output frames outside the raw range are dropped. Sizes, as observed from the reference: ``"valid"``: the raw
length ``(T - 1) * stride + W`` and the lengths ``len * stride + W - 1``; ``"same"``: ``T * stride`` and
``len * stride``. ``mode="mean"`` divides each output frame by the number of window frames added to it (0 where
none). ``out_spatial_dim`` (optional) is the new axis's dim.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template

_MODES = ("sum", "mean")


@register_layer
class FoldLayer(ConcatInputLayer):
    """Overlap-add of windows (the inverse of ``window``).

    :param mode: ``"sum"`` or ``"mean"``
    :param in_spatial_dim: the axis of the window positions (a Dim or an axis description)
    :param window_dim: the window axis (a Dim or an axis description)
    :param out_spatial_dim: the dim of the output axis (default: a new one)
    :param padding: ``"same"`` or ``"valid"``, as the ``window`` that made the input
    :param window_left: frames left of the center with ``"same"`` (default ``(W - 1) // 2``)
    :param window_right: frames right of the center with ``"same"`` (alternative to ``window_left``)
    :param stride: the step between windows
    :raises LayerArgError: an unknown mode or padding, a window axis without static size, stride < 1
    """

    layer_class = "fold"
    recurrent = True  # depends on other frames

    def __init__(self, mode: str, in_spatial_dim: Union[Dim, str], window_dim: Union[Dim, str],
                 out_spatial_dim: Optional[Dim] = None, padding: str = "same", window_left: Optional[int] = None,
                 window_right: Optional[int] = None, stride: int = 1, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        in_ax, win_ax = _axes(inp, in_spatial_dim, window_dim)
        win = inp.dims[win_ax].dimension
        offset = _offset(padding, win, window_left, window_right)
        rest = [i for i in range(inp.batch_ndim) if i not in (in_ax, win_ax)]
        x = tf.transpose(inp.placeholder, [in_ax, win_ax] + rest)  # [T, W, rest..]
        n_in = tf.shape(x)[0]
        in_dim = inp.dims[in_ax]
        in_lens = _lengths(in_dim)
        if in_lens is not None and inp.batch_dim_axis is not None:
            b = rest.index(inp.batch_dim_axis)
            valid = tf.sequence_mask(in_lens, maxlen=n_in)  # [B, T]
            valid = tf.reshape(tf.transpose(valid), tf.concat([[n_in, 1], _ones_except(len(rest), b, -1)], 0))
        else:
            valid = tf.ones([n_in, 1] + [1] * len(rest), tf.bool)
        n_out = (n_in - 1) * stride + win if padding == "valid" else n_in * stride
        pos = tf.range(n_in)[:, None] * stride + tf.range(win)[None, :] - offset  # [T, W]
        keep = tf.logical_and(pos >= 0, pos < n_out)
        seg = tf.reshape(tf.where(keep, pos, tf.fill(tf.shape(pos), n_out)), [-1])  # dropped frames: extra segment
        x = tf.where(tf.broadcast_to(valid, tf.shape(x)), x, tf.zeros_like(x))
        flat = tf.reshape(x, tf.concat([[-1], tf.shape(x)[2:]], 0))
        y = tf.math.unsorted_segment_sum(flat, seg, n_out + 1)[:-1]  # [T', rest..]
        if mode == "mean":
            counts = tf.cast(tf.broadcast_to(valid, tf.concat([[n_in, win], tf.shape(x)[2:]], 0)), x.dtype)
            n = tf.math.unsorted_segment_sum(tf.reshape(counts, tf.shape(flat)), seg, n_out + 1)[:-1]
            y = tf.math.divide_no_nan(y, n)
        out_dim = self.output.dims[0]
        if in_lens is not None and out_dim.dyn_size is None:
            lens = in_lens * stride
            out_dim.dyn_size = lens + (win - 1) if padding == "valid" else lens
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mode: str = "mean",
                               in_spatial_dim: Union[Dim, str, None] = None, window_dim: Union[Dim, str, None] = None,
                               out_spatial_dim: Optional[Dim] = None, padding: str = "same",
                               window_left: Optional[int] = None, window_right: Optional[int] = None,
                               stride: int = 1, **kwargs: Any) -> Tensor:
        if mode not in _MODES:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value",
                                got=mode, expected=" or ".join(map(repr, _MODES)))
        if padding not in ("same", "valid"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="padding", problem="invalid value",
                                got=padding, expected="'same' or 'valid'")
        if not isinstance(stride, int) or isinstance(stride, bool) or stride < 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="stride", problem="invalid value",
                                got=stride, expected="an int >= 1")
        for arg, value in (("in_spatial_dim", in_spatial_dim), ("window_dim", window_dim)):
            if value is None:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg,
                                    problem="missing required argument", expected="a Dim or an axis description")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        in_ax, win_ax = _axes(inp, in_spatial_dim, window_dim)
        win = inp.dims[win_ax].dimension
        if win is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="window_dim",
                                problem="needs a static window axis, got", got=inp.dims[win_ax])
        in_dim = inp.dims[in_ax]
        if out_spatial_dim is None:
            size = None
            if in_dim.dimension is not None:
                size = in_dim.dimension * stride + (win - 1 if padding == "valid" else 0)
            out_spatial_dim = SpatialDim(f"{name}:fold", size)
        dims = [out_spatial_dim] + [d for i, d in enumerate(inp.dims) if i not in (in_ax, win_ax)]
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim)


def _axes(inp: Tensor, in_spatial_dim: Union[Dim, str], window_dim: Union[Dim, str]) -> Tuple[int, int]:
    """:return: the axes of the window positions and of the window"""
    return inp.get_axis_from_description(in_spatial_dim), inp.get_axis_from_description(window_dim)


def _lengths(dim: Dim) -> Optional[tf.Tensor]:
    """:return: the raw lengths ``[B]`` of a dynamic dim (also when only its ``dyn_size_ext`` has them), or None"""
    if dim.dimension is not None:
        return None
    if dim.dyn_size is not None:
        return dim.dyn_size
    ext = dim.dyn_size_ext
    return ext.placeholder if ext is not None else None


def _offset(padding: str, win: int, window_left: Optional[int], window_right: Optional[int]) -> int:
    if padding == "valid":
        return 0
    if window_left is not None:
        return window_left
    if window_right is not None:
        return win - 1 - window_right
    return (win - 1) // 2


def _ones_except(n: int, index: int, value: int) -> list:
    """:return: ``n`` ones with ``value`` at ``index``"""
    return [value if i == index else 1 for i in range(n)]
