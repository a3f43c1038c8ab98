"""Fixtures for the ``returnn.frontend`` tests: one graph and session per test module (ops are built in small
graphs and run together, to keep the tests fast), and helpers to make input tensors."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.tensor import Dim, Tensor, batch_dim


class Graph:
    """A graph and session; ``run`` evaluates Tensors (their raw tensors) with the given numpy feeds."""

    def __init__(self):
        self.graph = tf.Graph()
        self.session = tf.compat.v1.Session(graph=self.graph, config=tf.compat.v1.ConfigProto(
            intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))

    def run(self, *tensors, feed=None):
        raws = [t.raw_tensor if isinstance(t, Tensor) else t for t in tensors]
        out = self.session.run(raws, feed_dict=feed)
        return out[0] if len(out) == 1 else out

    def const(self, name, dims, value, dtype=None, sparse_dim=None):
        """:return: a Tensor with a constant raw tensor (in this graph)"""
        value = np.asarray(value, dtype=dtype)
        return Tensor(name, dims=dims, dtype=str(value.dtype), sparse_dim=sparse_dim, raw_tensor=tf.constant(value))

    def time_dim(self, lens, name="time"):
        """:return: a dynamic dim with these lengths ``[B]``"""
        d = Dim(None, name=name)
        d.dyn_size_ext = Tensor(f"{name}_lens", dims=[batch_dim], dtype="int32",
                                raw_tensor=tf.constant(np.asarray(lens, dtype="int32")))
        return d


@pytest.fixture(scope="module")
def g():
    """A graph that is the default graph for the whole module; the run context is reset afterwards."""
    graph = Graph()
    with graph.graph.as_default():
        yield graph
    graph.session.close()
    rf.reset_run_ctx()
