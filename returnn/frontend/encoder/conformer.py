"""The Conformer encoder (``ConformerEncoder``): a conv front end (``ConformerConvSubsample``), an input projection,
and layers of ``x + ffn1/2 → self-attention (relative positions) → conv block → x + ffn2/2 → final norm``.
Parameter names as the reference (observed)."""

from __future__ import annotations

import copy as _copy
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.attention import RelPosSelfAttention
from returnn.frontend.container import ModuleList, Sequential
from returnn.frontend.conv import Conv1d, Conv2d, pool
from returnn.frontend.encoder.base import ISeqDownsamplingEncoder
from returnn.frontend.linear import Linear
from returnn.frontend.module import Functional, Module
from returnn.frontend.normalization import BatchNorm, LayerNorm
from returnn.tensor import Dim, Tensor

__all__ = ["ConformerEncoder", "ConformerEncoderLayer", "ConformerConvSubsample", "ConformerPositionwiseFeedForward",
           "ConformerConvBlock", "make_ff", "make_norm", "conv_norm_use_mask_default"]

_NOT_GIVEN: Any = object()


def _act(fn: Any) -> Callable[[Tensor], Tensor]:
    if isinstance(fn, dict):
        from returnn.frontend.build_from_dict import build_from_dict
        return build_from_dict(fn)
    return fn


def conv_norm_use_mask_default() -> Optional[bool]:
    """:return: ``use_mask`` of the conv block's ``BatchNorm`` when the layer makes it (no ``use_mask`` given): False
    before behavior version 29, then None (the norm's own default), as the reference (observed)"""
    from returnn.util.behavior_version import BehaviorVersion
    return False if BehaviorVersion.get() < 29 else None


def make_norm(norm: Any, out_dim: Dim) -> Any:
    """:return: the norm module: a class (called with ``out_dim``), a dict (``build_from_dict``), or a module (a
    copy)"""
    if isinstance(norm, type):
        return norm(out_dim)
    if isinstance(norm, dict):
        from returnn.frontend.build_from_dict import build_from_dict
        return build_from_dict(norm, out_dim)
    if isinstance(norm, Module):
        return _copy.deepcopy(norm)
    return norm


class ConformerPositionwiseFeedForward(Module):
    """``linear_out(dropout(activation(linear_ff(x))))`` (activation default: swish/silu)."""

    def __init__(self, out_dim: Dim, *, ff_dim: Any = _NOT_GIVEN, dropout: float = 0.1, activation: Any = None,
                 with_bias: bool = True):
        """:param with_bias: whether both linear layers have a bias"""
        super().__init__()
        from returnn.frontend.math_ import silu
        if ff_dim is _NOT_GIVEN or ff_dim is None:
            ff_dim = 4 * out_dim.dimension
        self.out_dim = out_dim
        self.ff_dim = ff_dim if isinstance(ff_dim, Dim) else Dim(ff_dim, name="conformer-ff-dim")
        self.dropout = dropout
        self.activation = _act(activation) if activation is not None else silu
        self.linear_ff = Linear(out_dim, self.ff_dim, with_bias=with_bias)
        self.linear_out = Linear(self.ff_dim, out_dim, with_bias=with_bias)

    def __call__(self, inp: Tensor) -> Tensor:
        from returnn.frontend.dropout import dropout
        x = self.activation(self.linear_ff(inp))
        x = dropout(x, self.dropout) if self.dropout else x
        return self.linear_out(x)


def make_ff(*, out_dim: Dim, ff: Any = _NOT_GIVEN, ff_dim: Any = _NOT_GIVEN, ff_activation: Any = _NOT_GIVEN,
            dropout: float = 0.1) -> Module:
    """:return: the feed-forward module of a conformer layer"""
    if ff is _NOT_GIVEN or ff is None:
        kwargs: Dict[str, Any] = {"dropout": dropout}
        if ff_dim is not _NOT_GIVEN:
            kwargs["ff_dim"] = ff_dim
        if ff_activation is not _NOT_GIVEN:
            kwargs["activation"] = ff_activation
        return ConformerPositionwiseFeedForward(out_dim, **kwargs)
    if isinstance(ff, Module):
        return _copy.deepcopy(ff)
    if isinstance(ff, dict):
        from returnn.frontend.build_from_dict import build_from_dict
        return build_from_dict(ff, out_dim)
    return ff(out_dim)


class ConformerConvBlock(Module):
    """``positionwise_conv1`` (to 2*dim) → GLU → ``depthwise_conv`` → ``norm`` → swish → ``positionwise_conv2``."""

    def __init__(self, out_dim: Dim, *, kernel_size: int, norm: Any):
        super().__init__()
        self.out_dim = out_dim
        self.positionwise_conv1 = Linear(out_dim, 2 * out_dim)
        self.depthwise_conv = Conv1d(out_dim, out_dim, filter_size=kernel_size, groups=out_dim.dimension,
                                     padding="same")
        self.positionwise_conv2 = Linear(out_dim, out_dim)
        self.norm = make_norm(norm, out_dim) if not isinstance(norm, Module) else norm

    def __call__(self, inp: Tensor, *, spatial_dim: Dim) -> Tensor:
        from returnn.frontend.math_ import gating, swish
        x = self.positionwise_conv1(inp)
        x, _ = gating(x, axis=x.feature_dim, out_dim=self.out_dim)
        x, _ = self.depthwise_conv(x, in_spatial_dim=spatial_dim)
        x = self.norm(x)
        x = swish(x)
        return self.positionwise_conv2(x)


def _out_dim(dim: Dim, stride: int) -> Dim:
    """The size after a "same"-padded conv or pool with ``stride``: ``ceil(size / stride)``."""
    return dim if stride == 1 else dim.ceildiv_right(stride)


class ConformerConvSubsample(ISeqDownsamplingEncoder):
    """Conv2d layers over (time, feature) with an activation (default relu) and optional pooling after each; the
    features and channels are merged at the end. ``__call__(source, *, in_spatial_dim) -> (out, out_spatial)``."""

    def __init__(self, in_dim: Dim, *, out_dims: List[Union[Dim, int]], filter_sizes: List[Any],
                 strides: Optional[List[Any]] = None, pool_sizes: Optional[List[Tuple[int, int]]] = None,
                 activation: Callable[[Tensor], Tensor] = None, padding: str = "same"):
        super().__init__()
        from returnn.frontend.math_ import relu
        out_dims = [d if isinstance(d, Dim) else Dim(d, name=f"conv{i}") for i, d in enumerate(out_dims)]
        self.in_dim, self.activation, self.padding = in_dim, activation or relu, padding
        self.pool_sizes, self.strides = pool_sizes, strides
        self._dummy_in_dim = Dim(1, name="conv_dummy_in")
        self.conv_layers = ModuleList()
        prev = self._dummy_in_dim
        for i, (dim, fs) in enumerate(zip(out_dims, filter_sizes)):
            st = strides[i] if strides else 1
            self.conv_layers.append(Conv2d(prev, dim, fs if not isinstance(fs, int) else (fs, fs), padding=padding,
                                           strides=st))
            prev = dim
        self.conv_out_dim = prev
        feat = in_dim
        for i in range(len(out_dims)):
            st = strides[i] if strides else 1
            feat = _out_dim(feat, st[1] if isinstance(st, (tuple, list)) else st)
            if pool_sizes and i < len(pool_sizes) and pool_sizes[i]:
                feat = _out_dim(feat, pool_sizes[i][1])
        self.out_dim = feat * prev  # the features and channels merged
        factor = 1
        for i in range(len(out_dims)):
            st = strides[i] if strides else 1
            factor *= st[0] if isinstance(st, (tuple, list)) else st
            if pool_sizes and i < len(pool_sizes) and pool_sizes[i]:
                factor *= pool_sizes[i][0]
        self.downsample_factor = factor

    def __call__(self, source: Tensor, *, in_spatial_dim: Dim) -> Tuple[Tensor, Dim]:
        from returnn.frontend.array_ import expand_dim, merge_dims
        feat_dim = self.in_dim
        x = expand_dim(source, self._dummy_in_dim)
        spatial = [in_spatial_dim, feat_dim]
        for i, conv in enumerate(self.conv_layers):
            x, spatial = conv(x, in_spatial_dims=spatial)
            spatial = list(spatial)
            x = self.activation(x)
            if self.pool_sizes and i < len(self.pool_sizes) and self.pool_sizes[i]:
                x, spatial = pool(x, mode="max", pool_size=self.pool_sizes[i], padding="same",
                                  in_spatial_dims=spatial)
                spatial = list(spatial)
        out, _ = merge_dims(x, dims=[spatial[1], self.conv_out_dim], out_dim=self.out_dim)
        return _utils.make_tensor(out.name, out.dims, out.dtype, out.raw_tensor, feature_dim=out.dims[-1]), spatial[0]


class ConformerEncoderLayer(Module):
    """One conformer block."""

    def __init__(self, out_dim: Dim = Dim(512, name="conformer-enc-default-out-dim"), *, ff: Any = _NOT_GIVEN,
                 ff_dim: Any = _NOT_GIVEN, ff_activation: Any = _NOT_GIVEN, dropout: float = 0.1,
                 conv_kernel_size: int = 32, conv_norm: Any = _NOT_GIVEN, conv_norm_opts: Optional[dict] = None,
                 num_heads: int = 4, self_att: Any = None, self_att_opts: Optional[dict] = None,
                 att_dropout: float = 0.1, norm: Any = LayerNorm):
        super().__init__()
        self.out_dim, self.dropout = out_dim, dropout
        self.ffn1 = make_ff(out_dim=out_dim, ff=ff, ff_dim=ff_dim, ff_activation=ff_activation, dropout=dropout)
        self.ffn1_layer_norm = make_norm(norm, out_dim)
        self.ffn2 = make_ff(out_dim=out_dim, ff=ff, ff_dim=ff_dim, ff_activation=ff_activation, dropout=dropout)
        self.ffn2_layer_norm = make_norm(norm, out_dim)
        if conv_norm is _NOT_GIVEN or conv_norm is None:
            conv_norm = BatchNorm
        if isinstance(conv_norm, type):
            opts = dict(conv_norm_opts or {})
            if issubclass(conv_norm, BatchNorm) and "use_mask" not in opts:
                opts["use_mask"] = conv_norm_use_mask_default()
            conv_norm = conv_norm(out_dim, **opts)
        self.conv_block = ConformerConvBlock(out_dim, kernel_size=conv_kernel_size, norm=conv_norm)
        self.conv_layer_norm = make_norm(norm, out_dim)
        if self_att is None or isinstance(self_att, (type, dict)):
            opts = dict(in_dim=out_dim, proj_dim=out_dim, key_dim_total=out_dim, value_dim_total=out_dim,
                        num_heads=num_heads, att_dropout=att_dropout)
            opts.update(self_att_opts or {})
            if isinstance(self_att, dict):  # rf.build_dict(...): its class, its options over these
                from returnn.frontend.build_from_dict import resolve_class
                att_dict = dict(self_att)
                cls = resolve_class(att_dict.pop("class", RelPosSelfAttention))
                opts.update(att_dict)
                self_att = cls(**opts)
            else:
                self_att = (self_att or RelPosSelfAttention)(**opts)
        self.self_att = self_att
        self.self_att_layer_norm = make_norm(norm, out_dim)
        self.final_layer_norm = make_norm(norm, out_dim)

    def __call__(self, inp: Tensor, *, spatial_dim: Dim) -> Tensor:
        from returnn.frontend.dropout import dropout
        x = inp + 0.5 * dropout(self.ffn1(self.ffn1_layer_norm(inp)), self.dropout)
        x = x + dropout(self.self_att(self.self_att_layer_norm(x), axis=spatial_dim), self.dropout)
        x = x + dropout(self.conv_block(self.conv_layer_norm(x), spatial_dim=spatial_dim), self.dropout)
        x = x + 0.5 * dropout(self.ffn2(self.ffn2_layer_norm(x)), self.dropout)
        return self.final_layer_norm(x)


class ConformerEncoder(ISeqDownsamplingEncoder):
    """``input_layer`` → ``input_projection`` (no bias) → (scale, positional encoding) → dropout → ``layers``.
    ``__call__(source, *, in_spatial_dim) -> (out, out_spatial_dim)``."""

    def __init__(self, in_dim: Dim, out_dim: Union[Dim, int] = Dim(512, name="conformer-enc-default-out-dim"), *,
                 num_layers: int, input_layer: Any, input_embedding_scale: Optional[float] = None,
                 pos_enc: Any = None, input_dropout: float = 0.1, ff_dim: Any = _NOT_GIVEN,
                 ff_activation: Any = _NOT_GIVEN, dropout: float = 0.1, conv_kernel_size: Any = _NOT_GIVEN,
                 conv_norm: Any = _NOT_GIVEN, num_heads: int = 4, att_dropout: float = 0.1,
                 encoder_layer: Any = None, encoder_layer_opts: Optional[Dict[str, Any]] = None,
                 sequential: Any = Sequential):
        super().__init__()
        if not isinstance(out_dim, Dim):
            out_dim = Dim(out_dim, name="conformer-enc-out-dim")
        self.in_dim, self.out_dim = in_dim, out_dim
        if isinstance(input_layer, dict):  # rf.build_dict(...): built on in_dim
            from returnn.frontend.build_from_dict import build_from_dict
            input_layer = build_from_dict(input_layer, in_dim)
        elif isinstance(input_layer, type):
            input_layer = input_layer(in_dim)
        self.input_layer = input_layer
        self.input_embedding_scale, self.input_dropout, self.pos_enc = input_embedding_scale, input_dropout, pos_enc
        self.downsample_factor = getattr(input_layer, "downsample_factor", 1)
        proj_in = input_layer.out_dim if input_layer is not None else in_dim
        self.input_projection = Linear(proj_in, out_dim, with_bias=False)
        if encoder_layer is None or isinstance(encoder_layer, (type, dict)):
            opts: Dict[str, Any] = dict(out_dim=out_dim, dropout=dropout, num_heads=num_heads,
                                        att_dropout=att_dropout)
            for key, value in (("ff_dim", ff_dim), ("ff_activation", ff_activation),
                               ("conv_kernel_size", conv_kernel_size), ("conv_norm", conv_norm)):
                if value is not _NOT_GIVEN:
                    opts[key] = value
            opts.update(encoder_layer_opts or {})
            cls = encoder_layer if isinstance(encoder_layer, type) else ConformerEncoderLayer
            if isinstance(encoder_layer, dict):  # rf.build_dict(...): its class, its options over these
                from returnn.frontend.build_from_dict import resolve_class
                layer_dict = dict(encoder_layer)
                cls = resolve_class(layer_dict.pop("class", ConformerEncoderLayer))
                opts.update(layer_dict)
            layers = [cls(**opts) for _ in range(num_layers)]
        else:
            layers = [_copy.deepcopy(encoder_layer) for _ in range(num_layers)]
        self.layers = sequential(*layers)

    def __call__(self, source: Tensor, *, in_spatial_dim: Dim, collected_outputs: Optional[dict] = None
                 ) -> Tuple[Tensor, Dim]:
        from returnn.frontend.dropout import dropout
        if self.input_layer is not None:
            x, out_spatial = self.input_layer(source, in_spatial_dim=in_spatial_dim)
        else:
            x, out_spatial = source, in_spatial_dim
        x = self.input_projection(x)
        if self.input_embedding_scale:
            x = x * self.input_embedding_scale
        if self.pos_enc is not None:
            x = x + self.pos_enc(spatial_dim=out_spatial, feat_dim=self.out_dim)
        x = dropout(x, self.input_dropout) if self.input_dropout else x
        for i, layer in enumerate(self.layers):
            x = layer(x, spatial_dim=out_spatial)
            if collected_outputs is not None:
                collected_outputs[str(i)] = x
        return x, out_spatial


del FrontendError, Functional
