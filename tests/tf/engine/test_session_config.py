"""``make_session_config``: Grappler off by default on CPU for graphs with loops, the user's ``graph_options``
respected."""

import os

from returnn.config import Config
from returnn.options import RunOptions
from returnn.tf.engine.session import make_session_config


def _config(**kwargs) -> RunOptions:
    config = Config()
    for key, value in kwargs.items():
        config.set(key, value)
    return RunOptions.from_config(config)


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
    """A time loop: a product per iteration (as a recurrent layer)."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        w = tf.ones((4, 4))
        tf.compat.v1.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.matmul(h, w)),
                                [tf.constant(0), tf.ones((2, 4))])
    return graph


def _graph_with_elementwise_loop():
    """A loop of element-wise ops only (as the SpecAugment masking of published configs)."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.ones((2, 4))
        tf.compat.v1.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.where(y > 0.5, y, 0.0) * 2.0),
                                [tf.constant(0), x])
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


def test_cpu_classic_optimizer_without_constant_folding():
    import tensorflow as tf

    for graph in (_graph_with_loop(), _graph_without_loop()):
        options = make_session_config(_config(), "cpu", graph).graph_options.optimizer_options
        assert options.opt_level == tf.compat.v1.OptimizerOptions.L0
        assert options.do_common_subexpression_elimination
    # the user's graph_options and GPU sessions: TensorFlow's default level (L1: constant folding and CSE)
    proto = make_session_config(_config(tf_session_opts={"graph_options": {}}), "cpu", _graph_with_loop())
    assert proto.graph_options.optimizer_options.opt_level == tf.compat.v1.OptimizerOptions.L1
    proto = make_session_config(_config(), "gpu", _graph_with_loop())
    assert proto.graph_options.optimizer_options.opt_level == tf.compat.v1.OptimizerOptions.L1


def test_zero_initialized_variables_stay_zero_without_constant_folding():
    import numpy
    import tensorflow as tf

    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        bias = tf1.get_variable("b", shape=(3, 4), initializer=tf1.zeros_initializer())
        weights = tf1.get_variable("w", shape=(3, 4), initializer=tf1.ones_initializer())
        with tf1.Session(config=make_session_config(_config(), "cpu", graph)) as session:
            session.run(tf1.global_variables_initializer())
            numpy.testing.assert_array_equal(session.run(bias), numpy.zeros((3, 4)))
            numpy.testing.assert_array_equal(session.run(weights + bias), numpy.ones((3, 4)))


def test_elementwise_loop_is_no_time_loop():
    """Threads and Grappler as for a graph without loops: the published conformer's SpecAugment loop made its whole
    step run one op per core, its forward chain of products on one core (benchmarks/real-configs-speed)."""
    from returnn.tf.engine.session import count_time_loops, count_while_loops

    graph = _graph_with_elementwise_loop()
    assert count_while_loops(graph) == 1 and count_time_loops(graph) == 0
    assert count_time_loops(_graph_with_loop()) == 1
    proto = make_session_config(_config(), "cpu", graph)
    assert (proto.intra_op_parallelism_threads, proto.inter_op_parallelism_threads) == (0, 0)
    assert not proto.graph_options.rewrite_options.disable_meta_optimizer
