"""``make_session_config``: Grappler off by default on CPU for graphs with loops, the user's ``graph_options``
respected."""

import os

from returnn.config import Config
from returnn.tf.engine.session import make_session_config


def _config(**kwargs) -> Config:
    config = Config()
    for key, value in kwargs.items():
        config.set(key, value)
    return config


def test_cpu_default_disables_grappler_for_graphs_with_loops():
    proto = make_session_config(_config(), "cpu", _graph_with_loop())
    assert proto.graph_options.rewrite_options.disable_meta_optimizer
    assert proto.device_count["GPU"] == 0
    proto = make_session_config(_config(), "cpu", _graph_without_loop())  # e.g. feed-forward: fused kernels
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer


def test_user_graph_options_keep_grappler():
    proto = make_session_config(_config(tf_session_opts={"graph_options": {}}), "cpu", _graph_with_loop())
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer


def test_gpu_keeps_grappler():
    proto = make_session_config(_config(), "gpu", _graph_with_loop())
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer


def _graph_with_loop():
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    return graph


def _graph_without_loop():
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0) * 2.0
    return graph


def test_cpu_threads_for_graphs_with_loops():
    proto = make_session_config(_config(), "cpu", _graph_with_loop())
    assert (proto.intra_op_parallelism_threads, proto.inter_op_parallelism_threads) == (1, len(os.sched_getaffinity(0)))
    proto = make_session_config(_config(), "cpu", _graph_without_loop())  # TensorFlow's defaults (0 = all cores)
    assert (proto.intra_op_parallelism_threads, proto.inter_op_parallelism_threads) == (0, 0)


def test_user_thread_counts_win():
    proto = make_session_config(_config(tf_session_opts={"intra_op_parallelism_threads": 2}), "cpu", _graph_with_loop())
    assert (proto.intra_op_parallelism_threads, proto.inter_op_parallelism_threads) == (2, 0)
    proto = make_session_config(_config(), "gpu", _graph_with_loop())
    assert proto.intra_op_parallelism_threads == 0
