"""returnn.extern.graph_editor (walks and graph copies) and returnn.tf.util.basic.FetchHelper."""

import io

import numpy as np
import pytest
import tensorflow as tf

from returnn.extern import graph_editor
from returnn.tf.util.basic import FetchHelper

tf1 = tf.compat.v1


@pytest.fixture
def session():
    graph = tf.Graph()
    with graph.as_default():
        with tf1.Session(graph=graph) as sess:
            yield sess


def test_walks(session):
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    c = tf.add(a, b, name="c")
    d = tf.sqrt(c, name="d")
    e = tf.identity(b, name="e")
    assert [op.name for op in graph_editor.get_backward_walk_ops([d], inclusive=True)] == ["a", "b", "c", "d"]
    assert [op.name for op in graph_editor.get_backward_walk_ops(d, inclusive=False)] == ["a", "b", "c"]
    assert [op.name for op in graph_editor.get_forward_walk_ops([b], inclusive=False)] == ["c", "d", "e"]
    assert [op.name for op in graph_editor.get_backward_walk_ops(d, stop_at_ts=[c])] == ["d"]
    del e


def test_graph_replace(session):
    x = tf.constant(4.0)
    y = tf.sqrt(x) * 2.0
    z = graph_editor.graph_replace(y, {x: tf.constant(9.0)})
    assert z is not y and session.run([y, z]) == [4.0, 6.0]
    assert graph_editor.graph_replace([y], {tf.constant(1.0): tf.constant(2.0)})[0] is y


def test_copy_and_transformer_info(session):
    x = tf.constant(4.0)
    y = tf.sqrt(x)
    ops, info = graph_editor.copy([y.op])
    assert info.transformed(y) is ops[0].outputs[0] and info.original(ops[0]) is y.op
    assert session.run(info.transformed(y)) == 2.0
    with pytest.raises(graph_editor.GraphEditError, match="same graph"):
        graph_editor.copy([y.op], dst_graph=tf.Graph())


def test_copy_while_loop_with_fetch_helper(session):
    body_out = {}

    def body(i, v):
        body_out["y"] = v * 2.0
        return i + 1, body_out["y"]

    _, r = tf.while_loop(lambda i, v: i < 3, body, [0, 1.5])
    assert session.run(r) == 12.0
    ops = graph_editor.get_backward_walk_ops([r.op], inclusive=True, control_inputs=True)
    _, info = graph_editor.copy(ops)
    r2 = info.transformed(r)
    assert r2 is not r and r2.op.type == "Exit"
    helper = FetchHelper(info.transformed(body_out["y"].op.inputs[0]))
    helper.add_to_control_inputs(info.transformed(body_out["y"].op))
    assert session.run(r2) == 12.0
    assert helper.callback_count == 3 and helper.most_recent_value == 6.0


def test_fetch_helper_records_values(session):
    x = tf.constant([1.0, 42.0])
    y = tf.reduce_sum(tf.sqrt(x))
    out = io.StringIO()
    helper = FetchHelper(x, verbose_stream=out)
    y2 = FetchHelper.copy_graph_replace_tensors(y, [helper])
    np.testing.assert_allclose(session.run(y2), 1.0 + np.sqrt(42.0), rtol=1e-6)
    assert helper.callback_count == 1 and helper.most_recent_value.tolist() == [1.0, 42.0]
    assert "FetchHelper(1)" in out.getvalue()
    y3, helpers, target = FetchHelper.copy_graph(y, target_op=y.op.inputs[0].op,
                                                 fetch_helper_tensors=list(y.op.inputs[0].op.inputs))
    assert target is not y.op.inputs[0].op and target.type == "Sqrt"
    session.run(y3)
    assert helpers[0].callback_count == 1 and helpers[0].most_recent_value.tolist() == [1.0, 42.0]
