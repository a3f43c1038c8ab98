"""FeedDictDataProvider (returnn.tf.data_pipeline): feed dicts of a dataset's batches."""

import sys

import numpy as np
import pytest
import tensorflow as tf

from returnn.datasets.generating import Task12AXDataset
from returnn.tf.data_pipeline import FeedDictDataProvider
from returnn.tf.network import ExternData, TFNetwork


def test_feed_dict_data_provider():
    dataset = Task12AXDataset(num_seqs=5)
    dataset.init_seq_order(epoch=1)
    with tf.Graph().as_default():
        extern_data = ExternData()
        extern_data.init_from_dataset(dataset)
        TFNetwork(extern_data=extern_data)  # creates the placeholders
        batches = dataset.generate_batches(recurrent_net=True, batch_size=sys.maxsize, max_seqs=2,
                                           max_seq_length=sys.maxsize, used_data_keys={"data", "classes"})
        provider = FeedDictDataProvider(extern_data=extern_data, data_keys={"data", "classes"}, dataset=dataset,
                                        batches=batches)
        metas = []
        while provider.have_more_data():
            feed, meta = provider.get_feed_dict(single_threaded=True)
            metas.append(meta)
            data, classes = extern_data.data["data"], extern_data.data["classes"]
            lens = feed[data.size_placeholder[0]]
            assert set(feed) == {data.placeholder, data.size_placeholder[0], classes.placeholder,
                                 classes.size_placeholder[0]}
            assert feed[data.placeholder].shape == (len(lens), max(lens), 9)
            assert feed[classes.placeholder].dtype == np.int32
            np.testing.assert_array_equal(feed[classes.size_placeholder[0]], lens)
            for i, seq_idx in enumerate(meta["seq_idx"]):
                np.testing.assert_array_equal(feed[data.placeholder][i, :lens[i]], dataset.get_data(seq_idx, "data"))
        with pytest.raises(AssertionError, match="no more batches"):  # an AssertionError, as the reference
            provider.get_feed_dict()
    assert [m["seq_idx"] for m in metas] == [[0, 1], [2, 3], [4]]
    assert [m["complete_frac"] for m in metas] == [0.4, 0.8, 1.0]
    assert metas[0]["seq_tag"] == ["seq-0", "seq-1"]


def test_dataset_data_provider_batches_as_extern_data():
    """The tf.data pipeline: the extern data's tensors give one batch per Session.run (the dataset's arrays, padded,
    with their lengths), max_seqs batches, then OutOfRangeError; restartable."""
    from returnn.config import Config
    from returnn.datasets.generating import StaticDataset
    from returnn.tf.data_pipeline import DatasetDataProvider

    rnd = np.random.RandomState(3)
    lens = [3, 5, 2, 4, 1]
    seqs = [{"data": rnd.normal(size=(n, 2)).astype("float32"), "classes": rnd.randint(0, 4, size=(n,)).astype("int32")}
            for n in lens]
    dataset = StaticDataset(data=seqs, output_dim={"data": (2, 2), "classes": (4, 1)})
    dataset.init_seq_order(epoch=1)
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        extern_data = ExternData()
        extern_data.init_from_dataset(dataset, auto_create_placeholders=False)
        provider = DatasetDataProvider(extern_data=extern_data, config=Config({"max_seqs": 2}),
                                       datasets={"train": dataset})
        ctx = provider.contexts["train"]
        assert isinstance(ctx.final_dataset, tf.data.Dataset)
        assert ctx.final_dataset_init_iterator_op.graph is graph
        data, classes = extern_data.data["data"], extern_data.data["classes"]
        fetches = [data.placeholder, data.get_sequence_lengths(), classes.placeholder, classes.get_sequence_lengths()]
        provider.set_current_dataset("train")
        for _ in range(2):  # restart: the same batches again
            provider.start_threads(session=session)
            got = []
            while True:
                try:
                    got.append(session.run(fetches))
                except tf.errors.OutOfRangeError:
                    break
            assert [list(g[1]) for g in got] == [[3, 5], [2, 4], [1]]
            for b, (x, x_lens, y, y_lens) in enumerate(got):
                assert x.shape == (len(x_lens), max(x_lens), 2) and x.dtype == np.float32
                np.testing.assert_array_equal(x_lens, y_lens)
                for i, n in enumerate(x_lens):
                    np.testing.assert_array_equal(x[i, :n], seqs[2 * b + i]["data"])
                    np.testing.assert_array_equal(y[i, :n], seqs[2 * b + i]["classes"])
                    assert not x[i, n:].any()
        provider.stop_threads()


def test_dataset_data_provider_unknown_dataset_name():
    from returnn.config import Config
    from returnn.tf.data_pipeline import DatasetDataProvider

    dataset = Task12AXDataset(num_seqs=2)
    dataset.init_seq_order(epoch=1)
    with tf.Graph().as_default():
        extern_data = ExternData()
        extern_data.init_from_dataset(dataset, auto_create_placeholders=False)
        provider = DatasetDataProvider(extern_data=extern_data, config=Config({}), datasets={"train": dataset})
        with pytest.raises(KeyError, match="unknown dataset 'dev'"):
            provider.set_current_dataset("dev")
