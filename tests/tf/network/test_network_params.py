"""TFNetwork param handling: initialize_params, get/set param values (serialized), save/load checkpoints (batch norm
params across param versions), global train step, as the reference (observed)."""

import numpy
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork
from returnn.tf.network.params import TFNetworkParamsSerialized

tf1 = tf.compat.v1


def _net(net_dict, train_flag=True):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=train_flag)
    net.construct_from_dict(net_dict)
    return net


def _feed(net):
    data = net.extern_data.get_data("data")
    rnd = numpy.random.RandomState(1)
    return {data.placeholder: rnd.normal(size=(2, 5, 3)).astype("float32"),
            data.get_sequence_lengths(): numpy.array([5, 4], dtype="int32")}


def test_initialize_params_and_serialized_roundtrip():
    with tf.Graph().as_default(), tf1.Session() as session:
        net = _net({"output": {"class": "linear", "n_out": 2, "from": "data"}})
        net.initialize_params(session)
        assert session.run(tf1.report_uninitialized_variables()).size == 0
        w = net.layers["output"].params["W"]
        before = session.run(w)
        net.initialize_params(session)  # fresh initial values, as the reference
        assert not numpy.array_equal(before, session.run(w))
        serialized = net.get_params_serialized(session)
        assert isinstance(serialized, TFNetworkParamsSerialized) and serialized.global_train_step == 0
        assert set(serialized.values_dict["output"]) == {"W", "b"} and serialized.values_dict["data"] == {}
        net.set_global_train_step(7, session)
        session.run(w.assign(tf.zeros_like(w)))
        net.set_params_by_serialized(serialized, session)
        numpy.testing.assert_array_equal(session.run(w), serialized.values_dict["output"]["W"])
        assert net.get_global_train_step(session) == 0
        assert net.global_train_step_var is net.global_train_step
        with pytest.raises(KeyError, match="not in network"):
            net.set_param_values_by_dict({"foo": {"W": before}}, session=session)
        net.set_param_values_by_dict({"foo": {"W": before}}, session=session, ignore_non_existing=True)


@pytest.mark.parametrize("old_version, new_version", [(0, 1), (0, 2), (1, 2), (2, 0)])
def test_batch_norm_checkpoint_across_param_versions(tmp_path, old_version, new_version):
    def net_dict(version):
        return {"output": {"class": "batch_norm", "from": "data", "param_version": version, "masked_time": True}}

    filename = str(tmp_path / "model")
    with tf.Graph().as_default(), tf1.Session() as session:
        net = _net(net_dict(old_version))
        net.initialize_params(session)
        for var in net.get_params_list():  # values other than the initial ones
            session.run(var.assign(numpy.random.RandomState(len(var.name)).uniform(0.5, 1.5, var.shape.as_list())))
        net.save_params_to_file(filename, session)
        out_old = session.run(net.get_default_output_layer().output.placeholder, feed_dict=_feed(net))
    with tf.Graph().as_default(), tf1.Session() as session:
        net = _net(net_dict(new_version))
        net.load_params_from_file(filename, session)
        out_new = session.run(net.get_default_output_layer().output.placeholder, feed_dict=_feed(net))
    numpy.testing.assert_allclose(out_old, out_new, rtol=1e-5)


def test_load_params_missing_param_raises(tmp_path):
    from returnn.errors import DataFileError
    filename = str(tmp_path / "model")
    with tf.Graph().as_default(), tf1.Session() as session:
        net = _net({"output": {"class": "linear", "n_out": 2, "from": "data"}})
        net.initialize_params(session)
        net.save_params_to_file(filename, session)
    with tf.Graph().as_default(), tf1.Session() as session:
        net = _net({"output": {"class": "linear", "n_out": 2, "from": "data"},
                    "other": {"class": "linear", "n_out": 2, "from": "data", "is_output_layer": True}})
        with pytest.raises(DataFileError, match="other/W"):
            net.load_params_from_file(filename, session)
