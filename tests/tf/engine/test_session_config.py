"""``make_session_config``: Grappler off by default on CPU, the user's ``graph_options`` respected."""

from returnn.config import Config
from returnn.tf.engine.session import make_session_config


def _config(**kwargs) -> Config:
    config = Config()
    for key, value in kwargs.items():
        config.set(key, value)
    return config


def test_cpu_default_disables_grappler():
    proto = make_session_config(_config(), "cpu")
    assert proto.graph_options.rewrite_options.disable_meta_optimizer
    assert proto.device_count["GPU"] == 0


def test_user_graph_options_keep_grappler():
    proto = make_session_config(_config(tf_session_opts={"graph_options": {}}), "cpu")
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer


def test_gpu_keeps_grappler():
    proto = make_session_config(_config(), "gpu")
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer
