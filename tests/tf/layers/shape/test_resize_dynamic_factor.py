"""resize with a float/layer factor (values observed from the reference) and fill_dropout; postfix_in_time with a
postfix layer without batch axis."""

import numpy as np
import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.shape.postfix_in_time import PostfixInTimeLayer
from returnn.tf.layers.shape.resize import ResizeLayer
from returnn.tf.network import ExternData, TFNetwork
from tf_net_helpers import build_net, make_feed

_EXTERN = {"data": {"shape": (None, 3)}, "factor": {"shape": (), "batch_dim_axis": None, "dtype": "float32"}}


def _run_resize(session, kind, factor):
    net = build_net({"output": {"class": "resize", "axis": "T", "factor": "data:factor", "kind": kind,
                                "from": "data"}}, _EXTERN, train_flag=False)
    out = net.get_default_output_layer().output
    assert out.dims[1].description == "output_resize" and out.dims[1].dimension is None
    x = np.arange(2 * 5 * 3, dtype="float32").reshape((2, 5, 3))
    feed = make_feed(net, {"data": x}, {"data": [5, 4]})
    feed[net.extern_data.data["factor"].placeholder] = factor
    return session.run((out.placeholder, out.get_sequence_lengths()), feed_dict=feed)


def test_resize_layer_factor_nn(session):
    values, lens = _run_resize(session, "nn", 1.5)
    # observed from the reference: out size ceil(5 * 1.5) = 8, frame j is input frame floor(j * 5 / 8)
    np.testing.assert_array_equal(values[0, :, 0], [0, 0, 3, 3, 6, 9, 9, 12])
    np.testing.assert_array_equal(lens, [8, 6])


def test_resize_layer_factor_linear_downsample(session):
    values, lens = _run_resize(session, "linear", 0.5)
    np.testing.assert_allclose(values[:, :, 0], [[0, 5, 10], [15, 20, 25]])  # as observed from the reference
    np.testing.assert_array_equal(lens, [3, 2])


def test_resize_layer_float_factor_linear(session):
    values, _ = _run_resize(session, "linear", 1.5)
    np.testing.assert_allclose(values[0, :, 0], [0, 1.875, 3.75, 5.625, 7.5, 9.375, 11.25, 12])


def test_resize_fill_dropout(session):
    net = TFNetwork(extern_data=ExternData())
    src = InternalLayer(name="src", network=net, output=Tensor(name="src", dim=20, sparse=True))
    seqs, seq_lens, factor, fill = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [5, 3], 3, 19
    src.output.placeholder = tf.constant(seqs, dtype=tf.int32)
    src.output.size_placeholder = {0: tf.constant(seq_lens, dtype=tf.int32)}
    kw = dict(name="resize", network=net, factor=factor, axis="T", kind="fill", fill_value=fill, fill_dropout=0.5,
              sources=[src])
    layer = ResizeLayer(output=ResizeLayer.get_out_data_from_opts(**kw), **kw)
    assert layer.output.dims[1].description == "resize_resize"
    seen = set()
    for _ in range(5):
        out, lens = session.run([layer.output.placeholder, layer.output.size_placeholder[0]])
        seen.add(out.shape[1])
        for b in range(2):
            assert [s for s in out[b] if s != fill] == seqs[b]  # every original frame kept, in order
            # the length: the kept frames among the first len * factor positions
            n_orig_in_len = sum(1 for s in out[b, :lens[b]] if s != fill)
            assert n_orig_in_len == seq_lens[b] and seq_lens[b] <= lens[b] <= seq_lens[b] * factor
            assert lens[b] == len(out[b]) or out[b, lens[b]] in seqs[b]  # the next frame is the next original one
    assert min(seen) < 15  # some filled frames were dropped


def test_postfix_in_time_postfix_without_batch(session):
    net = TFNetwork(extern_data=ExternData())
    src = InternalLayer(name="src", network=net, output=Tensor(name="src", dim=2, dtype="int32"))
    src.output.placeholder = tf.constant(np.arange(20).reshape((2, 5, 2)) + 1, dtype=tf.int32)
    src.output.size_placeholder = {0: tf.constant([5, 3], dtype=tf.int32)}
    post = InternalLayer(name="post", network=net,
                         output=Tensor(name="post", dim=2, time_dim_axis=None, batch_dim_axis=None, dtype="int32"))
    post.output.placeholder = tf.constant([-7, -8], dtype=tf.int32)
    kw = dict(name="pit", network=net, sources=[src], postfix=post, repeat=2)
    layer = PostfixInTimeLayer(output=PostfixInTimeLayer.get_out_data_from_opts(**kw), **kw)
    out, lens = session.run([layer.output.placeholder, layer.output.size_placeholder[0]])
    np.testing.assert_array_equal(lens, [7, 5])
    np.testing.assert_array_equal(out[0, 5:7], [[-7, -8], [-7, -8]])
    np.testing.assert_array_equal(out[1, 3:5], [[-7, -8], [-7, -8]])
    np.testing.assert_array_equal(out[1, :3], np.arange(20).reshape((2, 5, 2))[1, :3] + 1)
