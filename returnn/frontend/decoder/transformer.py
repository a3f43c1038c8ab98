"""The Transformer decoder (``TransformerDecoder``): ``input_embedding`` (scaled) + positional encoding → layers of
causal self-attention, cross-attention to the encoder and a feed-forward block (pre-norm) → ``final_layer_norm`` →
``logits`` (no bias). Full label sequences (training, rescoring); parameter names as the reference (observed)."""

from __future__ import annotations

import copy as _copy
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend.attention import CausalSelfAttention, CrossAttention, sinusoidal_positional_encoding
from returnn.frontend.container import Sequential
from returnn.frontend.encoder.conformer import make_norm
from returnn.frontend.linear import Embedding, Linear
from returnn.frontend.module import Module
from returnn.frontend.normalization import LayerNorm
from returnn.frontend.state import State
from returnn.tensor import Dim, Tensor, single_step_dim

__all__ = ["TransformerDecoder", "TransformerDecoderLayer", "FeedForward", "FeedForwardGated", "make_norm"]

_NOT_GIVEN: Any = object()


class FeedForward(Module):
    """``linear_out(dropout(activation(linear_ff(x))))`` (activation default relu, ff_dim default 4*out_dim)."""

    def __init__(self, out_dim: Dim, *, ff_dim: Any = _NOT_GIVEN, dropout: float = 0.1, activation: Any = None,
                 with_bias: bool = True):
        super().__init__()
        from returnn.frontend.math_ import relu
        if ff_dim is _NOT_GIVEN or ff_dim is None:
            ff_dim = 4 * out_dim.dimension
        self.out_dim, self.dropout = out_dim, dropout
        self.ff_dim = ff_dim if isinstance(ff_dim, Dim) else Dim(ff_dim, name="transformer-ff-dim")
        self.activation = activation or relu
        self.linear_ff = Linear(out_dim, self.ff_dim, with_bias=with_bias)
        self.linear_out = Linear(self.ff_dim, out_dim, with_bias=with_bias)

    def __call__(self, inp: Tensor) -> Tensor:
        from returnn.frontend.dropout import dropout
        x = self.activation(self.linear_ff(inp))
        return self.linear_out(dropout(x, self.dropout) if self.dropout else x)


class FeedForwardGated(Module):
    """``linear_out(activation(a) * gate_activation(b))`` with ``a, b`` the halves of ``linear_ff`` (to 2*ff_dim)."""

    def __init__(self, out_dim: Dim, *, ff_dim: Any = _NOT_GIVEN, dropout: float = 0.1, activation: Any = None,
                 gate_activation: Any = None, with_bias: bool = False):
        super().__init__()
        from returnn.frontend.math_ import identity, silu
        if ff_dim is _NOT_GIVEN or ff_dim is None:
            ff_dim = ((int(out_dim.dimension * 4 * 2 / 3) + 255) // 256) * 256
        self.out_dim, self.dropout = out_dim, dropout
        self.ff_dim = ff_dim if isinstance(ff_dim, Dim) else Dim(ff_dim, name="transformer-ff-dim")
        self.activation, self.gate_activation = activation or silu, gate_activation or identity
        self.linear_ff = Linear(out_dim, 2 * self.ff_dim, with_bias=with_bias)
        self.linear_out = Linear(self.ff_dim, out_dim, with_bias=with_bias)

    def __call__(self, inp: Tensor) -> Tensor:
        from returnn.frontend.array_ import split
        from returnn.frontend.dropout import dropout
        a, b = split(self.linear_ff(inp), axis=2 * self.ff_dim, out_dims=[self.ff_dim, self.ff_dim])
        x = self.activation(a) * self.gate_activation(b)
        return self.linear_out(dropout(x, self.dropout) if self.dropout else x)


class TransformerDecoderLayer(Module):
    """Pre-norm: ``x + self_att(norm(x))``, ``x + cross_att(norm(x), encoder)``, ``x + ff(norm(x))``."""

    def __init__(self, encoder_dim: Optional[Dim], out_dim: Dim = Dim(512, name="transformer-dec-default-out-dim"),
                 *, ff: Any = _NOT_GIVEN, ff_dim: Any = _NOT_GIVEN, ff_activation: Any = _NOT_GIVEN,
                 dropout: float = 0.1, num_heads: int = 8, self_att: Any = None, self_att_opts: Optional[dict] = None,
                 att_dropout: float = 0.1, cross_att: Optional[dict] = None, norm: Any = LayerNorm):
        super().__init__()
        self.encoder_dim, self.out_dim, self.dropout = encoder_dim, out_dim, dropout
        if ff is _NOT_GIVEN or ff is None:
            kwargs: Dict[str, Any] = {"dropout": dropout}
            if ff_dim is not _NOT_GIVEN:
                kwargs["ff_dim"] = ff_dim
            if ff_activation is not _NOT_GIVEN:
                kwargs["activation"] = ff_activation
            ff = FeedForward(out_dim, **kwargs)
        elif isinstance(ff, type):
            ff = ff(out_dim, dropout=dropout)
        elif isinstance(ff, Module):
            ff = _copy.deepcopy(ff)
        self.ff = ff
        self.ff_layer_norm = make_norm(norm, out_dim)
        if self_att is None or isinstance(self_att, type):
            self_att = (self_att or CausalSelfAttention)(
                out_dim, out_dim, key_dim_total=out_dim, value_dim_total=out_dim, num_heads=num_heads,
                att_dropout=att_dropout, **(self_att_opts or {}))
        self.self_att = self_att
        self.self_att_layer_norm = make_norm(norm, out_dim)
        self.cross_att = None
        self.cross_att_layer_norm = None
        if encoder_dim is not None:
            self.cross_att = CrossAttention(encoder_dim, out_dim, out_dim, key_dim_total=out_dim,
                                            value_dim_total=out_dim, num_heads=num_heads, att_dropout=att_dropout,
                                            **(cross_att or {}))
            self.cross_att_layer_norm = make_norm(norm, out_dim)

    def default_initial_state(self, *, batch_dims: Sequence[Dim], capacity: Optional[int] = None) -> State:
        """:return: the (empty) state (``capacity``: fixed buffers for steps in a loop, see ``CausalSelfAttention``)"""
        return State(self_att=self.self_att.default_initial_state(batch_dims=batch_dims, capacity=capacity))

    def transform_encoder(self, encoder: Tensor, *, axis: Dim) -> State:
        """:return: the encoder's keys/values for the cross attention"""
        return State(cross_att=self.cross_att.transform_encoder(encoder, axis=axis))

    def __call__(self, inp: Tensor, *, spatial_dim: Dim, state: State, encoder: Optional[State] = None
                 ) -> Tuple[Tensor, State]:
        from returnn.frontend.dropout import dropout
        new_state = State()
        att, new_state.self_att = self.self_att(self.self_att_layer_norm(inp), axis=spatial_dim,
                                                state=state.self_att if state else None)
        x = inp + (dropout(att, self.dropout) if self.dropout else att)
        if self.cross_att is not None:
            c = self.cross_att(self.cross_att_layer_norm(x), encoder.cross_att)
            x = x + (dropout(c, self.dropout) if self.dropout else c)
        f = self.ff(self.ff_layer_norm(x))
        return x + (dropout(f, self.dropout) if self.dropout else f), new_state


def _pos_enc_at(pos_enc: Any, pos: Any, feat_dim: Dim) -> Tensor:
    """:return: the positional encoding ``[feat_dim]`` of the single position ``pos`` (an int or a scalar Tensor)"""
    from returnn.frontend.array_ import gather
    one = Dim(1, name="pos")
    enc = pos_enc(spatial_dim=one, feat_dim=feat_dim, offset=pos)
    return gather(enc, indices=0, axis=one)


class TransformerDecoder(Module):
    """``__call__(source, *, spatial_dim, state, encoder) -> (logits, new_state)`` on full label sequences, or one
    step (``spatial_dim=single_step_dim``: ``source`` one label per sequence, ``state`` from
    :meth:`default_initial_state` or the previous step); ``transform_encoder(encoder, axis=)`` prepares the encoder
    once.

    ``share_embedding``, ``input_embedding_scale``, ``input_dropout`` default by the behavior version (as the
    reference): before 20 ``False``, ``1.0``, ``0.0``; from 20 on ``True`` (the logits' weight is
    ``input_embedding.weight``), ``sqrt(model_dim)``, ``dropout``."""

    def __init__(self, encoder_dim: Optional[Dim], vocab_dim: Dim,
                 model_dim: Union[Dim, int] = Dim(512, name="transformer-dec-default-model-dim"), *,
                 num_layers: int, ff: Any = _NOT_GIVEN, ff_dim: Any = _NOT_GIVEN, ff_activation: Any = _NOT_GIVEN,
                 pos_enc: Any = sinusoidal_positional_encoding, dropout: float = 0.1, num_heads: int = 8,
                 att_dropout: float = 0.1, norm: Any = LayerNorm, layer: Any = None,
                 layer_opts: Optional[Dict[str, Any]] = None, embed_dim: Optional[Dim] = None,
                 share_embedding: Optional[bool] = None, input_embedding: bool = True,
                 input_embedding_scale: Optional[float] = None, input_dropout: Optional[float] = None,
                 logits_with_bias: bool = False, sequential: Any = Sequential, **compat_kwargs: Any):
        super().__init__()
        if not isinstance(model_dim, Dim):
            model_dim = Dim(model_dim, name="transformer-dec-model-dim")
        if embed_dim is not None:
            raise FrontendError("TransformerDecoder", "embed_dim is not supported here")
        # the defaults of these three depend on the behavior version, as the reference's (observed: before 20 no
        # sharing, scale 1, no input dropout; from 20 on the logits share the embedding, scale sqrt(model_dim),
        # input dropout = dropout)
        from returnn.util.behavior_version import BehaviorVersion
        new_defaults = BehaviorVersion.get() >= 20
        if share_embedding is None:
            share_embedding = new_defaults and input_embedding
        if input_embedding_scale is None:
            input_embedding_scale = model_dim.dimension ** 0.5 if new_defaults else 1.0
        if input_dropout is None:
            input_dropout = dropout if new_defaults else 0.0
        if share_embedding and not input_embedding:
            raise FrontendError("TransformerDecoder", "share_embedding needs input_embedding=True")
        self.encoder_dim, self.vocab_dim, self.model_dim = encoder_dim, vocab_dim, model_dim
        self.input_embedding = Embedding(vocab_dim, model_dim) if input_embedding else None
        self.input_embedding_scale = input_embedding_scale
        self.pos_enc, self.dropout = pos_enc, dropout
        self.input_dropout = input_dropout
        self.share_embedding = share_embedding
        if layer is None or isinstance(layer, type):
            opts: Dict[str, Any] = dict(encoder_dim=encoder_dim, out_dim=model_dim, dropout=dropout,
                                        num_heads=num_heads, att_dropout=att_dropout, norm=norm)
            for key, value in (("ff", ff), ("ff_dim", ff_dim), ("ff_activation", ff_activation)):
                if value is not _NOT_GIVEN:
                    opts[key] = value
            opts.update(layer_opts or {})
            layers = [(layer or TransformerDecoderLayer)(**opts) for _ in range(num_layers)]
        else:
            layers = [_copy.deepcopy(layer) for _ in range(num_layers)]
        self.layers = sequential(*layers)
        self.final_layer_norm = make_norm(norm, model_dim)
        self.logits = Linear(model_dim, vocab_dim, with_bias=logits_with_bias)
        if share_embedding:  # one parameter [vocab_dim, model_dim]: named input_embedding.weight only
            self.logits.weight = self.input_embedding.weight

    def default_initial_state(self, *, batch_dims: Sequence[Dim], capacity: Optional[int] = None) -> State:
        """:return: ``State(pos=<scalar int32 Tensor 0>, <layer name>=layer state)`` (``pos`` a Tensor, as the
        reference's, so that code mapping over the state's Tensors and Dims, e.g. a beam's gather, sees no int)"""
        from returnn.frontend.const import zeros
        pos = zeros([], dtype="int32")
        return State({"pos": pos, **{name: layer.default_initial_state(batch_dims=batch_dims, capacity=capacity)
                                     for name, layer in self.layers.items()}})

    def transform_encoder(self, encoder: Tensor, *, axis: Dim) -> State:
        """:return: per layer the cross attention's keys/values of ``encoder``"""
        return State({name: layer.transform_encoder(encoder, axis=axis) for name, layer in self.layers.items()})

    def __call__(self, source: Tensor, *, spatial_dim: Dim, state: State, encoder: Optional[State] = None,
                 collected_outputs: Optional[dict] = None, output_only_last_frame: bool = False
                 ) -> Tuple[Tensor, State]:
        from returnn.frontend.dropout import dropout
        x = self.input_embedding(source) * self.input_embedding_scale if self.input_embedding else source
        pos = state.get("pos", 0) if state else 0
        if self.pos_enc is not None:
            if spatial_dim == single_step_dim:
                x = x + _pos_enc_at(self.pos_enc, pos, self.model_dim)
            else:
                x = x + self.pos_enc(spatial_dim=spatial_dim, feat_dim=self.model_dim)
        x = dropout(x, self.input_dropout) if self.input_dropout else x
        new_state = State(pos=pos + 1 if spatial_dim == single_step_dim else pos)
        for name, layer in self.layers.items():
            x, new_state[name] = layer(x, spatial_dim=spatial_dim, state=state.get(name) if state else None,
                                       encoder=encoder[name] if encoder is not None else None)
            if collected_outputs is not None:
                collected_outputs[name] = x
        return self.logits(self.final_layer_norm(x)), new_state
