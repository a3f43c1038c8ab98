"""Initializer expressions with positional arguments (as the reference's configs write them)."""

import pytest

from returnn.errors import ConfigValueError
from returnn.tf.ops.init import get_initializer


def test_positional_args_in_expression():
    init = get_initializer("RandomUniform(0., 1.)")
    assert (init.minval, init.maxval) == (0.0, 1.0)
    init = get_initializer("variance_scaling_initializer(0.5, 'fan_out', distribution='uniform')")
    assert (init.scale, init.mode, init.distribution) == (0.5, "fan_out", "uniform")
    assert get_initializer("constant(3.)").value == 3.0


def test_bad_expression_arguments():
    with pytest.raises(ConfigValueError, match="arguments of Python literals"):
        get_initializer("random_uniform(undefined_name)", key="mask_emb/init")
