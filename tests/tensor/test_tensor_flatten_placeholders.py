"""``auto_create_placeholders``, ``copy_time_flattened``, ``get_placeholder_flattened``, ``ExternData`` batch info,
with the TF backend. Expected values observed from the reference for the same calls on the same inputs."""

import numpy as np
import tensorflow as tf

import returnn.tf.util.data  # noqa: F401  (the public path installs the TF raw backend)
from returnn.tensor import BatchInfo, Data, SpatialDim
from returnn.tf.network import ExternData


def test_auto_create_placeholders_like_reference():
    with tf.Graph().as_default() as graph:
        time = SpatialDim("time")
        data = Data("data", dim=3, same_dim_tags_as={"t": time}, auto_create_placeholders=True)
        classes = Data("classes", dim=3, sparse=True, same_dim_tags_as={"t": time}, auto_create_placeholders=True)
        assert data.placeholder.name == "extern_data/placeholders/data/data:0"
        assert time.dyn_size.name == "extern_data/placeholders/data/data_dim0_size:0"
        assert data.get_sequence_lengths() is classes.get_sequence_lengths() is time.dyn_size
        ops = {op for op in graph.get_operations() if op.type == "Placeholder"}
        assert ops == {data.placeholder.op, classes.placeholder.op, time.dyn_size.op}


def test_copy_time_flattened_and_get_placeholder_flattened_like_reference():
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        x = Data("x", shape=(None, 3), batch_dim_axis=1, auto_create_placeholders=True)  # [T,B,F]
        y = x.copy_time_flattened()
        assert y.get_dims_repr() == "['time:var:extern_data:x_flattened'[?],F|F'feature:x'(3)]"
        values = np.arange(4 * 2 * 3).reshape(4, 2, 3).astype("float32")
        out = sess.run(y.placeholder, {x.placeholder: values, x.size_placeholder[0]: [4, 2]})
        np.testing.assert_equal(out, np.concatenate([values[:4, 0], values[:2, 1]]))  # batch-major frames
        d = Data("d", shape=(None, 2, 3), auto_create_placeholders=True)  # [B,T,2,F3]
        feed = {d.placeholder: np.arange(2 * 4 * 2 * 3).reshape(2, 4, 2, 3).astype("float32"),
                d.size_placeholder[0]: [4, 2]}
        assert sess.run(d.get_placeholder_flattened(keepdims=True), feed).shape == (12, 1, 1, 3)
        flat = sess.run(d.get_placeholder_flattened(keepdims=False), feed)
        np.testing.assert_equal(flat, np.arange(12 * 3).reshape(12, 3))


def test_extern_data_batch_info():
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        extern = ExternData()
        extern.data["x"] = data = Data("x", shape=(None, 3), auto_create_placeholders=True)
        extern.init_batch_info()
        assert isinstance(data.batch, BatchInfo) and data.batch.is_global_batch()
        assert sess.run(data.batch.dim, {data.placeholder: np.zeros((5, 2, 3))}) == 5
        batch = BatchInfo.make_global_batch_info(3)
        extern.set_batch_info(batch)
        # the batch dim (the global batch_dim) gets it too, as the reference's init_batch_info (observed)
        assert data.batch is batch and data.dims[1].batch is batch and data.dims[0].batch is batch
