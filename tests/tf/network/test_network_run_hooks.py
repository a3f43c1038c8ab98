"""TFNetwork run hooks: get_seq_tags (extern data seq_tag), post control dependencies (also in get_fetches_dict, as
the reference's key), graph reset callbacks; the engine feeds the batch's tags to a layer that reads them."""

import h5py
import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import ExternData, TFNetwork
from tests.tf.engine.test_training import make_config, run_task

TF = tf.compat.v1


def test_seq_tags_post_deps_and_reset_callbacks():
    with tf.Graph().as_default(), TF.Session() as session:
        net = TFNetwork(extern_data=ExternData({"data": {"dim": 3}}), config=Config())
        net.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        assert "seq_tag" not in net.extern_data.data
        tags = net.get_seq_tags()
        assert net.extern_data.data["seq_tag"].placeholder is tags and "seq_tag" in net.get_used_data_keys()
        assert tags.op.name == "extern_data/placeholders/seq_tag/seq_tag" and net.get_seq_tags() is tags
        assert session.run(tags, feed_dict={tags: np.array([b"a", b"b"])}).tolist() == [b"a", b"b"]
        assert session.run(tags).shape == (0,)  # not fed: empty
        assert "post_control_dependencies" not in net.get_fetches_dict()
        counter = tf.Variable(0)
        session.run(counter.initializer)
        op = counter.assign_add(1).op
        net.register_post_control_dependencies([op])
        fetches = net.get_fetches_dict()
        assert fetches["post_control_dependencies"] == [op] == net.get_post_control_dependencies()
        session.run(fetches)
        assert session.run(counter) == 1
        calls = []
        net.register_graph_reset_callback(lambda: calls.append(1))
        net.register_graph_reset_callback(lambda: calls.append(2))
        assert len(net.get_graph_reset_callbacks()) == 2
        net.call_graph_reset_callbacks()
        net.call_graph_reset_callbacks()  # each called once
        assert calls == [1, 2] and net.get_graph_reset_callbacks() == []


def test_engine_feeds_seq_tags_to_hdf_dump(tmp_path, capsys):
    filename = str(tmp_path / "dump.hdf")
    # a layer over time (conv): batches of whole sequences (a frame-wise network's batches are cut across them)
    network = {"conv": {"class": "conv", "filter_size": [3], "padding": "same", "n_out": 4, "from": "data"},
               "dump": {"class": "hdf_dump", "filename": filename, "from": "conv"},
               "output": {"class": "softmax", "loss": "ce", "from": "dump"}}
    run_task(make_config(tmp_path, num_epochs=1, network=network, dev=None,
                         train={"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 1}), capsys=capsys)
    with h5py.File(filename, "r") as f:
        tags = sorted(t.decode() for t in f["seqTags"][()])
    assert tags == ["seq-0", "seq-1", "seq-2", "seq-3"]  # the dataset's tags (Task12AXDataset: seq-<idx>)
