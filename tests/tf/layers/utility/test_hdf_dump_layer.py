"""hdf_dump: the written file has the layout observed from the reference's files (same inputs, extras); the tags
come from the extern data ``seq_tag`` (added by the layer, to be fed); the op is a post-control dependency."""

import h5py
import numpy as np

from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"dim": 2}, "cls": {"dim": 5, "sparse": True}, "img": {"shape": (None, 3, 2)}}
CLS = np.array([[1, 2, 3, 4], [0, 1, 2, 3]], "int32")
IMG = np.arange(2 * 4 * 3 * 2, dtype="float32").reshape(2, 4, 3, 2)


def run_dump(session, layer_opts, tmp_path):
    filename = str(tmp_path / "dump.hdf")
    net = build_net({"output": {"class": "hdf_dump", "filename": filename, "is_output_layer": True, **layer_opts}},
                    EXTERN, train_flag=False)
    feed = make_feed(net, {"data": np.arange(12, dtype="float32").reshape(2, 3, 2), "cls": CLS, "img": IMG},
                     {"data": [3, 2], "cls": [4, 1], "img": [2, 4]})
    feed[net.extern_data.data["seq_tag"].placeholder] = np.array([b"s-a", b"s-b"])
    session.run(net.get_layer("output").output.placeholder, feed_dict=feed)
    net.get_layer("output").dumper.close()
    return h5py.File(filename, "r")


def test_hdf_dump_sparse_with_extras(session, tmp_path):
    with run_dump(session, {"from": "data:cls", "extra": {"x": "data", "i": "data:img"}}, tmp_path) as f:
        # observed from the reference (same inputs)
        assert f.attrs["inputPattSize"] == 5 and f.attrs["numSeqs"] == 2 and f.attrs["numTimesteps"] == 5
        assert f["inputs"][()].tolist() == [1, 2, 3, 4, 0]
        assert f["seqLengths"][()].tolist() == [[4, 12, 3, 1, 3, 2], [1, 12, 3, 1, 3, 2]]
        assert f["targets/data/i"].shape == (24, 2)
        np.testing.assert_array_equal(f["targets/data/i"][()], IMG.reshape(24, 2))  # padded frames included
        assert f["targets/data/i_seq_lens"][()].tolist() == [2, 3, 2, 4, 3, 2]
        assert f["targets/data/x_seq_lens"][()].tolist() == [3, 2, 2, 2]
        assert f["targets/data/seq_sizes"][()].tolist() == [4, 1]
        assert f["targets/size"].attrs["i"].tolist() == [2, 2]
        assert f["targets/size"].attrs["x_seq_lens"].tolist() == [1, 1]


def test_hdf_dump_spatial_input(session, tmp_path):
    with run_dump(session, {"from": "data:img"}, tmp_path) as f:
        assert f["inputs"].shape == (18, 2)  # T_b * 3 frames per sequence
        np.testing.assert_array_equal(f["inputs"][()], np.concatenate([IMG[0, :2].reshape(6, 2),
                                                                      IMG[1, :4].reshape(12, 2)]))
        assert f["seqLengths"][()].tolist() == [[6, 2, 2], [12, 2, 2]]
        assert f["targets/data/seq_sizes"][()].tolist() == [2, 3, 4, 3]
        assert f["targets/data/sizes"][()].tolist() == [2, 3, 4, 3]


def test_hdf_dump_whole_batches(session, tmp_path):
    with run_dump(session, {"from": "data", "dump_whole_batches": True}, tmp_path) as f:
        assert f["inputs"].shape == (6, 2) and f["seqLengths"][()].tolist() == [[6, 2, 2]]
        assert f["targets/data/seq_sizes"][()].tolist() == [[3], [2]]
        assert f["seqTags"][()][0].decode() == "s-a<->s-b"


def test_hdf_dump_whole_batches_extras(session, tmp_path):
    """Observed from the reference: each extra is its padded batch flattened to 1D (batch-major, feature last),
    ``<key>_seq_lens`` the per-sequence sizes as one [B, n] entry."""
    with run_dump(session, {"from": "data", "dump_whole_batches": True, "extra": {"i": "data:img", "c": "data:cls"}},
                  tmp_path) as f:
        np.testing.assert_array_equal(f["targets/data/i"][()], IMG.reshape(-1))
        assert f["targets/data/i_seq_lens"][()].tolist() == [[2, 3, 2], [4, 3, 2]]
        assert f["targets/data/c"][()].tolist() == CLS.reshape(-1).tolist()
        assert f["targets/data/c_seq_lens"][()].tolist() == [[4], [1]]
        assert f["seqLengths"][()].tolist() == [[6, 8, 2, 48, 2, 2, 2]]  # streams in key order


def test_hdf_dump_extra_feature_last_and_seq_tags(session, tmp_path):
    """A time-major extra with a feature axis in the middle: dumped batch-major with the feature axis last."""
    filename = str(tmp_path / "dump.hdf")
    extern = {"data": {"dim": 2}, "sm": {"shape": (None, 1, None), "batch_dim_axis": 1, "feature_dim_axis": 2}}
    net = build_net({"output": {"class": "hdf_dump", "filename": filename, "from": "data", "extra": {"sm": "data:sm"},
                                "is_output_layer": True}}, extern, train_flag=False)
    sm = np.arange(3 * 2 * 1 * 4, dtype="float32").reshape(3, 2, 1, 4)
    feed = make_feed(net, {"data": np.zeros((2, 3, 2), "float32")}, {"data": [3, 2]})
    feed[net.extern_data.data["sm"].placeholder] = sm
    feed[net.extern_data.data["sm"].size_placeholder[0]] = [3, 2]
    feed[net.extern_data.data["sm"].size_placeholder[2]] = [4, 1]
    feed[net.extern_data.data["seq_tag"].placeholder] = np.array([b"a", b"b"])
    session.run(net.get_fetches_dict(), feed_dict=feed)  # the post-control dependency runs the dump
    assert net.get_post_control_dependencies()
    net.call_graph_reset_callbacks()  # closes the file
    with h5py.File(filename, "r") as f:
        assert f["seqTags"][()].tolist() == [b"a", b"b"]
        np.testing.assert_array_equal(f["targets/data/sm"][()], sm.transpose(1, 0, 3, 2).reshape(24, 1))
        assert f["targets/data/sm_seq_lens"][()].tolist() == [3, 4, 1, 2, 1, 1]


def test_hdf_dump_extra_one_value_per_sequence(session, tmp_path):
    """An extra without axes besides the batch (e.g. a score per sequence): one value per sequence and no sizes
    entry, as the reference's file (observed, same inputs)."""
    filename = str(tmp_path / "dump.hdf")
    net = build_net({"sc": {"class": "eval", "from": "data:cls", "out_type": {"shape": (), "dim": None, "sparse": False,
                                                                         "dtype": "float32", "time_dim_axis": None},
                            "eval": "tf.cast(tf.reduce_sum(source(0, auto_convert=False), axis=1), tf.float32)"},
                     "output": {"class": "hdf_dump", "filename": filename, "is_output_layer": True,
                                "from": "data:cls", "extra": {"scores": "sc"}}}, EXTERN, train_flag=False)
    feed = make_feed(net, {"cls": CLS}, {"cls": [4, 1]})
    feed[net.extern_data.data["seq_tag"].placeholder] = np.array([b"s-a", b"s-b"])
    session.run(net.get_layer("output").output.placeholder, feed_dict=feed)
    net.get_layer("output").dumper.close()
    with h5py.File(filename, "r") as f:
        assert sorted(f["targets/data"]) == ["scores", "seq_sizes"]
        assert f["seqLengths"][()].tolist() == [[4, 1, 1], [1, 1, 1]]
        np.testing.assert_array_equal(f["targets/data/scores"][()], [10, 6])  # padded frames summed
