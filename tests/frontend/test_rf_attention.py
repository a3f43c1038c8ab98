"""``returnn.frontend.attention``: parameter names/dims as the reference (observed), values against numpy versions
of each attention variant (each checked against the reference's outputs on the same parameters), the single-step
state against the full sequence, positional encodings."""

import math

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, batch_dim, single_step_dim

from tests.frontend._module_utils import make_params, param_shapes, softmax

IN = Dim(8, name="in")
LENS = [5, 3]
H, KPH, VPH = 3, 4, 2
MASK = np.arange(5)[None, :] < np.asarray(LENS)[:, None]


def _kw():
    return dict(in_dim=IN, proj_dim=Dim(5, name="out"), key_dim_total=Dim(12, name="kt"),
                value_dim_total=Dim(6, name="vt"), num_heads=3)


def _qkv(x, p):
    qkv = (x @ p["qkv.weight"] + p["qkv.bias"]).reshape(*x.shape[:-1], H, 2 * KPH + VPH)
    return qkv[..., :KPH], qkv[..., KPH:2 * KPH], qkv[..., 2 * KPH:]


def _att(q, k, v, p, *, causal=False, extra=None):
    e = np.einsum("bqhk,bthk->bhqt", q, k)
    if extra is not None:
        e = e + extra
    e = e * KPH ** -0.5
    m = MASK[:, None, None, :]
    if causal:
        m = m & (np.arange(5)[None, :] <= np.arange(5)[:, None])[None, None]
    w = softmax(np.where(m, e, -np.inf))
    o = np.einsum("bhqt,bthv->bqhv", w, v).reshape(2, 5, H * VPH)
    return o @ p["proj.weight"] + p["proj.bias"]


def _rel_enc(n_pos, first, n):
    pos = np.arange(n_pos)[:, None] + first
    inv = np.exp(-(2 * np.arange(n // 2)) * math.log(1e4) / n)[None]
    return np.concatenate([np.sin(pos * inv), np.cos(pos * inv)], -1)


def _rope(a, pos):
    inv = np.exp(-(2 * np.arange(KPH // 2)) * math.log(1e4) / KPH)
    out = a.copy()
    for j in range(KPH // 2):
        c, s = np.cos(pos * inv[j]), np.sin(pos * inv[j])
        out[..., 2 * j] = a[..., 2 * j] * c - a[..., 2 * j + 1] * s
        out[..., 2 * j + 1] = a[..., 2 * j] * s + a[..., 2 * j + 1] * c
    return out


def _np_variant(name, x, p):
    q, k, v = _qkv(x, p)
    causal = "Causal" in name
    if "RelPos" in name:
        pe = (_rel_enc(9, -4, 8) @ p["linear_pos.weight"]).reshape(9, H, KPH)
        bd = np.einsum("bqhk,phk->bhqp", q + p["pos_bias_v"], pe)
        idx = np.arange(5)[None, :] - np.arange(5)[:, None] + 4
        bd = np.take_along_axis(bd, np.broadcast_to(idx[None, None], (2, H, 5, 5)), axis=-1)
        ac_extra = np.einsum("bqhk,bthk->bhqt", np.broadcast_to(p["pos_bias_u"], q.shape), k)
        return _att(q, k, v, p, causal=causal, extra=ac_extra + bd)
    if "Rotary" in name:
        pos = np.arange(5)[None, :, None]
        q, k = _rope(q, pos), _rope(k, pos)
    return _att(q, k, v, p, causal=causal)


SELF_ATT_NAMES = ["qkv.weight", "qkv.bias", "proj.weight", "proj.bias"]


def test_param_names_as_reference():
    """Observed in the reference (in 8, kt 12, vt 6, 3 heads, out 5)."""
    plain = [("qkv.weight", [8, 30]), ("qkv.bias", [30]), ("proj.weight", [6, 5]), ("proj.bias", [5])]
    for cls in ("SelfAttention", "CausalSelfAttention", "RotaryPosSelfAttention", "RotaryPosCausalSelfAttention"):
        m = getattr(rf, cls)(**_kw())
        assert param_shapes(m) == plain, cls
        assert (m.key_dim_per_head.dimension, m.value_dim_per_head.dimension, m.num_heads.dimension,
                m.att_dropout) == (4, 2, 3, 0.1)
    for cls in ("RelPosSelfAttention", "RelPosCausalSelfAttention"):
        assert param_shapes(getattr(rf, cls)(**_kw())) == [("pos_bias_u", [3, 4]), ("pos_bias_v", [3, 4])] + plain + [
            ("linear_pos.weight", [8, 12])]
    cross = rf.CrossAttention(encoder_dim=Dim(7, name="enc"), query_in_dim=IN, proj_dim=Dim(5, name="out"),
                              key_dim_total=Dim(12, name="kt"), value_dim_total=Dim(6, name="vt"), num_heads=3)
    assert param_shapes(cross) == [("kv.weight", [7, 18]), ("kv.bias", [18]), ("q.weight", [8, 12]),
                                   ("q.bias", [12]), ("proj.weight", [6, 5]), ("proj.bias", [5])]
    lrp = rf.LearnedRelativePositionalEncoding(IN)
    assert param_shapes(lrp) == [("pos_emb", [33, 8])] and lrp.clipping == 16


@pytest.mark.parametrize("name", ["SelfAttention", "CausalSelfAttention", "RelPosSelfAttention",
                                  "RelPosCausalSelfAttention", "RotaryPosSelfAttention",
                                  "RotaryPosCausalSelfAttention"])
def test_self_attention_variants_vs_numpy(g, name):
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(2).randn(2, 5, 8).astype("float32")
    t = g.time_dim(LENS)
    m = getattr(rf, name)(**_kw())
    p = make_params(g, m)
    y = m(g.const("x", [batch_dim, t, IN], xv), axis=t)
    if "Causal" in name:
        y = y[0]
    assert y.dims == (batch_dim, t, m.out_dim)
    np.testing.assert_allclose(g.run(y)[MASK], _np_variant(name, xv, p)[MASK], atol=1e-5)


@pytest.mark.parametrize("name", ["CausalSelfAttention", "RelPosCausalSelfAttention", "RotaryPosCausalSelfAttention"])
def test_causal_single_steps_equal_full_sequence(g, name):
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(3).randn(2, 3, 8).astype("float32")
    t = Dim(3, name="t3")
    m = getattr(rf, name)(**_kw())
    make_params(g, m)
    x = g.const("x", [batch_dim, t, IN], xv)
    full, _ = m(x, axis=t)
    full2, _ = m(x, axis=t, state=m.default_initial_state(batch_dims=[batch_dim]))
    state = m.default_initial_state(batch_dims=[batch_dim])
    steps = []
    for i in range(3):
        y, state = m(rf.gather(x, axis=t, indices=i), axis=single_step_dim, state=state)
        steps.append(y)
    assert state.k_accum.dims[1].dimension == 3 and steps[0].dims == (batch_dim, m.out_dim)
    fv, fv2, *sv = g.run(full, full2, *steps)
    np.testing.assert_allclose(fv2, fv, atol=1e-5)
    np.testing.assert_allclose(np.stack(sv, 1), fv, atol=1e-5)


def test_dot_attention_and_cross_attention(g):
    rf.init_forward_step_run_ctx()
    rs = np.random.RandomState(4)
    xv, ev = rs.randn(2, 5, 8).astype("float32"), rs.randn(2, 4, 7).astype("float32")
    t, et = g.time_dim(LENS), g.time_dim([4, 2], name="enc_t")
    x = g.const("x", [batch_dim, t, IN], xv)
    kv = Dim(None, name="kv")
    kv.dyn_size_ext = t.dyn_size_ext
    k, _ = rf.replace_dim(x, in_dim=t, out_dim=kv)
    y = rf.dot_attention(x, k, k, axis=kv, key_dim=IN)
    assert y.dims == (batch_dim, t, IN)
    e = np.where(MASK[:, None, :], np.einsum("bqf,btf->bqt", xv, xv) * 8 ** -0.5, -np.inf)
    np.testing.assert_allclose(g.run(y)[MASK], np.einsum("bqt,btf->bqf", softmax(e), xv)[MASK], atol=1e-5)
    enc = Dim(7, name="enc")
    cross = rf.CrossAttention(encoder_dim=enc, query_in_dim=IN, proj_dim=Dim(5, name="out"),
                              key_dim_total=Dim(12, name="kt"), value_dim_total=Dim(6, name="vt"), num_heads=3)
    p = make_params(g, cross)
    out = cross(x, cross.transform_encoder(g.const("e", [batch_dim, et, enc], ev), axis=et))
    assert out.dims == (batch_dim, t, cross.out_dim)
    kvv = (ev @ p["kv.weight"] + p["kv.bias"]).reshape(2, 4, H, KPH + VPH)
    q = (xv @ p["q.weight"] + p["q.bias"]).reshape(2, 5, H, KPH)
    en = np.einsum("bqhk,bthk->bhqt", q, kvv[..., :KPH]) * KPH ** -0.5
    en = np.where((np.arange(4)[None, :] < np.asarray([4, 2])[:, None])[:, None, None, :], en, -np.inf)
    o = np.einsum("bhqt,bthv->bqhv", softmax(en), kvv[..., KPH:]).reshape(2, 5, 6) @ p["proj.weight"] + p["proj.bias"]
    np.testing.assert_allclose(g.run(out)[MASK], o[MASK], atol=1e-5)


def test_positional_encodings(g):
    t = g.time_dim(LENS)
    sin = rf.sinusoidal_positional_encoding(spatial_dim=t, feat_dim=IN)
    rel, rel_dim = rf.relative_positional_encoding(key_value_spatial_dim=t, query_spatial_dim=t, feat_dim=IN)
    assert sin.dims == (t, IN) and rel.dims == (rel_dim, IN)
    sv, rv = g.run(sin, rel)
    inv = np.exp(-np.arange(4) * math.log(1e4) / 3)  # the reference's TF helper: timescales over n/2 - 1
    pos = np.arange(5)[:, None]
    np.testing.assert_allclose(sv, np.concatenate([np.sin(pos * inv), np.cos(pos * inv)], -1), atol=1e-5)
    np.testing.assert_allclose(rv, _rel_enc(9, -4, 8), atol=1e-5)
    assert rv.shape == (9, 8)
    np.testing.assert_allclose(sv[1, :2], [0.84147096, 0.046399228], atol=1e-6)  # observed in the reference
    lrp = rf.LearnedRelativePositionalEncoding(IN, clipping=2)
    p = make_params(g, lrp)
    out, d = lrp(t)
    idx = np.clip(np.arange(9) - 4, -2, 2) + 2
    np.testing.assert_allclose(g.run(out), p["pos_emb"][idx], atol=1e-6)


def test_apply_rope(g):
    from returnn.frontend.attention import _apply_rope
    xv = np.random.RandomState(5).randn(2, 5, 8).astype("float32")
    t = g.time_dim(LENS)
    pe = rf.sinusoidal_positional_encoding(spatial_dim=t, feat_dim=IN)
    y = _apply_rope(g.const("x", [batch_dim, t, IN], xv), pe, IN)
    assert y.dims == (IN, batch_dim, t)  # as the reference
    yv = np.transpose(g.run(y), (1, 2, 0))
    pev = g.run(pe)
    s, c = pev[:, :4], pev[:, 4:]
    exp = np.empty_like(xv)
    exp[..., 0::2] = xv[..., 0::2] * c - xv[..., 1::2] * s
    exp[..., 1::2] = xv[..., 0::2] * s + xv[..., 1::2] * c
    np.testing.assert_allclose(yv, exp, atol=1e-5)


def test_attention_errors(g):
    with pytest.raises(FrontendError, match="divisible by num_heads"):
        rf.SelfAttention(IN, None, key_dim_total=Dim(10, name="k"), value_dim_total=Dim(6, name="v"), num_heads=3)
    t = Dim(3, name="t")
    x = g.const("x", [t, IN], np.zeros((3, 8), "float32"))
    with pytest.raises(FrontendError, match="must not have the key/value axis"):
        rf.dot_attention(x, x, x, axis=t, key_dim=IN)
    m = rf.CausalSelfAttention(**_kw())
    make_params(g, m)
    with pytest.raises(FrontendError, match="needs state"):
        m(rf.gather(x, axis=t, indices=0), axis=single_step_dim)


@pytest.mark.parametrize("name", ["CausalSelfAttention", "RelPosCausalSelfAttention", "RotaryPosCausalSelfAttention"])
def test_causal_steps_in_scan_with_capacity(g, name):
    """With ``capacity``, the state keeps its dims, so the steps run inside ``rf.scan`` (a TF while loop)."""
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(6).randn(2, 4, 8).astype("float32")
    t = Dim(4, name="t4")
    m = getattr(rf, name)(**_kw())
    make_params(g, m)
    x = g.const("x", [batch_dim, t, IN], xv)
    full, _ = m(x, axis=t)

    def _body(x_t, state):
        return m(x_t, axis=single_step_dim, state=state)

    ys, final, _ = rf.scan(spatial_dim=t, xs=x, body=_body, ys=rf.Tensor("y", [batch_dim, m.out_dim], "float32"),
                           initial=m.default_initial_state(batch_dims=[batch_dim], capacity=6))
    assert ys.dims == (t, batch_dim, m.out_dim) and final.k_accum.dims[1].dimension == 6
    fv, yv, pos = g.run(full, ys, final.pos)
    np.testing.assert_allclose(np.transpose(yv, (1, 0, 2)), fv, atol=1e-5)
    assert pos == 4
    with pytest.raises(FrontendError, match="capacity is for single steps"):
        m(x, axis=t, state=m.default_initial_state(batch_dims=[batch_dim], capacity=6))


def test_transformer_decoder_steps_equal_full_sequence(g):
    """Single steps (python loop, and rf.scan with a capacity) give the full sequence's logits."""
    from returnn.frontend.decoder.transformer import TransformerDecoder
    rf.init_forward_step_run_ctx()
    rs = np.random.RandomState(7)
    vocab, enc_dim = Dim(11, name="vocab"), Dim(6, name="enc")
    dec = TransformerDecoder(enc_dim, vocab, Dim(8, name="model"), num_layers=2, num_heads=2,
                             ff_dim=Dim(12, name="ff"))
    make_params(g, dec)
    t, et = Dim(4, name="lab_t"), g.time_dim([5, 3], name="enc_t")
    y = g.const("y", [batch_dim, t], rs.randint(0, 11, size=(2, 4)).astype("int32"), sparse_dim=vocab)
    enc = dec.transform_encoder(g.const("e", [batch_dim, et, enc_dim], rs.randn(2, 5, 6).astype("float32")), axis=et)
    full, _ = dec(y, spatial_dim=t, state=dec.default_initial_state(batch_dims=[batch_dim]), encoder=enc)
    state, steps = dec.default_initial_state(batch_dims=[batch_dim]), []
    for i in range(4):
        out, state = dec(rf.gather(y, axis=t, indices=i), spatial_dim=single_step_dim, state=state, encoder=enc)
        steps.append(out)

    def _body(y_t, s):
        return dec(y_t, spatial_dim=single_step_dim, state=s, encoder=enc)

    ys, _, _ = rf.scan(spatial_dim=t, xs=y, body=_body, ys=rf.Tensor("l", [batch_dim, vocab], "float32"),
                       initial=dec.default_initial_state(batch_dims=[batch_dim], capacity=4))
    fv, yv, *sv = g.run(full, ys, *steps)
    np.testing.assert_allclose(np.stack(sv, 1), fv, atol=1e-5)
    np.testing.assert_allclose(np.transpose(yv, (1, 0, 2)), fv, atol=1e-5)


def test_att_dropout_in_training(g):
    """In training the weights are dropped (scaled by 1/(1-p)); with broadcasting, one mask over the key axis is
    shared by all queries and heads."""
    from returnn.frontend.attention import _dropout
    t, q, h = Dim(50, name="kv"), Dim(3, name="q"), Dim(2, name="h")
    w = g.const("w", [h, q, t], np.ones((2, 3, 50), "float32"))
    rf.init_train_step_run_ctx(train_flag=True)
    try:
        shared, own = _dropout(w, 0.5, True, t), _dropout(w, 0.5, False, t)
    finally:
        rf.init_forward_step_run_ctx()
    sv, ov = g.run(shared, own)
    assert set(np.unique(sv)) <= {0.0, 2.0} and set(np.unique(ov)) <= {0.0, 2.0}
    assert (sv == sv[:1, :1]).all() and not (ov == ov[:1, :1]).all()


def test_relative_positions_with_query_offset_and_learned_clipping(g):
    """Observed in the reference: query_offset=2 (T=5) gives the positions -6 .. 2; learned encodings (clipping 3)
    take the rows [0, 0, 1, 2, 3, 4, 5, 6, 6] (T=5), [0, 0, 1, 2, 3, 4, 5, 6] (queries 5, keys 4)."""
    t, et = g.time_dim(LENS), g.time_dim([4, 2], name="enc_t4")
    rel, _ = rf.relative_positional_encoding(key_value_spatial_dim=t, query_spatial_dim=t, feat_dim=IN,
                                             query_offset=2)
    np.testing.assert_allclose(g.run(rel), _rel_enc(9, -6, 8), atol=1e-5)
    lrp = rf.LearnedRelativePositionalEncoding(IN, clipping=3)
    make_params(g, lrp)
    lrp.pos_emb.raw_tensor.load(np.repeat(np.arange(7, dtype="float32")[:, None], 8, 1), g.session)
    same, _ = lrp(query_spatial_dim=t, key_value_spatial_dim=t)
    cross, cross_dim = lrp(query_spatial_dim=t, key_value_spatial_dim=et)
    sv, cv = g.run(same, cross)
    np.testing.assert_array_equal(sv[:, 0], [0, 0, 1, 2, 3, 4, 5, 6, 6])
    np.testing.assert_array_equal(cv[:, 0], [0, 0, 1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize("lens", [[5, 3], [1, 1]])
def test_rel_shift_as_numpy(g, lens):
    """``rel_shift`` (reshapes and slices) picks ``x[..., i, j - i + T - 1]``, also for T = 1 and shapes known only
    when run (a placeholder)."""
    import tensorflow as tf
    from returnn.frontend._att_layout import rel_shift
    t = Dim(None, name="time")
    t.dyn_size_ext = rf.Tensor("time_lens", dims=[Dim(2, name="b")], dtype="int32",
                               raw_tensor=tf.constant(np.asarray(lens, dtype="int32")))
    kv = Dim(None, name="kv")
    kv.dyn_size_ext = t.dyn_size_ext
    tt = max(lens)
    rel = Dim(None, name="rel")
    rel.dyn_size_ext = rf.Tensor("rel_size", dims=(), dtype="int32", raw_tensor=tf.constant(2 * tt - 1))
    xv = np.random.RandomState(5).randn(2, 3, tt, 2 * tt - 1).astype("float32")
    ph = tf.compat.v1.placeholder(tf.float32, [2, 3, None, None])
    b, h = Dim(2, name="b"), Dim(3, name="h")
    y = rel_shift(rf.Tensor("x", dims=[b, h, t, rel], dtype="float32", raw_tensor=ph), query_dim=t,
                  rel_dim=rel, key_dim=kv)
    assert y.dims == (b, h, t, kv)
    i, j = np.meshgrid(np.arange(tt), np.arange(tt), indexing="ij")
    np.testing.assert_array_equal(g.run(y, feed={ph: xv}), xv[:, :, i, j - i + tt - 1])


@pytest.mark.parametrize("per_head", [True, False])
def test_rel_pos_self_attention_heads_first_equals_gather_path(g, per_head):
    """The heads-first path (``RelPosSelfAttention.__call__``) gives the general path's values (``forward_qkv``,
    ``_rel_energy`` with its gather, ``_attend``) and dims, for a time-major input and without per-head encodings."""
    from returnn.frontend.attention import _kv_dim_like
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(6).randn(5, 2, 8).astype("float32")
    t = g.time_dim(LENS)
    m = rf.RelPosSelfAttention(**_kw(), separate_pos_emb_per_head=per_head)
    make_params(g, m)
    x = g.const("x", [t, batch_dim, IN], xv)
    y = m(x, axis=t)
    q, k, v = m.forward_qkv(x)
    kv = _kv_dim_like(t)
    k, _ = rf.replace_dim(k, in_dim=t, out_dim=kv)
    v, _ = rf.replace_dim(v, in_dim=t, out_dim=kv)
    ref = m._project(m._attend(m._rel_energy(q, k, query_dim=t, hist_dim=kv, q_offset=0), v, kv))
    assert y.dims == ref.dims == (t, batch_dim, m.out_dim)
    yv, rv = g.run(y, ref)
    np.testing.assert_allclose(yv[MASK.T], rv[MASK.T], atol=1e-6)


@pytest.mark.parametrize("linear_pos,separate,expected", [
    (True, True, [("linear_pos.weight", [8, 12]), ("learned_pos_emb.pos_emb", [33, 8])]),
    (True, False, [("linear_pos.weight", [8, 4]), ("learned_pos_emb.pos_emb", [33, 8])]),
    (False, True, [("learned_pos_emb.pos_emb", [33, 12])]),
    (False, False, [("learned_pos_emb.pos_emb", [33, 4])])])
def test_rel_pos_learned_emb_feature_dim_as_reference(linear_pos, separate, expected):
    """Observed in the reference: without ``linear_pos`` the (learned) encodings already have the keys' dim,
    ``key_dim_total`` or, shared by the heads, ``key_dim_per_head``; with it, ``in_dim``."""
    m = rf.RelPosSelfAttention(**_kw(), with_linear_pos=linear_pos, separate_pos_emb_per_head=separate,
                               learnable_pos_emb=True)
    assert [(n, s) for n, s in param_shapes(m) if "pos" in n and "bias" not in n] == expected


def test_rel_pos_learned_emb_shared_by_heads_vs_numpy(g):
    """The setups' "Shawn et al 2018" self-attention (no linear_pos, no biases, one learned encoding table
    ``[33, key_dim_per_head]`` for all heads, relative position ``key - query`` clipped at 16)."""
    rf.init_forward_step_run_ctx()
    xv = np.random.RandomState(3).randn(2, 5, 8).astype("float32")
    t = g.time_dim(LENS)
    m = rf.RelPosSelfAttention(**_kw(), with_bias=False, with_linear_pos=False, with_pos_bias=False,
                               learnable_pos_emb=True, separate_pos_emb_per_head=False)
    p = make_params(g, m)
    y = m(g.const("x", [batch_dim, t, IN], xv), axis=t)
    q, k, v = _qkv(xv, dict(p, **{"qkv.bias": 0.0}))
    rel = np.clip(np.arange(5)[None, :] - np.arange(5)[:, None], -16, 16) + 16  # [query, key]
    pe = p["learned_pos_emb.pos_emb"][rel]  # [query, key, kph]
    bd = np.einsum("bqhk,qtk->bhqt", q, pe)
    expected = _att(q, k, v, dict(p, **{"proj.bias": 0.0}), extra=bd)
    np.testing.assert_allclose(g.run(y)[MASK], expected[MASK], atol=1e-5)
