"""E-Branchformer layer (Kim et al., 2022): a conformer-like layer whose middle part runs self-attention and a
convolutional gating MLP (cgMLP) in two branches and merges them::

    x = x + 0.5 * ffn1(ffn1_layer_norm(x))
    a = self_att(self_att_layer_norm(x)); c = cgmlp(cgmlp_layer_norm(x))
    x = x + merge(a, c)
    x = x + 0.5 * ffn2(ffn2_layer_norm(x))
    out = final_layer_norm(x)

Parameter names and defaults as the reference (observed): ``ffn1``/``ffn2`` (``ConformerPositionwiseFeedForward``),
``self_att`` (``RelPosSelfAttention``), ``cgmlp`` (:class:`FeedForwardConvGated`: ``linear_ff``, ``norm``, ``conv``,
``linear_out``; ``ff_dim`` 3 * ``out_dim``), ``merge`` (:class:`Merge`: ``depthwise_conv_fusion``, ``merge_proj``),
and the layer norms.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.attention import RelPosSelfAttention
from returnn.frontend.conv import Conv1d
from returnn.frontend.encoder.conformer import make_ff, make_norm
from returnn.frontend.linear import Linear
from returnn.frontend.module import Module
from returnn.frontend.normalization import LayerNorm
from returnn.tensor import Dim, Tensor

__all__ = ["EBranchformerLayer", "FeedForwardConvGated", "Merge"]

_NOT_GIVEN: Any = object()


def _build(value: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(value, dict):
        from returnn.frontend.build_from_dict import build_from_dict
        return build_from_dict(value, *args, **kwargs)
    return value


class FeedForwardConvGated(Module):
    """The convolutional gating MLP (cgMLP)::

        h = activation(linear_ff(x))          # [.., 2 * ff_dim]
        g, r = halves of h                    # the gate half first (as the reference)
        g = gate_activation(conv(norm(g)))    # depthwise conv over the spatial dim
        out = linear_out(dropout(r * g))

    :param out_dim: the input and output dim
    :param ff_dim: the gated width (default ``3 * out_dim``); ``linear_ff`` maps to ``2 * ff_dim``
    :param kernel_size: of the depthwise ``conv`` (padding "same"), default 31
    :param activation: default ``rf.gelu``; ``gate_activation``: default identity
    """

    def __init__(self, out_dim: Dim, *, ff_dim: Any = _NOT_GIVEN, kernel_size: int = 31, dropout: float = 0.1,
                 activation: Any = None, gate_activation: Any = None, with_bias: bool = True,
                 norm: Any = LayerNorm):
        super().__init__()
        from returnn.frontend.math_ import gelu, identity
        if ff_dim is _NOT_GIVEN or ff_dim is None:
            ff_dim = Dim(3 * out_dim.dimension, name=f"{out_dim.name}*3")
        elif isinstance(ff_dim, int):
            ff_dim = Dim(ff_dim, name="cgmlp-ff-dim")
        self.out_dim = out_dim
        self.ff_dim = ff_dim
        self.dropout = dropout
        self.dropout_broadcast = True
        self.activation = _build(activation) if activation is not None else gelu
        self.gate_activation = _build(gate_activation) if gate_activation is not None else identity
        self.linear_ff = Linear(out_dim, Dim(2 * ff_dim.dimension, name=f"2*{ff_dim.name}"), with_bias=with_bias)
        self.norm = make_norm(norm, ff_dim)
        self.conv = Conv1d(ff_dim, ff_dim, filter_size=kernel_size, groups=ff_dim.dimension, padding="same",
                           with_bias=with_bias)
        self.linear_out = Linear(ff_dim, out_dim, with_bias=with_bias)

    def __call__(self, x: Tensor, *, spatial_dim: Dim) -> Tensor:
        """:return: ``x``'s dims (``out_dim``)"""
        from returnn.frontend.array_ import split
        from returnn.frontend.dropout import dropout
        _utils.check_dims("FeedForwardConvGated", x, [self.out_dim, spatial_dim])
        h = self.activation(self.linear_ff(x))
        g, r = split(h, axis=self.linear_ff.out_dim, out_dims=[self.ff_dim, self.ff_dim])
        g = self.norm(g)
        g, _ = self.conv(g, in_spatial_dim=spatial_dim, out_spatial_dim=spatial_dim)
        g = self.gate_activation(g)
        out = r * g
        if self.dropout:
            out = dropout(out, self.dropout)
        return self.linear_out(out)


class Merge(Module):
    """Merges the two branches: ``c = concat(x1, x2)``; ``merge_proj(c + depthwise_conv_fusion(c))``.

    :param merge_conv_kernel: kernel size of the depthwise fusion conv (padding "same"), default 3
    """

    def __init__(self, *, in_dim1: Dim, in_dim2: Dim, out_dim: Dim, merge_conv_kernel: int = 3):
        super().__init__()
        self.in_dim1, self.in_dim2 = in_dim1, in_dim2
        self.concat_in_dim = Dim(in_dim1.dimension + in_dim2.dimension,
                                 name=f"2*{in_dim1.name}" if in_dim1 == in_dim2 else f"{in_dim1.name}+{in_dim2.name}")
        self.out_dim = out_dim
        self.depthwise_conv_fusion = Conv1d(self.concat_in_dim, self.concat_in_dim, filter_size=merge_conv_kernel,
                                            groups=self.concat_in_dim.dimension, padding="same")
        self.merge_proj = Linear(self.concat_in_dim, out_dim)

    def __call__(self, x1: Tensor, x2: Tensor, *, spatial_dim: Dim) -> Tensor:
        """:return: ``[..., spatial_dim, out_dim]``"""
        from returnn.frontend.array_ import concat
        from returnn.frontend.dims import replace_dim
        if self.in_dim1 == self.in_dim2:  # the two branches need their own dims to be concatenated
            tmp = Dim(self.in_dim2.dimension, name=f"{self.in_dim2.name}:branch2")
            x2, _ = replace_dim(x2, in_dim=self.in_dim2, out_dim=tmp)
            c, _ = concat((x1, self.in_dim1), (x2, tmp), out_dim=self.concat_in_dim)
        else:
            c, _ = concat((x1, self.in_dim1), (x2, self.in_dim2), out_dim=self.concat_in_dim)
        fused, _ = self.depthwise_conv_fusion(c, in_spatial_dim=spatial_dim, out_spatial_dim=spatial_dim)
        return self.merge_proj(c + fused)


class EBranchformerLayer(Module):
    """One E-Branchformer layer (see the module docstring). ``__call__(inp, *, spatial_dim) -> out``.

    :param out_dim: the model dim (default 512, as the reference's conformer default)
    :param ff: the feed-forward modules (class, dict, module; default ``ConformerPositionwiseFeedForward`` with
        ``ff_dim``/``ff_activation``)
    :param num_heads: of ``self_att`` (``RelPosSelfAttention``, key/value dims ``out_dim``)
    :param cgmlp: the cgMLP (default :class:`FeedForwardConvGated` with ``cgmlp_ff_dim`` and ``cgmlp_conv_kernel``)
    :param merge_conv_kernel: of :class:`Merge`
    :param norm: the norm class (default ``rf.LayerNorm``)
    """

    def __init__(self, out_dim: Dim = Dim(512, name="conformer-enc-default-out-dim"), *, ff: Any = _NOT_GIVEN,
                 ff_dim: Any = _NOT_GIVEN, ff_activation: Any = _NOT_GIVEN, dropout: float = 0.1, num_heads: int = 4,
                 self_att: Any = _NOT_GIVEN, att_dropout: float = 0.1, cgmlp: Any = _NOT_GIVEN,
                 cgmlp_ff_dim: Any = _NOT_GIVEN, cgmlp_conv_kernel: int = 31, merge_conv_kernel: int = 3,
                 norm: Any = LayerNorm):
        super().__init__()
        if not isinstance(out_dim, Dim) or out_dim.dimension is None:
            raise FrontendError("EBranchformerLayer", "out_dim must be a static Dim", got=out_dim)
        self.dropout = dropout
        self.dropout_broadcast = True
        self.out_dim = out_dim
        ff_opts = {k: v for k, v in (("ff", ff), ("ff_dim", ff_dim), ("ff_activation", ff_activation))
                   if v is not _NOT_GIVEN}
        self.ffn1 = make_ff(out_dim=out_dim, dropout=dropout, **ff_opts)
        self.ffn1_layer_norm = make_norm(norm, out_dim)
        self.ffn2 = make_ff(out_dim=out_dim, dropout=dropout, **ff_opts)
        self.ffn2_layer_norm = make_norm(norm, out_dim)
        if self_att is _NOT_GIVEN or self_att is None or isinstance(self_att, (type, dict)):
            opts = dict(in_dim=out_dim, proj_dim=out_dim, key_dim_total=out_dim, value_dim_total=out_dim,
                        num_heads=num_heads, att_dropout=att_dropout)
            if isinstance(self_att, dict):
                from returnn.frontend.build_from_dict import build_from_dict
                self_att = build_from_dict(self_att, **opts)
            else:
                self_att = (self_att if isinstance(self_att, type) else RelPosSelfAttention)(**opts)
        self.self_att = self_att
        self.self_att_layer_norm = make_norm(norm, out_dim)
        if cgmlp is _NOT_GIVEN or cgmlp is None:
            cgmlp = FeedForwardConvGated(out_dim, ff_dim=cgmlp_ff_dim, kernel_size=cgmlp_conv_kernel, dropout=dropout)
        elif isinstance(cgmlp, type):
            cgmlp = cgmlp(out_dim)
        elif isinstance(cgmlp, dict):
            cgmlp = _build(cgmlp, out_dim)
        self.cgmlp = cgmlp
        self.cgmlp_layer_norm = make_norm(norm, out_dim)
        self.merge = Merge(in_dim1=self_att.out_dim, in_dim2=out_dim, out_dim=out_dim,
                           merge_conv_kernel=merge_conv_kernel)
        self.final_layer_norm = make_norm(norm, out_dim)

    def __call__(self, inp: Tensor, *, spatial_dim: Dim) -> Tensor:
        """:return: ``inp``'s dims"""
        _utils.check_dims("EBranchformerLayer", inp, [self.out_dim, spatial_dim])
        x = inp + self._drop(self.ffn1(self.ffn1_layer_norm(inp))) * 0.5
        a = self._drop(self.self_att(self.self_att_layer_norm(x), axis=spatial_dim))
        c = self._drop(self.cgmlp(self.cgmlp_layer_norm(x), spatial_dim=spatial_dim))
        x = x + self._drop(self.merge(a, c, spatial_dim=spatial_dim))
        x = x + self._drop(self.ffn2(self.ffn2_layer_norm(x))) * 0.5
        return self.final_layer_norm(x)

    def _drop(self, x: Tensor) -> Tensor:
        if not self.dropout:
            return x
        from returnn.frontend.dropout import dropout
        return dropout(x, self.dropout)
