"""RF names and behaviours that the published i6_experiments setups rely on (found by benchmarks/rf-setups): each
against the reference's behaviour as observed by running it, or numpy."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import TensorArgError
from returnn.frontend.decoder.transformer import TransformerDecoder
from returnn.tensor import Dim, Tensor, batch_dim


def test_dim_get_size_tensor(g):
    """Observed in the reference: a static dim gives a scalar int32 Tensor ``<name>:size`` of its size; a dim with
    lengths gives its ``dyn_size_ext`` itself."""
    rf.select_backend_tf()
    s = Dim(5, name="s")
    size = s.get_size_tensor()
    assert (size.name, size.dims, size.dtype) == ("s:size", (), "int32")
    assert g.run(size) == 5
    t = g.time_dim([3, 2])
    assert t.get_size_tensor() is t.dyn_size_ext
    np.testing.assert_array_equal(g.run(t.get_size_tensor()), [3, 2])
    with pytest.raises(TensorArgError, match="size tensor"):
        Dim(None, name="unknown").get_size_tensor()


def test_tensor_remaining_dims():
    """Observed in the reference: the dims in their order without ``remove`` (a dim or a sequence; None: all)."""
    t, f = Dim(None, name="t"), Dim(3, name="f")
    x = Tensor("x", [batch_dim, t, f], "float32")
    assert x.remaining_dims(t) == [batch_dim, f]
    assert x.remaining_dims([t, f]) == [batch_dim]
    assert x.remaining_dims() == x.remaining_dims(()) == [batch_dim, t, f]
    with pytest.raises(TensorArgError, match="not one of its dims"):
        x.remaining_dims(Dim(4, name="other"))


def test_max_pool_takes_padded_frames_as_they_are(g):
    """Observed in the reference's TF backend: pooling does not mask the padding (sequence 1 has 3 frames, its
    padded frame holds 100; a window reaching into it takes 100)."""
    rf.select_backend_tf()
    t = g.time_dim([4, 3])
    f = Dim(2, name="F")
    x = np.arange(16, dtype=np.float32).reshape(2, 4, 2) - 20.0
    x[1, 3] = 100.0
    xt = g.const("x", [batch_dim, t, f], x)
    y, t1 = rf.pool1d(xt, mode="max", pool_size=2, padding="same", in_spatial_dim=t, strides=1)
    np.testing.assert_array_equal(g.run(y.copy_transpose([batch_dim, t1, f]))[1],
                                  [[-10, -9], [-8, -7], [100, 100], [100, 100]])
    y2, t2 = rf.pool1d(xt, mode="max", pool_size=2, padding="same", in_spatial_dim=t)
    np.testing.assert_array_equal(g.run(y2.copy_transpose([batch_dim, t2, f]))[1], [[-10, -9], [100, 100]])
    np.testing.assert_array_equal(g.run(t2.dyn_size_ext), [2, 2])


def test_transformer_decoder_initial_state_pos_is_a_tensor():
    """Observed in the reference: the state's ``pos`` is a scalar int32 Tensor (setups map a beam's gather over the
    state's Tensors and Dims, and fail on an int)."""
    rf.select_backend_tf()
    dec = TransformerDecoder(None, Dim(5, name="v"), Dim(8, name="m"), num_layers=1, num_heads=2)
    pos = dec.default_initial_state(batch_dims=[batch_dim])["pos"]
    assert isinstance(pos, Tensor) and (pos.dims, pos.dtype) == ((), "int32")


@pytest.mark.parametrize("version,scale,input_dropout,logits_weight", [
    (None, 1.0, 0.0, True), (19, 1.0, 0.0, True), (20, 4.0, 0.2, False), (21, 4.0, 0.2, False)])
def test_transformer_decoder_defaults_by_behavior_version(version, scale, input_dropout, logits_weight):
    """Observed in the reference (model dim 16, dropout 0.2): before behavior_version 20 (or unset) the logits have
    their own weight, the embedding scale is 1, no input dropout; from 20 on the logits share
    ``input_embedding.weight``, the scale is sqrt(16) = 4 and the input dropout is ``dropout``."""
    from returnn.util.behavior_version import BehaviorVersion
    state = BehaviorVersion._get_state()  # noqa: SLF001 (the test restores the process-wide version)
    BehaviorVersion._reset()  # noqa: SLF001
    try:
        BehaviorVersion.set(version)
        dec = TransformerDecoder(Dim(6, name="e"), Dim(5, name="v"), Dim(16, name="m"), num_layers=1, num_heads=2,
                                 dropout=0.2)
    finally:
        BehaviorVersion._reset(state)  # noqa: SLF001
    assert (dec.input_embedding_scale, dec.input_dropout) == (scale, input_dropout)
    names = [n for n, _ in dec.named_parameters() if not n.startswith("layers.")]
    assert names == ["input_embedding.weight", "final_layer_norm.scale", "final_layer_norm.bias"] + (
        ["logits.weight"] if logits_weight else [])
    assert (dec.logits.weight is dec.input_embedding.weight) == (not logits_weight)


def test_transformer_decoder_shared_embedding_logits_vs_numpy(g):
    """With ``share_embedding=True`` the logits are ``x @ E^T`` of the embedding ``E [vocab, model]``."""
    from tests.frontend._module_utils import make_params
    rf.init_forward_step_run_ctx()
    vocab, model = Dim(5, name="v5s"), Dim(4, name="m4s")
    dec = TransformerDecoder(None, vocab, model, num_layers=0, num_heads=2, share_embedding=True,
                             input_embedding_scale=1.0, input_dropout=0.0, pos_enc=None)
    p = make_params(g, dec)
    t = g.time_dim([3, 2])
    labels = np.array([[1, 2, 3], [4, 0, 0]], "int32")
    logits, _ = dec(g.const("y", [batch_dim, t], labels, sparse_dim=vocab), spatial_dim=t,
                    state=dec.default_initial_state(batch_dims=[batch_dim]))
    x = p["input_embedding.weight"][labels]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-6)
    x = x * p["final_layer_norm.scale"] + p["final_layer_norm.bias"]
    expected = x @ p["input_embedding.weight"].T
    out = g.run(logits.copy_transpose([batch_dim, t, vocab]))
    np.testing.assert_allclose(out[0], expected[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[1, :2], expected[1, :2], rtol=1e-4, atol=1e-4)


def test_conformer_encoder_layer_from_build_dict():
    """``encoder_layer=rf.build_dict(ConformerEncoderLayer, ...)`` with a ``self_att`` dict: their options are used
    (observed in the reference: 8 heads, no biases, no linear_pos, one learned encoding [33, 64], relu_square)."""
    from returnn.frontend.encoder.conformer import ConformerEncoder, ConformerEncoderLayer
    rf.select_backend_tf()
    layer = rf.build_dict(
        ConformerEncoderLayer, conv_norm={"class": "rf.BatchNorm", "use_mask": True},
        self_att=rf.build_dict(rf.RelPosSelfAttention, with_bias=False, with_linear_pos=False, with_pos_bias=False,
                               learnable_pos_emb=True, separate_pos_emb_per_head=False),
        ff_activation=rf.build_dict(rf.relu_square), num_heads=8)
    enc = ConformerEncoder(Dim(80, name="in"), Dim(512, name="enc"), encoder_layer=layer, num_layers=1,
                           input_layer=None)
    assert [(n, [d.dimension for d in p.dims]) for n, p in enc.named_parameters() if ".self_att." in n] == [
        ("layers.0.self_att.qkv.weight", [512, 1536]), ("layers.0.self_att.proj.weight", [512, 512]),
        ("layers.0.self_att.learned_pos_emb.pos_emb", [33, 64])]
    assert enc.layers[0].self_att.num_heads.dimension == 8
    assert enc.layers[0].ffn1.activation is rf.relu_square


def test_conformer_encoder_input_layer_and_ff_from_build_dict():
    """``input_layer=rf.build_dict(ConformerConvSubsample, ...)`` is built on ``in_dim``, and
    ``ConformerPositionwiseFeedForward(with_bias=False)`` has no biases (ctc_claix2023.py): the parameter names and
    shapes observed in the reference (in 10 → pooled/strided conv [4, 8] → 5 * 8 = 40 → 16)."""
    from returnn.frontend.encoder.conformer import (
        ConformerConvSubsample, ConformerEncoder, ConformerEncoderLayer, ConformerPositionwiseFeedForward)
    rf.select_backend_tf()
    enc = ConformerEncoder(
        Dim(10, name="in"), 16, num_layers=1,
        input_layer=rf.build_dict(ConformerConvSubsample, out_dims=[4, 8], filter_sizes=[(3, 3), (3, 3)],
                                  pool_sizes=[(1, 2)], strides=[(1, 1), (3, 1)]),
        encoder_layer=rf.build_dict(
            ConformerEncoderLayer, num_heads=2,
            ff=rf.build_dict(ConformerPositionwiseFeedForward, activation=rf.build_dict(rf.relu_square),
                             with_bias=False)))
    assert isinstance(enc.input_layer, ConformerConvSubsample) and enc.input_layer.out_dim.dimension == 40
    assert enc.downsample_factor == 3
    params = {n: [d.dimension for d in p.dims] for n, p in enc.named_parameters()}
    assert {n: s for n, s in params.items() if not n.startswith("layers.0.") or ".ffn" in n} == {
        "input_projection.weight": [40, 16],
        "input_layer.conv_layers.0.filter": [4, 1, 3, 3], "input_layer.conv_layers.0.bias": [4],
        "input_layer.conv_layers.1.filter": [8, 4, 3, 3], "input_layer.conv_layers.1.bias": [8],
        "layers.0.ffn1_layer_norm.scale": [16], "layers.0.ffn1_layer_norm.bias": [16],
        "layers.0.ffn2_layer_norm.scale": [16], "layers.0.ffn2_layer_norm.bias": [16],
        "layers.0.ffn1.linear_ff.weight": [16, 64], "layers.0.ffn1.linear_out.weight": [64, 16],
        "layers.0.ffn2.linear_ff.weight": [16, 64], "layers.0.ffn2.linear_out.weight": [64, 16]}
    assert len(params) == 36
    assert enc.layers[0].ffn2.activation is rf.relu_square


@pytest.mark.parametrize("version, use_mask", [(21, False), (28, False), (29, None), (30, None)])
def test_conformer_conv_norm_use_mask_default(version, use_mask):
    """Observed in the reference: ``conv_norm_use_mask_default()`` is False before behavior version 29, then None;
    the layer's own BatchNorm (default, or the class) gets it unless ``conv_norm_opts`` says ``use_mask``; a
    ``rf.build_dict`` norm keeps its own (None)."""
    from returnn.frontend.encoder.conformer import ConformerEncoderLayer, conv_norm_use_mask_default
    from returnn.util.behavior_version import BehaviorVersion
    rf.select_backend_tf()
    f = Dim(8, name="f")
    state = BehaviorVersion._get_state()  # noqa: SLF001 (the test restores the process-wide version)
    BehaviorVersion._reset()  # noqa: SLF001
    try:
        BehaviorVersion.set(version)
        assert conv_norm_use_mask_default() is use_mask
        assert ConformerEncoderLayer(f, num_heads=2).conv_block.norm.use_mask is use_mask
        assert ConformerEncoderLayer(f, num_heads=2, conv_norm=rf.BatchNorm).conv_block.norm.use_mask is use_mask
        assert ConformerEncoderLayer(f, num_heads=2, conv_norm=rf.build_dict(rf.BatchNorm)
                                     ).conv_block.norm.use_mask is None
        assert ConformerEncoderLayer(f, num_heads=2, conv_norm_opts=dict(use_mask=True)
                                     ).conv_block.norm.use_mask is True
    finally:
        BehaviorVersion._reset(state)  # noqa: SLF001


def test_tensor_device_is_none():
    """Observed in the reference's TF backend: ``Tensor.device`` is None (numpy, TF graph and eager tensors)."""
    t = Tensor("x", [Dim(2, name="a")], "float32", raw_tensor=np.zeros(2, "float32"))
    assert t.device is None and Tensor("x", [Dim(2, name="a")], "float32").device is None


def test_collect_outputs_dict():
    """Observed in the reference: keys outside the patterns are ignored (``setdefault`` then returns None)."""
    from returnn.util.collect_outputs_dict import CollectOutputsDict, is_key_allowed_in_collect_outputs_dict
    d = CollectOutputsDict(allowed_key_patterns=["1", "enc*"])
    d["1"], d["2"], d["enc_x"] = 1, 2, 3
    assert d.setdefault("3", 4) is None and d.setdefault("1", 9) == 1
    d.update({"1": 5, "x": 6})
    assert d == {"1": 5, "enc_x": 3} and not d.is_key_allowed("2") and d.is_key_allowed("enc")
    e = CollectOutputsDict()
    e["z"] = 1
    assert e == {"z": 1}
    assert is_key_allowed_in_collect_outputs_dict(d, "1") and is_key_allowed_in_collect_outputs_dict({}, "q")
    assert not is_key_allowed_in_collect_outputs_dict(d, "q")


def test_dim_get_mask(g):
    """The valid frames of a time dim as a bool ``[B, T]`` mask (numpy)."""
    rf.select_backend_tf()
    t = g.time_dim([3, 1])
    mask = t.get_mask()
    assert mask.dtype == "bool" and set(mask.dims) == {batch_dim, t}
    np.testing.assert_array_equal(g.run(mask.copy_transpose([batch_dim, t])), [[1, 1, 1], [1, 0, 0]])
    assert t.get_mask(dim_order=[t, batch_dim]).dims == (t, batch_dim)


def test_top_k_indices_per_axis_of_a_sequence(g):
    """Observed in the reference: ``axis=[K]`` (a sequence, even of one dim) gives a list of indices; ``axis=K`` one
    Tensor."""
    rf.select_backend_tf()
    k, n = Dim(5, name="K5t"), Dim(2, name="N2t")
    x = g.const("x", [n, k], np.array([[0.1, 0.5, -0.3, 1.2, 0.0], [2.0, -1.0, 0.3, 0.4, 0.1]], np.float32))
    _, idx, k_dim = rf.top_k(x, axis=k, k=2)
    values, idx_list, k_dim2 = rf.top_k(x, axis=[k], k=2)
    assert isinstance(idx, Tensor) and isinstance(idx_list, list) and len(idx_list) == 1
    assert idx_list[0].sparse_dim == k
    np.testing.assert_array_equal(g.run(idx_list[0].copy_transpose([n, k_dim2])), [[3, 1], [0, 3]])
    np.testing.assert_allclose(g.run(values.copy_transpose([n, k_dim2])), [[1.2, 0.5], [2.0, 0.4]])


@pytest.mark.parametrize("kwargs, lens, y0, y1", [
    (dict(window_left=0, stride=3), [3, 2], [[1, 2, 3, 4], [4, 5, 6, 7], [7, 0, 0, 0]],
     [[8, 9, 10, 11], [11, 12, 0, 0], [0, 0, 0, 0]]),
    (dict(stride=2), [4, 3], [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 0, 0]],
     [[0, 8, 9, 10], [9, 10, 11, 12], [11, 12, 0, 0], [0, 0, 0, 0]]),
    (dict(padding="valid", stride=2), [2, 1], [[1, 2, 3, 4], [3, 4, 5, 6]], [[8, 9, 10, 11], [10, 11, 12, 0]]),
])
def test_window_with_stride_as_observed(g, kwargs, lens, y0, y1):
    """``rf.window(..., stride=s)`` (the chunked conformer's input chunks): window ``i`` starts at frame ``i * s`` of
    the padded sequence, ``ceil(T / s)`` windows ("same") or ``ceil((T - w + 1) / s)`` ("valid"); values and
    lengths observed in the reference (lengths 7 and 5, window 4)."""
    t = g.time_dim([7, 5], name="t_win")
    xv = (np.arange(14).reshape(2, 7) + 1).astype("float32")
    xv[1, 5:] = 0
    x = g.const("x", [batch_dim, t], xv)
    w = Dim(4, name="w")
    y, out_dim = rf.window(x, spatial_dim=t, window_dim=w, **kwargs)
    yv, lv = g.run(y.copy_transpose([batch_dim, out_dim, w]), out_dim.dyn_size_ext)
    np.testing.assert_array_equal(lv, lens)
    np.testing.assert_array_equal(yv[0], y0)
    np.testing.assert_array_equal(yv[1], y1)


def test_split_dims_back_into_two_dynamic_dims(g):
    """A conv over ``[chunks, B, window, F]`` (zeyer's chunked conformer) merges the dynamic chunk dim and the batch
    into one and splits them back: each dynamic dim then takes its maximum size (numpy round trip)."""
    t1, t2 = g.time_dim([3, 2], name="t1s"), g.time_dim([4, 1], name="t2s")
    f = Dim(2, name="f2s")
    xv = np.arange(2 * 3 * 4 * 2, dtype="float32").reshape(2, 3, 4, 2)
    x = g.const("x", [batch_dim, t1, t2, f], xv)
    merged, mdim = rf.merge_dims(x, dims=[t1, t2])
    back = rf.split_dims(merged, axis=mdim, dims=[t1, t2])
    assert back.dims == (batch_dim, t1, t2, f)
    np.testing.assert_array_equal(g.run(back), xv)
    conv = rf.Conv1d(f, Dim(3, name="c3s"), filter_size=2, padding="same", with_bias=False)
    from tests.frontend._module_utils import make_params
    w = make_params(g, conv)["filter"]  # [out, in, size]
    y, _ = conv(x, in_spatial_dim=t2)
    yv = g.run(y.copy_transpose([batch_dim, t1, t2, conv.out_dim]))
    xp = np.concatenate([xv, np.zeros_like(xv[:, :, :1])], axis=2)  # "same", filter 2: frames i and i + 1
    expected = sum(np.einsum("bctf,of->bcto", xp[:, :, k:k + 4], w[:, :, k]) for k in range(2))
    np.testing.assert_allclose(yv, expected, rtol=1e-5)


def test_replace_dim_with_a_dim_of_unknown_size_takes_the_static_size(g):
    """Observed in the reference: ``rf.replace_dim(x, in_dim=a (6), out_dim=Dim(None))`` makes the new dim static 6
    (zeyer's chunked self-attention: its key dim, concatenated with the history chunks, is then static 4 + 6)."""
    import tensorflow as tf
    a, f = Dim(6, name="a6"), Dim(2, name="f2r")
    x = Tensor("x", [batch_dim, a, f], "float32", raw_tensor=tf.zeros([3, 6, 2]), feature_dim=f)
    h = Dim(None, name="h_kv")
    y, h2 = rf.replace_dim(x, in_dim=a, out_dim=h)
    assert h2 is h and h.dimension == 6 and h.dyn_size_ext is None and y.dims == (batch_dim, h, f)
    e = Dim(4, name="e4")
    z, hd = rf.concat((rf.slice(y, axis=h, size=e)[0], e), (y, h))
    assert hd.dimension == 10
    np.testing.assert_array_equal(g.run(z).shape, [3, 10, 2])


@pytest.mark.parametrize("t_query, t_key, rows", [
    (3, 5, [[102, 103, 104, 105, 106], [108, 109, 110, 111, 112], [114, 115, 116, 117, 118]]),
    (3, 3, [[102, 103, 104], [106, 107, 108], [110, 111, 112]]),
])
def test_rel_pos_self_attention_rel_shift_as_observed(g, t_query, t_key, rows):
    """``RelPosSelfAttention._rel_shift(x, axis, pos_emb_spatial_dim, hist_dim)`` (zeyer's chunked self-attention
    calls it with more keys than queries): entry ``(i, j)`` is ``x[i, j + (Tq - 1) - i]``; observed in the
    reference (x = 100, 101, ... row-major over [n=2, Tq, Tq + Tk - 1])."""
    q, h = Dim(t_query, name="q_rs"), Dim(t_key, name="h_rs")
    r, n = Dim(t_query + t_key - 1, name="r_rs"), Dim(2, name="n_rs")
    xv = (np.arange(2 * t_query * r.dimension).reshape(2, t_query, r.dimension) + 100).astype("float32")
    y = rf.RelPosSelfAttention._rel_shift(g.const("x", [n, q, r], xv), q, r, h)
    assert y.dims == (n, q, h)
    np.testing.assert_array_equal(g.run(y)[0], rows)


def test_gating_out_dim_of_a_doubled_dim_is_the_dim_itself(g):
    """Observed in the reference: ``rf.gating(x)`` over ``2 * enc`` returns ``enc`` itself as its out dim (zeyer's
    chunked conv block then convolves over ``enc``); over a plain dim of 8 a new dim ``'f /l 2'`` of 4."""
    import tensorflow as tf
    enc = Dim(4, name="enc_g")
    two = 2 * enc
    x = Tensor("x", [batch_dim, two], "float32", raw_tensor=tf.zeros([2, 8]), feature_dim=two)
    y, out_dim = rf.gating(x)
    assert out_dim is enc and y.dims == (batch_dim, enc)
    f = Dim(8, name="f_g")
    _, out_f = rf.gating(Tensor("x8", [batch_dim, f], "float32", raw_tensor=tf.zeros([2, 8]), feature_dim=f))
    assert out_f.dimension == 4 and out_f.name == "f_g /l 2"


def test_dim_get_dim_value_tensor(g):
    """Observed in the reference: a static dim gives its int; a dynamic one the maximum of its lengths as a scalar
    int32 Tensor named as the lengths (zeyer's chunked conv block slices from ``2 * end_chunk_size``)."""
    import tensorflow as tf
    rf.select_backend_tf()
    assert Dim(4, name="e_dv").get_dim_value_tensor() == 4
    t = Dim(None, name="t_dv")
    t.dyn_size_ext = Tensor("l_dv", [batch_dim], "int32", raw_tensor=tf.constant([3, 5]))
    v = t.get_dim_value_tensor()
    assert isinstance(v, Tensor) and (v.name, v.dims, v.dtype) == ("l_dv", (), "int32")
    assert g.run(v) == 5
