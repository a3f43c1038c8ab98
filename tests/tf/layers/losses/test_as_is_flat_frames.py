"""``"loss": "as_is"`` on a frame-wise layer without params computes that layer again on the valid frames of its
inputs (as the reference's graph, observed: the objective's ``Sum`` reads the recomputed op directly); the value
is the sum over the valid frames, as before."""

import numpy
import tensorflow as tf

from returnn.tensor import batch_dim
from returnn.tf.network import ExternData, TFNetwork
from returnn.tf.util.data import FeatureDim, SpatialDim

T = SpatialDim("time")
F = FeatureDim("in", 3)
C = FeatureDim("out", 5)
EXTERN = {"data": {"dim_tags": (batch_dim, T, F), "dtype": "float32"},
          "classes": {"dim_tags": (batch_dim, T), "dtype": "int32", "sparse_dim": C}}


def _build(net_dict):
    net = TFNetwork(extern_data=ExternData(EXTERN), train_flag=True)
    net.construct_from_dict(net_dict)
    return net


def _feed(net):
    rng = numpy.random.RandomState(3)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    return {data.placeholder: rng.normal(size=(3, 4, 3)).astype("float32"),
            classes.placeholder: rng.randint(0, 5, (3, 4)).astype("int32"),
            data.get_sequence_lengths(): [4, 2, 3]}


def _np_ce(logits, labels, lens):
    total = 0.0
    for b, n in enumerate(lens):
        x = logits[b, :n]
        log_probs = x - numpy.log(numpy.exp(x).sum(-1, keepdims=True))
        total -= log_probs[numpy.arange(n), labels[b, :n]].sum()
    return total


def test_subnetwork_ce_recomputed_on_packed_frames():
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = _build({
            "dot": {"class": "dot", "from": ["data:data", "weight"], "reduce": F, "var1": [batch_dim, T],
                    "var2": C},
            "add": {"class": "combine", "kind": "add", "from": ["dot", "bias"]},
            "ce": {"class": "subnetwork", "from": [], "loss": "as_is", "subnetwork": {
                "sce": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "base:add",
                        "targets": "base:data:classes", "axis": C},
                "output": {"class": "copy", "from": "sce"}}},
            "weight": {"class": "variable", "shape": [F, C]},
            "bias": {"class": "variable", "shape": [C]},
        })
        loss = net.get_total_loss()
        assert loss.op.type == "Sum" and loss.op.inputs[0].op.type == "SparseSoftmaxCrossEntropyWithLogits"
        net.initialize_params(session)
        feed = _feed(net)
        value, logits = session.run((loss, net.get_layer("add").output.copy_as_batch_major().placeholder), feed)
        labels = feed[net.extern_data.data["classes"].placeholder]
        numpy.testing.assert_allclose(value, _np_ce(logits, labels, [4, 2, 3]), rtol=1e-5)


def test_reduce_recomputed_layer_with_params_packed():
    # a linear layer (params) is packed as it is, the reduce after it computed again (as the reference's graph)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = _build({"lin": {"class": "linear", "from": "data", "out_dim": C, "activation": "relu"},
                      "r": {"class": "reduce", "mode": "sum", "axis": C, "from": "lin", "loss": "as_is"}})
        loss = net.get_total_loss()
        assert loss.op.inputs[0].op.type == "Sum" and loss.op.inputs[0].op.inputs[0].op.type == "GatherV2"
        net.initialize_params(session)
        feed = _feed(net)
        value, lin = session.run((loss, net.get_layer("lin").output.copy_as_batch_major().placeholder), feed)
        numpy.testing.assert_allclose(value, sum(lin[b, :n].sum() for b, n in enumerate([4, 2, 3])), rtol=1e-5)


def test_dropout_layer_not_recomputed():
    with tf.Graph().as_default():
        net = _build({"lin": {"class": "linear", "from": "data", "out_dim": C},
                      "d": {"class": "copy", "from": "lin", "dropout": 0.5, "loss": "as_is"}})
        loss = net.get_total_loss()
        assert loss.op.inputs[0].op.type == "GatherNd"  # the layer's own output, packed by the loss
