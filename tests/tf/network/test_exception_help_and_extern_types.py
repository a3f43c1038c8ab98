"""help_on_tf_exception (prints the failing op, fetches, fed values) and _extern_data_types_from_config (Tensor
kwargs per data key, values observed from the reference)."""

import io

import numpy
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.tf.network import _extern_data_types_from_config, help_on_tf_exception


def test_help_on_tf_exception_prints_op_and_feed():
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
        y = tf.debugging.assert_positive(x, name="check_positive")
        feed = {x: numpy.array([1.0, -2.0], dtype="float32")}
        with pytest.raises(tf.errors.InvalidArgumentError) as exc_info:
            session.run(y, feed_dict=feed)
        out = io.StringIO()
        help_on_tf_exception(session=session, exception=exc_info.value, fetches=y, feed_dict=feed, file=out)
    text = out.getvalue()
    assert "InvalidArgumentError" in text and "failing op" in text
    assert "fed 'x:0': array shape (2,) dtype float32 min -2.0 max 1.0" in text


def test_extern_data_types_from_config():
    config = Config({"extern_data": {"data": {"dim": 3}, "classes": (10, 1)}})
    assert _extern_data_types_from_config(config) == {
        "data": {"dim": 3, "available_for_inference": True},
        "classes": {"dim": 10, "shape": (None,), "sparse": True, "available_for_inference": False}}
    with pytest.raises(ConfigValueError, match="extern_data"):
        _extern_data_types_from_config(Config({}))
