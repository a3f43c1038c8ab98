"""Scope and control-flow-context helpers of returnn.tf.util.basic (names observed from the reference)."""

import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_get_current_name_scope(session):
    assert tf_util.get_current_name_scope() == ""
    with tf_util.reuse_name_scope("a"):
        with tf.name_scope("b"):
            assert tf_util.get_current_name_scope() == "a/b"
    with tf1.variable_scope("v"):
        with tf_util.reuse_name_scope("sub") as scope:
            assert tf_util.get_current_name_scope() == "v/sub" and scope.name == "v/sub"
            assert tf_util.get_current_var_scope_name() == "v/sub"


def test_reuse_name_scope_of_tensor_observed(session):
    with tf.name_scope("s1"), tf.name_scope("s2"):
        x = tf.constant(1, name="c")
    # scope names observed from the reference
    for kwargs, expected in [({}, "s1/s2"), ({"prefix": "p_"}, "p_s1/s2"), ({"postfix": "_q"}, "s1/s2_q"),
                             ({"add_tensor_name": True}, "s1/s2/c"),
                             ({"prefix": "p_", "add_tensor_name": True}, "p_s1/s2/c")]:
        with tf.name_scope("elsewhere"):
            with tf_util.reuse_name_scope_of_tensor(x, **kwargs) as scope:
                assert tf_util.get_current_name_scope() == expected and scope.name == expected
    assert tf_util.get_name_scope_of_tensor(x) == "s1/s2"
    assert tf_util.get_base_name(x) == "c" and tf_util.get_base_name("a/b/W:0") == "W"


def test_get_valid_scope_name_from_str_observed():
    # observed from the reference
    for s, expected in [("a b", "a__b"), ("_x", ".95.x"), ("x:y[0]", "x__y[0]"), ("-a", ".95._a"), ("a/b", "a/b"),
                        ("a(b)", "a__b__"), ("a>b", "a>b"), ("1a", "1a"), ("aéb", "ab"), ("/a", ".47.a")]:
        assert tf_util.get_valid_scope_name_from_str(s) == expected, s


def test_control_flow_context_helpers(session):
    outer = tf.constant(3) + tf.constant(4)
    assert not tf_util.has_control_flow_context(outer) and not tf_util.has_current_control_flow_context()
    seen = {}

    def body(i, acc):
        seen["in_loop"] = tf_util.has_control_flow_context(acc + 1)
        seen["current"] = tf_util.has_current_control_flow_context()
        with tf_util.same_control_flow_ctx(outer):
            v = outer + 2
        seen["same_ctx"] = tf_util.has_control_flow_context(v)
        with tf_util.default_control_flow_ctx(), tf_util.same_control_flow_ctx(acc):
            seen["back_in_loop"] = tf_util.has_control_flow_context(acc * 1)
        with tf_util.default_control_flow_ctx():
            w = tf.Variable(5, name="w_in_loop")
        seen["w"] = w
        return i + 1, acc + v + w

    _, res = tf.while_loop(lambda i, _: i < 3, body, [0, 0])
    assert seen == {"in_loop": True, "current": True, "same_ctx": False, "back_in_loop": True, "w": seen["w"]}
    assert not tf_util.has_control_flow_context(res)  # the loop's result (its Exit op) is outside
    session.run(seen["w"].initializer)
    assert session.run(res) == 3 * (9 + 5)
    assert not tf_util.has_control_flow_context(3)


def test_cond_with_python_and_constant_pred(session):
    assert tf_util.cond(True, lambda: 1, lambda: 2) == 1
    assert tf_util.cond(tf.constant(False), lambda: 1, lambda: 2) == 2
    p = tf1.placeholder(tf.bool, ())
    res = tf_util.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    assert session.run(res, {p: True}) == 1 and session.run(res, {p: False}) == 2


def test_global_tensor_once_per_graph(session):
    calls = []

    def make():
        calls.append(1)
        return tf.constant(42, name="answer")

    x = tf_util.global_tensor(make, name="answer")
    assert tf_util.global_tensor(make, name="answer") is x and len(calls) == 1
    assert x.name == "globals/answer:0" and session.run(x) == 42
    with tf.Graph().as_default():
        assert tf_util.global_tensor(make, name="answer") is not x and len(calls) == 2


def test_version_helpers():
    version = tf_util.tf_version_tuple()
    assert version[:2] == tuple(int(p) for p in tf.__version__.split(".")[:2])
    assert tf_util.have_min_tf_version((1, 1)) and not tf_util.have_min_tf_version((99,))
    tf_util.assert_min_tf_version((1, 1), "tf.gather_nd")
    try:
        tf_util.assert_min_tf_version((99, 1), "some feature")
    except AssertionError as exc:
        assert "too old" in str(exc) and "some feature" in str(exc)
    else:
        raise AssertionError("expected an error")
