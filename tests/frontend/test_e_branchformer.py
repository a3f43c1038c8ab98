"""``returnn.frontend.encoder.e_branchformer``: parameter names/dims as the reference (observed), the cgMLP and the
merge against numpy (the gate half first, the depthwise convs over the unmasked frames, as observed in the
reference), the layer as their composition; ``Linear(d, d)`` reduces the weight's first axis."""

import math

import numpy as np
from scipy.special import erf

import returnn.frontend as rf
from returnn.frontend.encoder.e_branchformer import EBranchformerLayer, FeedForwardConvGated, Merge
from returnn.tensor import Dim, batch_dim

from tests.frontend._module_utils import make_params, param_shapes

LENS = [7, 4]
MASK = np.arange(7)[None, :] < np.asarray(LENS)[:, None]

OBSERVED_NAMES = [  # EBranchformerLayer(Dim(16), ff_dim=Dim(24), num_heads=2) in the reference
    ("ffn1_layer_norm.scale", [16]), ("ffn1_layer_norm.bias", [16]), ("ffn2_layer_norm.scale", [16]),
    ("ffn2_layer_norm.bias", [16]), ("self_att.pos_bias_u", [2, 8]), ("self_att.pos_bias_v", [2, 8]),
    ("self_att_layer_norm.scale", [16]), ("self_att_layer_norm.bias", [16]), ("cgmlp_layer_norm.scale", [16]),
    ("cgmlp_layer_norm.bias", [16]), ("final_layer_norm.scale", [16]), ("final_layer_norm.bias", [16]),
    ("ffn1.linear_ff.weight", [16, 24]), ("ffn1.linear_ff.bias", [24]), ("ffn1.linear_out.weight", [24, 16]),
    ("ffn1.linear_out.bias", [16]), ("ffn2.linear_ff.weight", [16, 24]), ("ffn2.linear_ff.bias", [24]),
    ("ffn2.linear_out.weight", [24, 16]), ("ffn2.linear_out.bias", [16]), ("self_att.qkv.weight", [16, 48]),
    ("self_att.qkv.bias", [48]), ("self_att.proj.weight", [16, 16]), ("self_att.proj.bias", [16]),
    ("self_att.linear_pos.weight", [16, 16]), ("cgmlp.linear_ff.weight", [16, 96]), ("cgmlp.linear_ff.bias", [96]),
    ("cgmlp.norm.scale", [48]), ("cgmlp.norm.bias", [48]), ("cgmlp.conv.filter", [48, 1, 31]),
    ("cgmlp.conv.bias", [48]), ("cgmlp.linear_out.weight", [48, 16]), ("cgmlp.linear_out.bias", [16]),
    ("merge.depthwise_conv_fusion.filter", [32, 1, 3]), ("merge.depthwise_conv_fusion.bias", [32]),
    ("merge.merge_proj.weight", [32, 16]), ("merge.merge_proj.bias", [16])]


def _ln(z, s, b, eps=1e-6):
    return (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + eps) * s + b


def _dconv(z, f, b):
    """depthwise conv, padding same, z [B,T,C], f [C,1,K]"""
    k = f.shape[-1]
    left = (k - 1) // 2
    zp = np.pad(z, ((0, 0), (left, k - 1 - left), (0, 0)))
    return sum(zp[:, i:i + z.shape[1]] * f[:, 0, i] for i in range(k)) + b


def test_param_names_as_reference():
    layer = EBranchformerLayer(Dim(16, name="model"), ff_dim=Dim(24, name="ff"), num_heads=2)
    assert param_shapes(layer) == OBSERVED_NAMES
    assert layer.cgmlp.ff_dim.dimension == 48 and layer.merge.concat_in_dim.dimension == 32


def test_cgmlp_merge_and_layer_vs_numpy(g):
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(5).randn(2, 7, 16).astype("float32")
    model = Dim(16, name="model")
    t = g.time_dim(LENS)
    x = g.const("x", [batch_dim, t, model], xv)
    layer = EBranchformerLayer(model, ff_dim=Dim(24, name="ff"), num_heads=2, cgmlp_conv_kernel=5)
    p = make_params(g, layer)
    cg = layer.cgmlp(x, spatial_dim=t)
    y = layer(x, spatial_dim=t)
    assert cg.dims == (batch_dim, t, model) and y.dims == (batch_dim, t, model)
    h = x_lin = xv @ p["cgmlp.linear_ff.weight"] + p["cgmlp.linear_ff.bias"]
    h = 0.5 * x_lin * (1 + erf(x_lin / math.sqrt(2)))
    gate, r = h[..., :48], h[..., 48:]
    gate = _dconv(_ln(gate, p["cgmlp.norm.scale"], p["cgmlp.norm.bias"]), p["cgmlp.conv.filter"], p["cgmlp.conv.bias"])
    cg_np = (r * gate) @ p["cgmlp.linear_out.weight"] + p["cgmlp.linear_out.bias"]
    np.testing.assert_allclose(g.run(cg)[MASK], cg_np[MASK], atol=1e-4)
    # the layer as the composition of its parts (each part checked on its own)
    ff1 = layer.ffn1(layer.ffn1_layer_norm(x))
    x1 = x + ff1 * 0.5
    att = layer.self_att(layer.self_att_layer_norm(x1), axis=t)
    cgm = layer.cgmlp(layer.cgmlp_layer_norm(x1), spatial_dim=t)
    merged = layer.merge(att, cgm, spatial_dim=t)
    av, cv, mv, x1v, yv = g.run(att, cgm, merged, x1, y)
    cat = np.concatenate([av, cv], -1)
    fused = _dconv(cat, p["merge.depthwise_conv_fusion.filter"], p["merge.depthwise_conv_fusion.bias"])
    np.testing.assert_allclose(mv[MASK], ((cat + fused) @ p["merge.merge_proj.weight"] +
                                          p["merge.merge_proj.bias"])[MASK], atol=1e-4)
    x2 = x1v + mv
    ff2 = g.run(layer.ffn2(layer.ffn2_layer_norm(g.const("x2", [batch_dim, t, model], x2))))
    expected = _ln(x2 + 0.5 * ff2, p["final_layer_norm.scale"], p["final_layer_norm.bias"])
    np.testing.assert_allclose(yv[MASK], expected[MASK], atol=1e-4)


def test_square_linear_reduces_the_input_axis(g):
    d = Dim(4, name="d")
    lin = rf.Linear(d, d)
    p = make_params(g, lin)
    xv = np.random.RandomState(1).randn(3, 4).astype("float32")
    y = lin(g.const("x", [Dim(3, name="n"), d], xv))
    np.testing.assert_allclose(g.run(y), xv @ p["weight"] + p["bias"], atol=1e-5)
