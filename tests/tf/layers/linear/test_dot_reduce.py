"""dot with ``reduce`` and automatic free axes (the reference's newer API, ``behavior_version >= 3``): Dims matched
as Dims (not by size), output dims and masking as observed from the reference, values against numpy."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.errors import AxisDescriptionError, LayerArgError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.basic import DotLayer, InternalLayer
from returnn.tf.network import ExternData, TFNetwork
from returnn.util.behavior_version import BehaviorVersion
from tf_net_helpers import build_net, make_feed


def _layers(*tensors):
    net = TFNetwork(config=Config(), extern_data=ExternData())
    return net, [InternalLayer(name=t.name, network=net, output=t) for t in tensors]


def _dot(sources, **opts):
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, **opts)  # no network, as the reference allows
    return DotLayer(name="dot", network=sources[0].network, sources=sources, output=out, **opts)


def test_reduce_time_masks_the_second_input(session, latest_behavior):
    time, feat, feat2 = SpatialDim("time"), FeatureDim("feat", 3), FeatureDim("feat2", 5)
    a = Tensor("a", dims=[batch_dim, time, feat], auto_create_placeholders=True)
    b = Tensor("b", dims=[batch_dim, time, feat2], auto_create_placeholders=True)
    _, sources = _layers(a, b)
    layer = _dot(sources, reduce=time)
    assert layer.output.dims == (batch_dim, feat, feat2)
    assert layer._info_reduce_mask == "mask-source-1"  # noqa: SLF001 (the reference's attribute, read by its tests)
    rng = np.random.RandomState(3)
    x, y = rng.randn(2, 4, 3).astype("float32"), rng.randn(2, 4, 5).astype("float32")
    lens = np.array([4, 2], dtype="int32")
    y_garbage = y.copy()
    y_garbage[1, 2:] = 1e6  # padding must not count
    got = session.run(layer.output.placeholder, {a.placeholder: x, b.placeholder: y_garbage, time.dyn_size: lens})
    want = np.stack([x[k, :n].T @ y[k, :n] for k, n in enumerate(lens)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dims_of_the_same_size_stay_separate(latest_behavior):
    # reference: a [B,T,feat(5)] . b [B,T,other-feat(5)] reducing T -> [B, feat, other-feat]; T . 2*T -> both kept
    time, feat, feat2 = SpatialDim("time"), FeatureDim("feat", 5), FeatureDim("other-feat", 5)
    _, sources = _layers(Tensor("a", dims=[batch_dim, time, feat]), Tensor("b", dims=[batch_dim, time, feat2]))
    assert DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=time).dims == (batch_dim, feat, feat2)
    time2 = time * 2
    _, sources = _layers(Tensor("a", dims=[batch_dim, time, feat]), Tensor("b", dims=[batch_dim, time2, feat]))
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=feat)
    assert out.dims == (batch_dim, time, time2)


def test_common_axes_in_the_order_of_the_first_input(latest_behavior):
    # reference: [T,heads,feat,B] . [feat2,B,heads,T] reducing T -> [heads, B, feat, feat2]
    time, heads = SpatialDim("time"), SpatialDim("heads", 4)
    feat, feat2 = FeatureDim("feat", 3), FeatureDim("feat2", 5)
    _, sources = _layers(Tensor("a", dims=[time, heads, feat, batch_dim]),
                         Tensor("b", dims=[feat2, batch_dim, heads, time]))
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=time)
    assert out.dims == (heads, batch_dim, feat, feat2)


def test_lengths_over_another_dim_mask_the_input_that_has_it(session, latest_behavior):
    # keys with lengths per decoder frame ([classes]): the values [keys,B,heads,feat] lack that dim, so the
    # attention weights are masked
    classes = SpatialDim("classes")
    keys = Dim(None, name="keys", dyn_size_ext=Tensor("keys_len", dims=[classes], dtype="int32",
                                                          auto_create_placeholders=True))
    heads, feat = SpatialDim("heads", 2), FeatureDim("feat", 3)
    a = Tensor("w", dims=[batch_dim, heads, classes, keys], auto_create_placeholders=True)
    b = Tensor("v", dims=[keys, batch_dim, heads, feat], auto_create_placeholders=True)
    _, sources = _layers(a, b)
    layer = _dot(sources, red1=keys, red2=keys, var1=classes, var2=feat)
    assert layer.output.dims == (batch_dim, heads, classes, feat)
    assert layer._info_reduce_mask == "mask-source-0"  # noqa: SLF001
    rng = np.random.RandomState(4)
    w, v = rng.randn(1, 2, 3, 4).astype("float32"), rng.randn(4, 1, 2, 3).astype("float32")
    key_lens = np.array([4, 1, 2], dtype="int32")
    got = session.run(layer.output.placeholder,
                      {a.placeholder: w, b.placeholder: v, keys.dyn_size_ext.placeholder: key_lens})
    mask = np.arange(4)[None, :] < key_lens[:, None]  # [classes, keys]
    want = np.einsum("bhck,kbhf->bhcf", w * mask[None, None], v)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_square_matrix_needs_match_priority(latest_behavior):
    time, feat = SpatialDim("time"), FeatureDim("feature", 3)
    data = Tensor("data", dims=[batch_dim, time, feat])
    _, sources = _layers(data, Tensor("m", dims=[feat, feat]))
    with pytest.raises(AxisDescriptionError, match="must be unique"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=feat)
    _, sources = _layers(data, Tensor("m", dims=[feat.copy(match_priority=1), feat]))
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=feat)
    assert out.dims == (batch_dim, time, feat)


def test_sparse_input_is_one_hot(session, latest_behavior):
    time, classes, embed = SpatialDim("time"), FeatureDim("classes", 5), FeatureDim("embed", 3)
    src = Tensor("src", dims=[batch_dim, time], sparse_dim=classes, dtype="int32", auto_create_placeholders=True)
    emb = Tensor("emb", dims=[classes, embed], auto_create_placeholders=True)
    _, sources = _layers(src, emb)
    layer = _dot(sources, reduce=classes)
    assert layer.output.dims == (batch_dim, time, embed)
    idx = np.array([[0, 4, 2]], dtype="int32")
    table = np.arange(15, dtype="float32").reshape(5, 3)
    got = session.run(layer.output.placeholder, {src.placeholder: idx, emb.placeholder: table,
                                                 time.dyn_size: np.array([3], dtype="int32")})
    np.testing.assert_array_equal(got, table[idx])


@pytest.mark.parametrize("via, info", [(None, "source-0-already-masked"), ("copy", "source-0-already-masked"),
                                       ("activation", "mask-source-1")])
def test_softmax_over_spatial_input_is_already_masked(via, info, latest_behavior):
    # reference: a softmax_over_spatial over the reduced axis (also through a copy layer, not through an activation)
    # needs no mask; otherwise the second input is masked
    time = SpatialDim("time")
    net_dict = {"sm": {"class": "softmax_over_spatial", "from": "data"},
                "output": {"class": "dot", "from": ["via" if via else "sm", "data:data2"], "reduce": "T"}}
    if via:
        net_dict["via"] = {"class": via, "from": "sm", **({"activation": "relu"} if via == "activation" else {})}
    net = build_net(net_dict, extern_data={"data": {"dim_tags": [batch_dim, time, FeatureDim("f", 3)]},
                                           "data2": {"dim_tags": [batch_dim, time, FeatureDim("g", 5)]}})
    layer = net.get_layer("output")
    assert layer._info_reduce_mask == info  # noqa: SLF001
    assert [d.dimension for d in layer.output.dims] == [None, 3, 5] and layer.output.dims[0].is_batch_dim()


def test_bad_argument_combinations(latest_behavior):
    time, feat, feat2 = SpatialDim("time"), FeatureDim("feat", 3), FeatureDim("feat2", 5)
    _, sources = _layers(Tensor("a", dims=[batch_dim, time, feat]), Tensor("b", dims=[batch_dim, time, feat2]))
    with pytest.raises(LayerArgError, match="red1/red2"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=time, red1=time)
    with pytest.raises(LayerArgError, match="both"):  # reference: var1 given, var2 automatic is rejected
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=time, var1=feat)
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="specified explicitly"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources)
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="not by int"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, red1=-1, red2=-1, var1=None, var2=None)
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="add_var2_if_empty"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=time, add_var2_if_empty=True)


def test_reduce_without_new_behavior_uses_the_old_free_axes():
    # reference with behavior_version 0: reduce=F of [B,T,F] . [F,G] takes var1=-2 (T), var2=-1 (G) and the batch
    # axis as common -> not matched in [F,G]: an error; with explicit var1=[B,T] it is [B,T,G] plus no dummy axis
    time, feat, feat2 = SpatialDim("time"), FeatureDim("feat", 3), FeatureDim("feat2", 5)
    _, sources = _layers(Tensor("a", dims=[batch_dim, time, feat]), Tensor("w", dims=[feat, feat2]))
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=feat, var1=[batch_dim, time], var2=feat2)
    assert out.dims == (batch_dim, time, feat2)
    with pytest.raises(Exception, match="no counterpart"):
        DotLayer.get_out_data_from_opts(name="dot", sources=sources, reduce=feat)


def test_network_is_optional_for_the_template():
    a = Tensor("a", dims=[batch_dim, FeatureDim("f", 2)])
    _, sources = _layers(a, a)
    out = DotLayer.get_out_data_from_opts(name="dot", sources=sources, red1="F", red2="F", var1=None, var2=None,
                                          add_var2_if_empty=False)
    assert out.dims == (batch_dim,)
    assert isinstance(out, Tensor) and tf.float32.name == out.dtype
