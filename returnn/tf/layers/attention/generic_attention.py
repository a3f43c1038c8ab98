"""``{"class": "generic_attention", "weights": "att_weights", "base": "base:encoder"}``: weighted sum over time.

The reference's semantics (observed): a dot product of ``weights`` and ``base`` over the time axis ``T``.

- ``weights``: ``{B, T, H...}`` (any order).
- ``base``: ``{B, T, K..., F}``: ``T`` is its time axis, ``F`` its feature axis (kept); every other axis ``K``
  is matched to a weights axis of the same (static) size, from the last ``K`` backwards, each to the nearest
  weights axis left of the previous match (the order is kept: weights ``{3, 2}`` with base ``{2, 3, F}`` is
  rejected; weights ``{2a, 2b}`` with base ``{2, F}`` matches ``2b``). Those are the heads, summed per head
  (``einsum("bht,bthf->bhf")``). With ``auto_squeeze`` (default), the weights axes of size 1 that no base axis
  matched are dropped (``{B, T, 1}`` with ``{B, T, F}`` is ``{B, F}``, but ``{B, T, 1}`` with
  ``{B, T, 1, F}`` keeps the 1 as the head axis).
- Output: ``{B, H..., F}``: the batch, the matched weights axes, the remaining weights axes (an outer product
  with ``F``), then the base's feature axis (the feature axis).

Examples: ``weights {B,T,1}``, ``base {B,T,F}`` gives ``{B,F}``; ``weights {B,T,H}``, ``base {B,T,H,V}``
(``split_dims``) gives ``{B,H,V}``; ``weights {B,T,H}``, ``base {B,T,F}`` gives ``{B,H,F}``; ``weights
{B,H,1,T}`` (dot energies with their dummy axis), ``base {B,T,H,V}`` gives ``{B,H,V}``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _weights_axes(weights: Tensor, weights_axis: Any, base: Tensor) -> Tuple[Tensor, int, List[int]]:
    """:return: weights (batch-major), its axis summed over, its remaining axes (excluding batch and that axis).
    Without ``weights_axis``, the summed axis is the weights axis with the base's time Dim where there is one (so
    weights ``{B, T_dec, T_enc}`` stacked over a decoder loop reduce ``T_enc``, as the reference), else ``"T"``."""
    w = weights.copy_as_batch_major() if weights.batch_dim_axis is not None else weights
    base_time = base.dims[base.time_dim_axis] if base.time_dim_axis is not None else None
    if weights_axis is None and base_time is not None and base_time in w.dims:
        # the weights' time axis where it has that Dim (e.g. weights {B, T, T} of an encoder and a decoder of the
        # same length, moved out of a rec loop: the softmax's axis, as the reference), else the first with it
        t_axis = w.time_dim_axis if w.time_dim_axis is not None and w.dims[w.time_dim_axis] == base_time \
            else w.dims.index(base_time)
    else:
        t_axis = w.get_axis_from_description(weights_axis or "T")
    rest = [i for i in range(w.batch_ndim) if i not in (w.batch_dim_axis, t_axis)]
    return w, t_axis, rest


def _match(name: str, w: Tensor, w_rest: List[int], b: Tensor,
           auto_squeeze: bool) -> Tuple[int, int, List[int], Dict[int, int], List[int], List[int]]:
    """Matches the base's axes besides batch, time and feature to weights axes as the reference (observed): from
    the last base axis backwards, each takes the nearest weights axis of the same static size left of the previous
    match (so the order is kept: weights ``{3, 2}`` with base ``{2, 3, F}`` is rejected, weights ``{2, 2}`` with
    base ``{2, F}`` takes the second ``2``). With ``auto_squeeze``, unmatched weights axes of size 1 are dropped.

    :return: base time axis, base feature axis, base remaining axes, {base axis: weights axis},
      matched weights axes (in order), kept unmatched weights axes (in order)
    :raises LayerShapeError: base without time/feature axis, or a base axis matching no weights axis"""
    if b.time_dim_axis is None or b.feature_dim_axis is None:
        raise LayerShapeError(layer=name, layer_class="generic_attention", problem="base needs a time and a feature axis",
                              expected="{B, T, F}", got=b.get_dims_repr())
    b_rest = [i for i in range(b.batch_ndim) if i not in (b.batch_dim_axis, b.time_dim_axis, b.feature_dim_axis)]
    mapping: Dict[int, int] = {}
    limit = len(w_rest)
    for i in reversed(b_rest):
        k = next((k for k in reversed(range(limit))
                  if w.batch_shape[w_rest[k]] is not None and w.batch_shape[w_rest[k]] == b.batch_shape[i]), None)
        if k is None:
            raise LayerShapeError(
                layer=name, layer_class="generic_attention",
                problem="the base axes besides batch, time and feature must each match one weights axis of the same "
                        "size, in the same order",
                expected=f"weights axes (besides batch and time) of sizes {[b.batch_shape[k] for k in b_rest]}",
                got=f"weights {w.get_dims_repr()}, base {b.get_dims_repr()}")
        mapping[i] = w_rest[k]
        limit = k
    matched = sorted(mapping.values())
    kept = [j for j in w_rest if j not in matched and not (auto_squeeze and w.batch_shape[j] == 1)]
    return b.time_dim_axis, b.feature_dim_axis, b_rest, mapping, matched, kept


def _heads_matmul(w: Tensor, w_t: int, matched: List[int], kept: List[int], b: Tensor, base_out: Tensor,
                  mapping: Dict[int, int]) -> tf.Tensor:
    """``einsum("b<heads><kept>t,bt<heads>f->b<heads><kept>f")`` as one batched ``MatMul`` of
    ``[B, heads..., K, T]`` weights (``K``: the kept weights axes folded, 1 without) and ``[B, heads..., T, F]``
    base values. The base is brought into that layout where it lives: a base from outside a rec loop (``base:``)
    once before the loop, not in every step. Squeezed weights axes (size 1) are dropped.

    :param w: the weights (batch-major), ``w_t`` its summed (time) axis, ``matched`` its head axes, ``kept`` its
        other axes (in the output's order)
    :param b: the base (batch-major template of ``base_out``), ``mapping``: base head axis -> weights axis
    :return: ``[B, heads..., kept..., F]``, the base's dtype
    """
    from returnn.tf.util.control_flow import same_control_flow_ctx

    heads_of_w = {j: i for i, j in mapping.items()}
    with same_control_flow_ctx(base_out.placeholder):  # the base's layout change outside the loop it is read in
        b_full = base_out.copy_as_batch_major()
        b_perm = [b_full.batch_dim_axis] + [heads_of_w[j] for j in matched] + [b_full.time_dim_axis,
                                                                               b_full.feature_dim_axis]
        base_raw = b_full.placeholder
        if b_perm != list(range(len(b_perm))):
            base_raw = tf.transpose(base_raw, b_perm)
    w_raw = tf.cast(w.placeholder, base_raw.dtype)
    squeezed = [i for i in range(w.batch_ndim) if i not in [w.batch_dim_axis, w_t] + matched + kept]
    w_perm = [w.batch_dim_axis] + matched + kept + [w_t] + squeezed
    if w_perm != list(range(len(w_perm))):
        w_raw = tf.transpose(w_raw, w_perm)
    if squeezed:  # size-1 axes (auto_squeeze): summed over, i.e. dropped
        w_raw = tf.squeeze(w_raw, axis=list(range(len(w_perm) - len(squeezed), len(w_perm))))
    if not kept:
        return tf.squeeze(tf.matmul(w_raw[..., None, :], base_raw), axis=-2)
    if len(kept) == 1:
        return tf.matmul(w_raw, base_raw)
    shape = tf.shape(w_raw)
    lead = 1 + len(matched)
    w_raw = tf.reshape(w_raw, tf.concat([shape[:lead], [-1], shape[-1:]], axis=0))
    out = tf.matmul(w_raw, base_raw)  # [B, heads..., K, F]
    return tf.reshape(out, tf.concat([shape[:-1], tf.shape(base_raw)[-1:]], axis=0))


@register_layer
class GenericAttentionLayer(LayerBase):
    """See the module docstring.

    :param weights: layer with the attention weights ``{B, T, H...}``
    :param base: layer to attend (values) ``{B, T, K..., F}``
    :param weights_axis: time axis of the weights (default ``"T"``)
    :param auto_squeeze: drop the weights' axes of size 1 that match no base axis (default True)
    :raises LayerShapeError: base without time/feature axis, or a base axis matching no weights axis
    """

    layer_class = "generic_attention"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, weights: LayerBase, base: LayerBase, weights_axis: Any = None, auto_squeeze: bool = True,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.weights = weights  # the reference's attributes: the weights and base layers
        self.base = base
        b = base.output.copy_as_batch_major()
        w, w_t, w_rest = _weights_axes(weights.output, weights_axis, b)
        b_t, b_f, b_rest, mapping, matched, kept = _match(self.name, w, w_rest, b, auto_squeeze)
        if w.batch_dim_axis is not None and b.batch_dim_axis is not None:
            # one batched product over (batch, heads) of [K, T] weights (K: the other weights axes folded) and
            # [T, F] base values
            self.output.placeholder = _heads_matmul(w, w_t, matched, kept, b, base.output, mapping)
            return
        w_raw = tf.cast(w.placeholder, b.placeholder.dtype)
        letters = iter("cdeghijklmnopqrsuvwxyz")
        w_letters = {j: next(letters) for j in w_rest}  # squeezed size-1 axes: summed over (a no-op)
        w_spec = "".join("b" if i == w.batch_dim_axis else "t" if i == w_t else w_letters[i]
                         for i in range(w.batch_ndim))
        b_spec = "".join("b" if i == b.batch_dim_axis else "t" if i == b_t else "f" if i == b_f
                         else w_letters[mapping[i]] for i in range(b.batch_ndim))
        out_spec = "b" + "".join(w_letters[j] for j in matched + kept) + "f"
        if w_spec in ("bt", "tb") and b_spec in ("btf", "tbf"):  # one batched matmul
            w_bt = w_raw if w_spec == "bt" else tf.transpose(w_raw)
            b_btf = b.placeholder if b_spec == "btf" else tf.transpose(b.placeholder, [1, 0, 2])
            out = tf.squeeze(tf.matmul(w_bt[:, None, :], b_btf), axis=1)
        else:
            out = tf.einsum(f"{w_spec},{b_spec}->{out_spec}", w_raw, b.placeholder)
        self.output.placeholder = out

    def get_dep_layers(self) -> List[LayerBase]:
        """:return: the sources, the ``weights`` and the ``base`` layer"""
        return super().get_dep_layers() + [self.weights, self.base]

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
        b = base.output.copy_as_batch_major()
        w, _, w_rest = _weights_axes(weights.output, weights_axis, b)
        _, b_f, _, _, matched, kept = _match(name, w, w_rest, b, auto_squeeze)
        batch: Optional[Any] = None
        if w.batch_dim_axis is not None:
            batch = w.dims[w.batch_dim_axis]
        elif b.batch_dim_axis is not None:
            batch = b.dims[b.batch_dim_axis]
        dims = ([batch] if batch is not None else []) + [w.dims[j] for j in matched + kept] + [b.dims[b_f]]
        time_axis = next((k for k, d in enumerate(dims) if d.dimension is None and not d.is_batch_dim()), None)
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=dims, dtype=b.dtype,
                      feature_dim_axis=len(dims) - 1, time_dim_axis=time_axis,
                      beam=w.beam or b.beam, batch=w.batch or b.batch,
                      available_for_inference=b.available_for_inference)
