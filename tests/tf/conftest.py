"""Fixtures for TF tests: a fresh graph (graph mode) and a tf.compat.v1.Session per test."""

import pytest
import tensorflow as tf


@pytest.fixture
def session():
    """A tf.compat.v1.Session on a fresh tf.Graph, which is the default graph during the test."""
    graph = tf.Graph()
    with graph.as_default():
        sess = tf.compat.v1.Session(graph=graph, config=tf.compat.v1.ConfigProto(
            intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))
        with sess.as_default():
            yield sess
        sess.close()


import os  # noqa: E402
import sys  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)  # for tf_net_helpers
