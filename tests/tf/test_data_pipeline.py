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
