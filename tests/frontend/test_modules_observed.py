"""Normalisation and attention modules, positional encodings: outputs against values observed by running the
reference's TF backend (``returnn.tf.frontend_low_level``) on the same input and parameters
(``data/observed_modules.json``; input ``x [B=2, T=4 (lengths 4, 2), F=8]``, parameter ``i`` (in
``named_parameters`` order) set to ``pval(shape, i + 1)``)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.tensor import Dim, Tensor, batch_dim
from returnn.tf.frontend_low_level import create_parameter_variables

with open(os.path.join(os.path.dirname(__file__), "data", "observed_modules.json")) as f:
    OBSERVED = json.load(f)


def pval(shape, k):
    n = int(np.prod(shape)) if shape else 1
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).astype("float32").reshape(shape)


def _heads_kwargs():
    return dict(key_dim_total=Dim(8, name="kt"), value_dim_total=Dim(8, name="vt"), num_heads=2, att_dropout=0.0)


CASES = {
    "layernorm": (lambda f: rf.LayerNorm(f), lambda m, x, t: m(x), False),
    "rmsnorm": (lambda f: rf.RMSNorm(f), lambda m, x, t: m(x), False),
    "batchnorm_eval": (lambda f: rf.BatchNorm(f, use_mask=True), lambda m, x, t: m(x), False),
    "batchnorm_train": (lambda f: rf.BatchNorm(f, use_mask=True), lambda m, x, t: m(x), True),
    "selfatt": (lambda f: rf.SelfAttention(f, f, **_heads_kwargs()), lambda m, x, t: m(x, axis=t), False),
    "causalatt": (lambda f: rf.CausalSelfAttention(f, f, **_heads_kwargs()), lambda m, x, t: m(x, t)[0], False),
    "relposatt": (lambda f: rf.RelPosSelfAttention(f, f, **_heads_kwargs()), lambda m, x, t: m(x, axis=t), False),
}


def _setup(g):
    time = Dim(None, name="time")
    time.dyn_size_ext = Tensor("lens", [batch_dim], "int32", raw_tensor=tf.constant([4, 2], tf.int32))
    feat = Dim(8, name="feat")
    x = Tensor("x", [batch_dim, time, feat], "float32", raw_tensor=tf.constant(pval([2, 4, 8], 0.3) * 3))
    return x, time, feat


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_as_observed(g, name):
    make, fwd, train = CASES[name]
    obs = OBSERVED[name]
    x, time, feat = _setup(g)
    m = make(feat)
    assert [[n, [d.dimension for d in p.dims]] for n, p in m.named_parameters()] == obs["params"]
    create_parameter_variables(m, name_fn=lambda path, _: f"{name}/{path}")
    if train:
        rf.init_train_step_run_ctx(train_flag=True)
    else:
        rf.init_forward_step_run_ctx()
    out = fwd(m, x, time)
    assert [d.name for d in out.dims] == ["global batch", "time", "feat"]
    params = [p for _, p in m.named_parameters()]
    for i, p in enumerate(params):
        p.raw_tensor.load(pval([d.dimension for d in p.dims], i + 1), g.session)
    res = g.run(out)
    expected = np.asarray(obs["out"][0])
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], bool)
    np.testing.assert_allclose(res[mask], expected[mask], rtol=1e-4, atol=2e-5)
    if train:  # the running statistics after the step
        after = g.run(*params)
        for value, exp in zip(after, obs["out"][1:]):
            np.testing.assert_allclose(value, exp, rtol=1e-4, atol=2e-5)


def test_positional_encodings_as_observed(g):
    time = Dim(None, name="time")
    time.dyn_size_ext = Tensor("lens", [batch_dim], "int32", raw_tensor=tf.constant([4, 2], tf.int32))
    feat = Dim(8, name="feat")
    sin_pos = rf.sinusoidal_positional_encoding(spatial_dim=time, feat_dim=feat)
    rel, rel_dim = rf.relative_positional_encoding(query_spatial_dim=time, key_value_spatial_dim=time, feat_dim=feat)
    assert sin_pos.dims == (time, feat) and rel.dims == (rel_dim, feat)
    vs, vr = g.run(sin_pos, rel)
    np.testing.assert_allclose(vs, OBSERVED["sinpos"]["out"][0], atol=1e-5)
    np.testing.assert_allclose(vr, OBSERVED["relpos"]["out"][0], atol=1e-5)
