"""The ops of the reference's demo-rf.config: Conv1d, relu, pack_padded/pad_packed, cross_entropy, reduce_argmax,
Embedding, dropout, the run context's losses; against numpy."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.tensor import Dim, batch_dim
from returnn.tf.frontend_low_level import create_parameter_variables

RND = np.random.RandomState(42)


def _conv1d_np(x, w, b, padding):
    """x [B, T, in], w [out, in, k] (cross-correlation, as TF)."""
    k = w.shape[2]
    if padding == "same":
        left = (k - 1) // 2
        x = np.pad(x, [(0, 0), (left, k - 1 - left), (0, 0)])
    t_out = x.shape[1] - k + 1
    out = np.stack([np.einsum("bki,oik->bo", x[:, t:t + k], w) for t in range(t_out)], axis=1)
    return out + b


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv1d(g, padding):
    lens = np.array([6, 4], "int32")
    time = g.time_dim(lens)
    in_dim, out_dim = Dim(3, name="in"), Dim(4, name="out")
    xv = RND.randn(2, 6, 3).astype("float32")
    conv = rf.Conv1d(in_dim, out_dim, 3, padding=padding)
    create_parameter_variables(conv, name_fn=lambda p, _: f"conv_{padding}/{p}")
    out, out_spatial = conv(g.const("x", [batch_dim, time, in_dim], xv), in_spatial_dim=time)
    if padding == "same":
        assert out_spatial is time
    else:
        assert out_spatial != time and out_spatial.dimension is None
    assert out.dims == (batch_dim, out_spatial, out_dim)
    g.session.run(tf.compat.v1.variables_initializer([conv.filter.raw_tensor, conv.bias.raw_tensor]))
    w, b, res = g.run(conv.filter, conv.bias, out)
    # the padded frames are used as they are (the reference before behavior_version 23, observed)
    expected = _conv1d_np(xv, w, b, padding)
    for i, n in enumerate(lens):
        n_out = n if padding == "same" else n - 2
        np.testing.assert_allclose(res[i, :n_out], expected[i, :n_out], rtol=1e-4, atol=1e-5)
    if padding == "valid":
        np.testing.assert_array_equal(g.run(out_spatial.dyn_size_ext), lens - 2)


def test_pack_padded_and_back(g):
    lens = np.array([3, 1, 2], "int32")
    time = g.time_dim(lens)
    feat = Dim(2, name="f")
    xv = RND.randn(3, 3, 2).astype("float32")
    x = g.const("x", [batch_dim, time, feat], xv)
    packed, pack_dim = rf.pack_padded(x, dims=(batch_dim, time), enforce_sorted=False)
    assert packed.dims == (pack_dim, feat)
    back = rf.pad_packed(packed, in_dim=pack_dim, dims=[batch_dim, time])
    assert back.dims == (batch_dim, time, feat)
    p, n, b = g.run(packed, pack_dim.dyn_size_ext, back)
    expected = np.concatenate([xv[i, :n_] for i, n_ in enumerate(lens)])
    np.testing.assert_allclose(p, expected)
    assert n == 6
    mask = np.arange(3)[None, :] < lens[:, None]
    np.testing.assert_allclose(b, xv * mask[:, :, None])


def test_cross_entropy_argmax_and_losses(g):
    n, classes = Dim(4, name="n"), Dim(3, name="classes")
    logits_v = RND.randn(4, 3).astype("float32")
    target_v = np.array([0, 2, 1, 2], "int32")
    logits = g.const("logits", [n, classes], logits_v)
    target = g.const("t", [n], target_v, sparse_dim=classes)
    ce = rf.cross_entropy(estimated=logits, estimated_type="logits", target=target, axis=classes)
    assert ce.dims == (n,)
    best = rf.reduce_argmax(logits, axis=classes)
    assert best.dims == (n,) and best.sparse_dim == classes and best.dtype == "int32"
    rf.init_train_step_run_ctx(train_flag=True)
    ce.mark_as_loss("ce")
    (best != target).mark_as_loss("fer", as_error=True)
    ctx = rf.get_run_ctx()
    lsm = logits_v - np.log(np.exp(logits_v).sum(-1, keepdims=True))
    expected_ce = -lsm[np.arange(4), target_v]
    v_ce, v_best, total, fer = g.run(ce, best, ctx.total_loss(), ctx.losses["fer"].get_mean_loss())
    np.testing.assert_allclose(v_ce, expected_ce, rtol=1e-5)
    np.testing.assert_array_equal(v_best, logits_v.argmax(-1))
    assert total == pytest.approx(expected_ce.sum(), rel=1e-5)
    assert fer == pytest.approx(np.mean(logits_v.argmax(-1) != target_v))
    with pytest.raises(FrontendError, match="marked twice"):
        ce.mark_as_loss("ce")
    rf.init_forward_step_run_ctx()
    with pytest.raises(FrontendError, match="only possible in a train step"):
        ce.mark_as_loss("x")
    ce.mark_as_default_output(shape=[n])
    assert rf.get_run_ctx().outputs["output"] is ce
    with pytest.raises(FrontendError, match="has dims"):
        best.mark_as_output("best", shape=[classes])


def test_embedding_and_dropout(g):
    vocab, emb_dim, n = Dim(5, name="vocab"), Dim(3, name="emb"), Dim(4, name="n")
    emb = rf.Embedding(vocab, emb_dim)
    create_parameter_variables(emb, name_fn=lambda p, _: "emb/" + p)
    idx_v = np.array([4, 0, 2, 2], "int32")
    out = emb(g.const("idx", [n], idx_v, sparse_dim=vocab))
    assert out.dims == (n, emb_dim)
    rf.init_train_step_run_ctx(train_flag=True)
    x = g.const("ones", [n, emb_dim], np.ones((4, 3), "float32"))
    dropped = rf.dropout(x, 0.5)
    rf.init_forward_step_run_ctx()
    assert rf.dropout(x, 0.5) is x
    g.session.run(tf.compat.v1.variables_initializer([emb.weight.raw_tensor]))
    w, res, d = g.run(emb.weight, out, dropped)
    np.testing.assert_allclose(res, w[idx_v])
    assert set(np.unique(d)) <= {0.0, 2.0}
    with pytest.raises(FrontendError, match="sparse dim"):
        emb(g.const("bad", [n], idx_v))
    with pytest.raises(FrontendError, match="drop_prob"):
        rf.dropout(x, 1.5)


def test_dropout_is_a_product_with_its_mask(g):
    """``dropout(x) == x * mask`` with ``mask`` in {0, 1/keep} (also the gradient of its sum); ``axis`` shares the
    mask over the other dims; a Tensor ``drop_prob`` scales alike."""
    n, f = Dim(40, name="n"), Dim(32, name="f")
    xv = np.random.RandomState(3).uniform(-2.0, 2.0, (40, 32)).astype("float32")
    x = g.const("x", [n, f], xv)
    rf.init_train_step_run_ctx(train_flag=True)
    try:
        full, shared = rf.dropout(x, 0.25), rf.dropout(x, 0.25, axis=f)
        by_tensor = rf.dropout(x, rf.convert_to_tensor(0.5, dtype="float32"))
    finally:
        rf.init_forward_step_run_ctx()
    assert full.dims == shared.dims == (n, f)
    grads = [tf.gradients(tf.reduce_sum(y.raw_tensor), x.raw_tensor)[0] for y in (full, shared, by_tensor)]
    fv, sv, tv, gf, gs, gt = g.session.run([full.raw_tensor, shared.raw_tensor, by_tensor.raw_tensor] + grads)
    for out, grad, keep in ((fv, gf, 0.75), (sv, gs, 0.75), (tv, gt, 0.5)):
        assert set(np.unique(grad)) <= {0.0, np.float32(1 / keep)} and len(np.unique(grad)) == 2
        np.testing.assert_allclose(out, xv * grad, rtol=1e-6)
    assert (gs == gs[:1]).all() and not (gf == gf[:1]).all()


def test_grouped_conv_one_kernel_as_numpy(g):
    """``groups`` 3, 6 in and 6 out channels (2 filters per group): each group's outputs see only its inputs
    (numpy), computed by one convolution op, not one per group."""
    rng = np.random.RandomState(3)
    time = Dim(7, name="t7")
    c_in, c_out, k = Dim(6, name="cin"), Dim(6, name="cout"), Dim(3, name="k3")
    xv = rng.randn(2, 7, 6).astype("float32")
    fv = rng.randn(6, 2, 3).astype("float32")  # [out, in / groups, k]
    x = g.const("x", [batch_dim, time, c_in], xv)
    f = g.const("f", [c_out, Dim(2, name="in/g"), k], fv)
    before = {op.name for op in g.graph.get_operations()}
    y, (out_time,) = rf.conv(x, in_dim=c_in, out_dim=c_out, in_spatial_dims=[time], filter=f, filter_size=[k],
                             padding="valid", groups=3)
    conv_ops = [op.type for op in g.graph.get_operations() if op.name not in before and op.type.startswith("Conv")]
    assert len(conv_ops) == 1
    yv = g.run(y)
    assert y.dims == (batch_dim, out_time, c_out)
    expected = np.zeros((2, 5, 6), "float32")
    for o in range(6):
        grp = o // 2
        for t in range(5):
            expected[:, t, o] = np.einsum("bki,ik->b", xv[:, t:t + 3, 2 * grp:2 * grp + 2], fv[o])
    np.testing.assert_allclose(yv, expected, rtol=1e-5, atol=1e-5)


def test_conv_use_mask_as_reference(g):
    """Observed in the reference (depthwise kernel of ones, 3 frames, padded frames 100): the padded frames count
    unless masked (``use_mask=True``, the default from behavior_version 23 on)."""
    time = g.time_dim([5, 3])
    c, k = Dim(3, name="c"), Dim(3, name="k")
    xv = np.ones((2, 5, 3), "float32")
    xv[1, 3:] = 100.0
    x = g.const("x", [batch_dim, time, c], xv)
    f = g.const("f", [c, Dim(1, name="one"), k], np.ones((3, 1, 3), "float32"))
    outs = [rf.conv(x, in_dim=c, out_dim=c, in_spatial_dims=[time], filter=f, filter_size=[k], padding="same",
                    groups=3, use_mask=use_mask)[0] for use_mask in (None, False, True)]
    default, unmasked, masked = g.run(*outs)
    np.testing.assert_allclose(unmasked[1, :, 0], [2, 3, 102, 201, 200])
    np.testing.assert_allclose(default, unmasked)
    np.testing.assert_allclose(masked[1, :, 0], [2, 3, 2, 1, 0])
