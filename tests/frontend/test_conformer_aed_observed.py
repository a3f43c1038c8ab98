"""A small Conformer encoder (conv front end) and Transformer decoder: parameter names/dims and outputs against
values observed by running the reference's TF backend with the same parameters (``data/observed_conformer_aed.json``:
input ``x [B=2, T=12 (lengths 12, 7), F=6]``, targets ``[[1, 2, 3], [4]]``, parameter ``i`` in
``named_parameters`` order set to ``pval(shape, i + 1)``)."""

import json
import os

import numpy as np
import tensorflow as tf

import returnn.frontend as rf
from returnn.frontend.decoder.transformer import TransformerDecoder
from returnn.frontend.encoder.conformer import ConformerConvSubsample, ConformerEncoder
from returnn.tensor import Dim, Tensor, batch_dim
from returnn.tf.frontend_low_level import create_parameter_variables

with open(os.path.join(os.path.dirname(__file__), "data", "observed_conformer_aed.json")) as f:
    OBSERVED = json.load(f)


def pval(shape, k):
    n = int(np.prod(shape)) if shape else 1
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).astype("float32").reshape(shape)


class _Model(rf.Module):
    def __init__(self, feat, model_dim, vocab):
        super().__init__()
        self.enc = ConformerEncoder(
            feat, model_dim, num_layers=1, ff_dim=Dim(12, name="ff"), num_heads=2, conv_kernel_size=3,
            input_layer=ConformerConvSubsample(feat, out_dims=[Dim(4, name="c1"), Dim(4, name="c2")],
                                               filter_sizes=[(3, 3), (3, 3)], pool_sizes=[(1, 2)],
                                               strides=[(1, 1), (3, 1)]),
            dropout=0.0, att_dropout=0.0, input_dropout=0.0)
        self.dec = TransformerDecoder(model_dim, vocab, Dim(8, name="dmodel"), num_layers=1,
                                      ff_dim=Dim(12, name="dff"), num_heads=2, dropout=0.0, att_dropout=0.0)


def test_conformer_aed_as_observed(g):
    time = Dim(None, name="time")
    time.dyn_size_ext = Tensor("lens", [batch_dim], "int32", raw_tensor=tf.constant([12, 7], tf.int32))
    feat, model_dim, vocab = Dim(6, name="feat"), Dim(8, name="model"), Dim(5, name="vocab")
    x = Tensor("x", [batch_dim, time, feat], "float32", raw_tensor=tf.constant(pval([2, 12, 6], 0.3) * 3))
    tgt_time = Dim(None, name="tgt_time")
    tgt_time.dyn_size_ext = Tensor("tlens", [batch_dim], "int32", raw_tensor=tf.constant([3, 2], tf.int32))
    tgt = Tensor("tgt", [batch_dim, tgt_time], "int32", sparse_dim=vocab,
                 raw_tensor=tf.constant([[1, 2, 3], [4, 0, 0]], tf.int32))
    m = _Model(feat, model_dim, vocab)
    assert [[n, [d.dimension for d in p.dims]] for n, p in m.named_parameters()] == \
        [[n, sizes] for n, sizes, _ in OBSERVED["params"]]
    create_parameter_variables(m, name_fn=lambda path, _: "aed/" + path.replace(".", "/"))
    rf.init_forward_step_run_ctx()
    enc, enc_dim = m.enc(x, in_spatial_dim=time)
    logits, _ = m.dec(tgt, spatial_dim=tgt_time, encoder=m.dec.transform_encoder(enc, axis=enc_dim),
                      state=m.dec.default_initial_state(batch_dims=[batch_dim]))
    assert enc.dims == (batch_dim, enc_dim, model_dim) and logits.dims == (batch_dim, tgt_time, vocab)
    for i, (_, p) in enumerate(m.named_parameters()):
        p.raw_tensor.load(pval([d.dimension for d in p.dims], i + 1), g.session)
    e, lens, lo = g.run(enc, enc_dim.dyn_size_ext, logits)
    np.testing.assert_array_equal(lens, OBSERVED["enc_lens"])
    exp_e, exp_lo = np.asarray(OBSERVED["enc"]), np.asarray(OBSERVED["logits"])
    for b, n in enumerate(lens):
        np.testing.assert_allclose(e[b, :n], exp_e[b, :n], rtol=1e-4, atol=1e-4)
    for b, n in enumerate([3, 2]):
        np.testing.assert_allclose(lo[b, :n], exp_lo[b, :n], rtol=1e-4, atol=1e-4)


def test_decoder_step_by_step_equals_full_sequence(g):
    """Step-wise decoding (single_step_dim, state with the keys/values so far) gives the full-sequence logits."""
    from returnn.tensor import single_step_dim
    model_dim, vocab, n = Dim(8, name="m8"), Dim(5, name="v5"), Dim(2, name="n2")
    enc_time = Dim(None, name="enc_t")
    enc_time.dyn_size_ext = Tensor("enc_lens", [n], "int32", raw_tensor=tf.constant([5, 3], tf.int32))
    enc = g.const("enc", [n, enc_time, model_dim], pval([2, 5, 8], 0.7))
    tgt_time = Dim(3, name="t3")
    labels = np.array([[1, 2, 3], [4, 0, 2]], "int32")
    tgt = g.const("tgt", [n, tgt_time], labels, sparse_dim=vocab)
    dec = TransformerDecoder(model_dim, vocab, model_dim, num_layers=2, num_heads=2, dropout=0.0, att_dropout=0.0)
    create_parameter_variables(dec, name_fn=lambda path, _: "stepdec/" + path.replace(".", "/"))
    rf.init_forward_step_run_ctx()
    enc_state = dec.transform_encoder(enc, axis=enc_time)
    full, _ = dec(tgt, spatial_dim=tgt_time, encoder=enc_state, state=dec.default_initial_state(batch_dims=[n]))
    state = dec.default_initial_state(batch_dims=[n])
    steps = []
    for t in range(3):
        label = g.const(f"label{t}", [n], labels[:, t], sparse_dim=vocab)
        logits, state = dec(label, spatial_dim=single_step_dim, encoder=enc_state, state=state)
        assert logits.dims == (n, vocab)
        steps.append(logits)
    g.session.run(tf.compat.v1.variables_initializer([p.raw_tensor for p in dec.parameters()]))
    v_full, *v_steps = g.run(full, *steps)
    for t in range(3):
        np.testing.assert_allclose(v_steps[t], v_full[:, t], rtol=1e-4, atol=1e-5)
