"""``distributed_tf = {"local_only": True}``: the sessions run through an in-process TensorFlow server."""

import pytest
import tensorflow as tf

import returnn.tf.distributed as dist
from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.tf.distributed.strategy import SingleProcessStrategy


def test_local_server_session_target():
    assert not dist.is_enabled() and dist.get_session_target() == ""
    with dist._temporary_init_distributed_tf(config=Config({"distributed_tf": {"local_only": True}})):
        assert dist.is_enabled()
        target = dist.get_session_target()
        assert target.startswith("grpc://localhost:")
        graph = tf.Graph()
        with graph.as_default():
            x = tf.constant(3) * 2
        with SingleProcessStrategy().new_session(graph, tf.compat.v1.ConfigProto()) as session:
            assert session.sess_str == target.encode("utf8")
            assert session.run(x) == 6
    assert not dist.is_enabled() and dist.get_session_target() == ""


@pytest.mark.parametrize("value", [{"local_only": False}, {"cluster": {}}, True])
def test_other_distributed_tf_values_rejected(value):
    with pytest.raises(ConfigValueError, match="distributed_tf"):
        dist.init_distributed_tf(Config({"distributed_tf": value}))
    assert not dist.is_enabled()
