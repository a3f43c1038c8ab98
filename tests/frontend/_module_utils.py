"""Helpers for the module tests: make a module's variables (under a unique prefix) with given random values."""

import itertools

import numpy as np
import tensorflow as tf

from returnn.tf.frontend_low_level import create_parameter_variables

_counter = itertools.count()


def make_params(g, module, seed=0, scale=0.3):
    """Creates the variables of ``module`` in ``g``'s graph, initialised to random values.

    :return: {parameter name: numpy value}
    """
    prefix = f"m{next(_counter)}"
    create_parameter_variables(module, name_fn=lambda path, p: prefix + "/" + path.replace(".", "/"))
    rs = np.random.RandomState(seed)
    values = {}
    for name, p in module.named_parameters():
        v = (rs.randn(*[d.dimension for d in p.dims]) * scale).astype(p.dtype)
        values[name] = v
        g.session.run(p.raw_tensor.initializer)
        p.raw_tensor.load(v, g.session)
    return values


def param_shapes(module):
    """:return: [(name, [sizes])] as ``named_parameters`` gives them"""
    return [(n, [d.dimension for d in p.dims]) for n, p in module.named_parameters()]


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))
