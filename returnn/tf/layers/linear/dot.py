"""``{"class": "dot", "from": [a, b], "reduce": feat_dim}``: tensor product of two inputs (as ``tf.einsum``),
summing over the reduced axes.

Arguments (as the reference's):

- ``reduce``: the axes to sum over, found in both inputs: a Dim, an axis description (``"F"``, ``"T"``,
  ``"stag:…"``, ...) or a list of them. Or ``red1``/``red2`` for the axes of ``a`` and of ``b`` separately (not
  together with ``reduce``). A Dim that occurs twice in an input must be made unique with ``match_priority``
  (e.g. a square matrix ``[feat.copy(match_priority=1), feat]``), else it is an error.
- ``var1``/``var2``: the free axes of ``a``/``b``. Left out (with ``behavior_version >= 3``, or both ``"auto"``):
  every axis of ``a`` whose Dim is also in ``b`` is common (batch with batch), the others are free; Dims match
  only as the same Dim (``feat(5)`` and ``other-feat(5)`` stay two axes). Given: the axes neither reduced nor
  listed are common and pair up batch with batch, the same Dim with itself, then a remaining static axis of ``a``
  with the first remaining static axis of ``b`` of the same size (e.g. the heads axes of two separate
  ``split_dims`` layers); ``var*=None`` means no free axes; an unmatched axis is an error. Moved out of a
  rec loop (training), the loop's time axis that only one input has (e.g. the query of an attention) is a free
  axis of that input (appended to its ``var`` axes), as the reference (observed). Below
  ``behavior_version`` 3 the defaults are the old ``red1=-1, red2=-2, var1=-2, var2=-1`` (ints count the batch
  axis; deprecated, an error from version 3 on, as leaving the reduce axes out).
- ``add_var2_if_empty`` (old mode only, default True below ``behavior_version`` 3): without ``var2`` axes a
  size-1 axis ``'<name>:dot:dummy-var2'`` is appended (e.g. attention energies ``(B, H, enc-T, 1)``).
- ``use_mask`` (default True): the padded frames of a reduced dynamic axis count as 0. One input is masked: the
  second where its dims carry the lengths (``dyn_size_ext``), else the first; none where an input is already 0
  there (a ``softmax_over_spatial`` over that axis, also through ``copy``). ``_info_reduce_mask`` tells which
  (``"none-dynamic"``, ``"disabled"``, ``"mask-source-1"``, ``"mask-source-0"``, ``"source-0-already-masked"``,
  ``"source-1-already-masked"``), as the reference.

A sparse input (class indices) counts as its one-hot form, with its ``sparse_dim`` as an axis to reduce.
Output: ``{common..., var1..., var2...}`` in that order (float32), the common axes with ``a``'s Dims. The output's
time axis is its first dynamic axis (without one: the time axis of ``a``, else of ``b``, if kept, as the reference,
observed); its feature axis is its last static axis other than batch and time, else its
last axis other than batch and time (the reference's defaults, so the dummy axis is the feature axis where
present).
"""

from __future__ import annotations

import string
from typing import Any, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tensor.dim import SpatialDim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.linear.dot_plan import (DotPlan, default_axes, dense_input, length_mask, make_plan,
                                               resolve_args)
from returnn.util.values import NotSpecified


def _zero_padded(layer: LayerBase, dim: Dim) -> bool:
    """Whether the padded frames of ``dim`` in ``layer``'s output are exactly 0: a ``softmax_over_spatial`` over
    ``dim`` (with its time mask), also seen through ``copy`` layers."""
    while layer.layer_class == "copy" and len(layer.sources) == 1:
        layer = layer.sources[0]
    return getattr(layer, "zero_padded_dim", None) == dim and dim is not None


def _choose_masks(layers: Sequence[LayerBase], data: Sequence[Tensor], plan: DotPlan,
                  use_mask: bool) -> tuple:
    """:return: (info, [(input index, axis, mask)...]) for the reduced dynamic axes (see the module doc)"""
    dynamic = [(i, j) for i, j in zip(plan.red_a, plan.red_b) if data[0].dims[i].dimension is None]
    if not dynamic:
        return "none-dynamic", []
    if not use_mask:
        return "disabled", []
    infos, masks = [], []
    for i, j in dynamic:
        if _zero_padded(layers[0], data[0].dims[i]):
            infos.append("source-0-already-masked")
            continue
        if _zero_padded(layers[1], data[1].dims[j]):
            infos.append("source-1-already-masked")
            continue
        for src, axis in ((1, j), (0, i)):
            mask = length_mask(data[src], axis)
            if mask is not None:
                infos.append(f"mask-source-{src}")
                masks.append((src, axis, mask))
                break
        else:
            infos.append("no-mask-possible")
    return ",".join(dict.fromkeys(infos)), masks


def _moved_out_loop_dim(network: Any) -> Optional[Dim]:
    """:return: the loop's dim where ``network`` holds layers a rec unit moved out of its loop, else None"""
    if network is None or network.is_inside_rec_layer():
        return None
    return network.get_inside_rec_time_dim(inside_loop=False)


def _sources_of(name: str, sources: Sequence[Any]) -> List[Tensor]:
    if len(sources) != 2:
        raise LayerShapeError(layer=name, layer_class="dot", problem="needs exactly two sources",
                              got=str([s.name for s in sources]))
    return [dense_input(s.output) for s in sources]


@register_layer
class DotLayer(LayerBase):
    """See the module docstring."""

    layer_class = "dot"

    def __init__(self, reduce: Any = NotSpecified, red1: Any = NotSpecified, red2: Any = NotSpecified,
                 var1: Any = NotSpecified, var2: Any = NotSpecified, add_var2_if_empty: Any = NotSpecified,
                 use_mask: bool = True, debug: bool = False, **kwargs: Any):
        """
        :param reduce: the axes to sum over, found in both inputs (Dim, axis description or list)
        :param red1: the axes of the first input to sum over (with ``red2``, instead of ``reduce``)
        :param red2: the axes of the second input to sum over (with ``red1``, instead of ``reduce``)
        :param var1: the free axes of the first input (default: those whose Dim is not in the second input)
        :param var2: the free axes of the second input (default: those whose Dim is not in the first input)
        :param add_var2_if_empty: below ``behavior_version`` 3: add a size-1 axis when ``var2`` is empty
        :param use_mask: count padded frames of a reduced dynamic axis as 0 (default True)
        :param debug: accepted for compatibility with the reference; no effect here
        """
        super().__init__(**kwargs)
        a, b = _sources_of(self.name, self.sources)
        plan = make_plan(a, b, resolve_args(self.name, reduce, red1, red2, var1, var2, add_var2_if_empty), self.name,
                         loop_dim=_moved_out_loop_dim(self.network))
        self._info_reduce_mask, masks = _choose_masks(self.sources, (a, b), plan, use_mask)
        x = [tf.cast(a.placeholder, tf.float32), tf.cast(b.placeholder, tf.float32)]
        for src, _, mask in masks:
            x[src] = tf.where(mask, x[src], tf.zeros_like(x[src]))
        letters = iter(string.ascii_letters)
        la = [""] * a.batch_ndim
        lb = [""] * b.batch_ndim
        for i, j in plan.common + list(zip(plan.red_a, plan.red_b)):
            la[i] = lb[j] = next(letters)
        for i in plan.var_a:
            la[i] = next(letters)
        for j in plan.var_b:
            lb[j] = next(letters)
        out = "".join(la[i] for i, _ in plan.common) + "".join(la[i] for i in plan.var_a)
        out += "".join(lb[j] for j in plan.var_b)
        y = self.network.amp.einsum(f"{''.join(la)},{''.join(lb)}->{out}", x[0], x[1])  # tf_amp: float32 out
        if plan.add_dummy:
            y = tf.expand_dims(y, -1)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Any] = (), reduce: Any = NotSpecified,
                               red1: Any = NotSpecified, red2: Any = NotSpecified, var1: Any = NotSpecified,
                               var2: Any = NotSpecified, add_var2_if_empty: Any = NotSpecified,
                               network: Optional[Any] = None, **kwargs: Any) -> Tensor:
        """:return: ``{common..., var1..., var2...}`` (plus a size-1 ``dummy-var2`` axis, see the module docstring);
            ``network`` is not needed (the reference's tests call this without it)
        :raises LayerShapeError: reduce axes of different sizes, unmatched common axes (explicit var1/var2)
        :raises LayerArgError: ``reduce`` with ``red1``/``red2``; only one of ``var1``/``var2`` automatic
        :raises AxisDescriptionError: a reduce Dim not in an input, or not unique there
        """
        a, b = _sources_of(name, sources)
        plan = make_plan(a, b, resolve_args(name, reduce, red1, red2, var1, var2, add_var2_if_empty), name,
                         loop_dim=_moved_out_loop_dim(network))
        dims = plan.out_dims(a, b)
        if plan.add_dummy:
            dims.append(SpatialDim(f"{name}:dot:dummy-var2", 1))
        time_axis, feat = default_axes(dims, time_of_inputs=[a.time_dim, b.time_dim])
        return Tensor(name=f"{name}_output", dims=dims, dtype="float32", time_dim_axis=time_axis,
                      feature_dim_axis=feat)
