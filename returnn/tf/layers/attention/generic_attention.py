"""``{"class": "generic_attention", "weights": "att_weights", "base": "base:encoder"}``: weighted sum over time.

The reference's semantics (observed): a dot product of ``weights`` and ``base`` over the time axis ``T``.

- ``weights``: ``{B, T, H...}`` (any order). With ``auto_squeeze`` (default), its static axes of size 1 are
  dropped first (``{B, T, 1}`` is ``{B, T}``).
- ``base``: ``{B, T, K..., F}``: ``T`` is its time axis, ``F`` its feature axis (kept); every other axis ``K``
  must match one remaining weights axis of the same (static) size, in order: those are the heads, summed per
  head (``einsum("bht,bthf->bhf")``).
- Output: ``{B, H..., F}``: the batch, the remaining weights axes (matched heads and unmatched ones, as an outer
  product with ``F``), then the base's feature axis (the feature axis).

Examples: ``weights {B,T,1}``, ``base {B,T,F}`` gives ``{B,F}``; ``weights {B,T,H}``, ``base {B,T,H,V}``
(``split_dims``) gives ``{B,H,V}``; ``weights {B,T,H}``, ``base {B,T,F}`` gives ``{B,H,F}``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _weights_axes(weights: Tensor, weights_axis: Any, auto_squeeze: bool) -> Tuple[Tensor, int, List[int]]:
    """:return: weights (batch-major, squeezed), its time axis, its remaining axes (excluding batch and time)"""
    w = weights.copy_as_batch_major() if weights.batch_dim_axis is not None else weights
    t_axis = w.get_axis_from_description(weights_axis or "T")
    if auto_squeeze:
        squeeze = [i for i, d in enumerate(w.dims)
                   if i not in (w.batch_dim_axis, t_axis) and w.batch_shape[i] == 1]
        if squeeze:
            t_dim = w.dims[t_axis]
            w = w.copy_squeeze_axes(squeeze) if w.placeholder is not None else _squeezed_template(w, squeeze)
            t_axis = w.dims.index(t_dim)
    rest = [i for i in range(w.batch_ndim) if i not in (w.batch_dim_axis, t_axis)]
    return w, t_axis, rest


def _squeezed_template(w: Tensor, axes: List[int]) -> Tensor:
    for a in sorted(axes, reverse=True):
        w = w.copy_template_excluding_axis(a)
    return w


def _match(name: str, w: Tensor, w_rest: List[int], b: Tensor) -> Tuple[int, int, List[int], Dict[int, int]]:
    """:return: base time axis, base feature axis, base remaining axes, {base axis: weights axis}
    :raises LayerShapeError: base without time/feature axis, or a base axis matching no weights axis"""
    if b.time_dim_axis is None or b.feature_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class="generic_attention", problem="base needs a time and a feature axis",
                              expected="{B, T, F}", got=b.get_dims_repr())
    b_rest = [i for i in range(b.batch_ndim) if i not in (b.batch_dim_axis, b.time_dim_axis, b.feature_dim_axis)]
    mapping: Dict[int, int] = {}
    free = list(w_rest)
    for i in b_rest:
        j = next((j for j in free if w.batch_shape[j] is not None and w.batch_shape[j] == b.batch_shape[i]), None)
        if j is None:
            raise LayerShapeError(
                layer=name, layer_class="generic_attention",
                problem="the base axes besides batch, time and feature must each match one weights axis of the same size",
                expected=f"weights axes (besides batch and time) of sizes {[b.batch_shape[k] for k in b_rest]}",
                got=f"weights {w.get_dims_repr()}, base {b.get_dims_repr()}")
        free.remove(j)
        mapping[i] = j
    return b.time_dim_axis, b.feature_dim_axis, b_rest, mapping


@register_layer
class GenericAttentionLayer(LayerBase):
    """See the module docstring.

    :param weights: layer with the attention weights ``{B, T, H...}``
    :param base: layer to attend (values) ``{B, T, K..., F}``
    :param weights_axis: time axis of the weights (default ``"T"``)
    :param auto_squeeze: drop the weights' static axes of size 1 (default True)
    :raises LayerShapeError: base without time/feature axis, or a base axis matching no weights axis
    """

    layer_class = "generic_attention"

    def __init__(self, weights: LayerBase, base: LayerBase, weights_axis: Any = None, auto_squeeze: bool = True,
                 **kwargs: Any):
        super().__init__(**kwargs)
        w, w_t, w_rest = _weights_axes(weights.output, weights_axis, auto_squeeze)
        b = base.output.copy_as_batch_major()
        b_t, b_f, b_rest, mapping = _match(self.name, w, w_rest, b)
        w_raw = tf.cast(w.placeholder, b.placeholder.dtype)
        letters = iter("cdeghijklmnopqrsuvwxyz")
        w_letters = {j: next(letters) for j in w_rest}
        w_spec = "".join("b" if i == w.batch_dim_axis else "t" if i == w_t else w_letters[i]
                         for i in range(w.batch_ndim))
        b_spec = "".join("b" if i == b.batch_dim_axis else "t" if i == b_t else "f" if i == b_f
                         else w_letters[mapping[i]] for i in range(b.batch_ndim))
        out_spec = "b" + "".join(w_letters[j] for j in w_rest) + "f"
        if not w_rest and w_spec in ("bt", "tb") and b_spec in ("btf", "tbf"):  # one batched matmul
            w_bt = w_raw if w_spec == "bt" else tf.transpose(w_raw)
            b_btf = b.placeholder if b_spec == "btf" else tf.transpose(b.placeholder, [1, 0, 2])
            out = tf.squeeze(tf.matmul(w_bt[:, None, :], b_btf), axis=1)
        else:
            out = tf.einsum(f"{w_spec},{b_spec}->{out_spec}", w_raw, b.placeholder)
        self.output.placeholder = out

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``weights`` and ``base`` to layers; ``from`` defaults to none."""
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["weights"] = get_layer(d["weights"])
        d["base"] = get_layer(d["base"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, weights: Any = None, base: Any = None,
                               weights_axis: Any = None, auto_squeeze: bool = True, **kwargs: Any) -> Tensor:
        """:return: ``{B, H..., F}`` (see the module docstring)"""
        w, _, w_rest = _weights_axes(weights.output, weights_axis, auto_squeeze)
        b = base.output.copy_as_batch_major()
        _, b_f, _, _ = _match(name, w, w_rest, b)
        batch: Optional[Any] = None
        if w.batch_dim_axis is not None:
            batch = w.dims[w.batch_dim_axis]
        elif b.batch_dim_axis is not None:
            batch = b.dims[b.batch_dim_axis]
        dims = ([batch] if batch is not None else []) + [w.dims[j] for j in w_rest] + [b.dims[b_f]]
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=dims, dtype=b.dtype,
                      feature_dim_axis=len(dims) - 1, time_dim_axis=None,
                      beam=w.beam or b.beam, batch=w.batch or b.batch,
                      available_for_inference=b.available_for_inference)
