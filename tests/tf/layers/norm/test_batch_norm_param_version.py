"""batch_norm param_version: param names and shapes per version, default 2 from behavior_version 12, the fused op
without masked_time in version 2 (names and op type observed from the reference); all versions compute the same."""

import numpy
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork
from returnn.util.behavior_version import BehaviorVersion

tf1 = tf.compat.v1


def _build(opts, train_flag=True):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=train_flag)
    net.construct_from_dict({"output": dict({"class": "batch_norm", "from": "data"}, **opts)})
    return net


@pytest.mark.parametrize("version, names, shape", [
    (0, {"output_output_output_" + k for k in ["mean", "variance", "gamma", "beta"]}, [1, 1, 3]),
    (1, {"mean", "variance", "gamma", "beta"}, [1, 1, 3]),
    (2, {"v2_mean", "v2_variance", "v2_gamma", "v2_beta"}, [3])])
def test_param_names(version, names, shape):
    with tf.Graph().as_default():
        layer = _build({"param_version": version, "masked_time": True}).get_default_output_layer()
        assert set(layer.params) == {"batch_norm/" + n for n in names}
        assert all(p.shape.as_list() == shape for p in layer.params.values())


def test_default_param_version_follows_behavior_version(monkeypatch):
    monkeypatch.setattr(BehaviorVersion, "get", classmethod(lambda cls: 12))
    with tf.Graph().as_default():
        layer = _build({"masked_time": True}).get_default_output_layer()
        assert "batch_norm/v2_mean" in layer.params


@pytest.mark.parametrize("train_flag", [True, False])
def test_fused_same_values_as_plain(train_flag):
    x = numpy.random.RandomState(3).normal(size=(2, 5, 3)).astype("float32")
    outs = []
    for version in [0, 2]:
        with tf.Graph().as_default() as graph, tf1.Session() as session:
            net = _build({"param_version": version, "masked_time": False}, train_flag=train_flag)
            fused_ops = [op for op in graph.get_operations() if "FusedBatchNorm" in op.type]
            assert bool(fused_ops) == (version == 2)
            net.initialize_params(session)
            data = net.extern_data.get_data("data")
            outs.append(session.run(net.get_default_output_layer().output.placeholder,
                                    feed_dict={data.placeholder: x, data.get_sequence_lengths(): [5, 5]}))
    numpy.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)
    if train_flag:  # normalized over batch and time
        numpy.testing.assert_allclose(outs[1].mean(axis=(0, 1)), 0.0, atol=1e-5)
