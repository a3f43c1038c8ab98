"""The public modules ``returnn.tf.network``, ``returnn.tf.layers.basic`` and ``returnn.tf.layers.variable`` have
no ``__all__``; a star import brings the helper names scripts use (the list is what a star import of the
reference's modules binds, observed)."""

import contextlib
import typing

import numpy
import tensorflow as tf


def _star(module_name):
    namespace = {}
    exec(f"from {module_name} import *", namespace)
    return namespace


def test_network_star_import_helpers():
    ns = _star("returnn.tf.network")
    import returnn.tf.compat
    import returnn.tf.util.basic
    import returnn.util.basic
    from returnn.log import log
    from returnn.tensor import Tensor
    assert ns["contextlib"] is contextlib and ns["numpy"] is numpy and ns["tf"] is tf
    assert ns["typing"] is typing and ns["Optional"] is typing.Optional
    assert ns["tf_compat"] is returnn.tf.compat and ns["tf_util"] is returnn.tf.util.basic
    assert ns["util"] is returnn.util.basic and ns["log"] is log
    assert ns["Data"] is Tensor and ns["Tensor"] is Tensor
    for name in ["TFNetwork", "ExternData", "LossHolder", "LayerNotFound", "LayerBase", "get_layer_class",
                 "reuse_name_scope", "Dim"]:
        assert name in ns, name


def test_layers_basic_star_import_helpers():
    ns = _star("returnn.tf.layers.basic")
    from returnn.tensor import FeatureDim, SpatialDim
    assert ns["contextlib"] is contextlib and ns["tf"] is tf
    assert ns["FeatureDim"] is FeatureDim and ns["SpatialDim"] is SpatialDim
    x = numpy.zeros((2, 3, 4))
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        assert session.run(ns["swapaxes"](tf.constant(x), 0, 2)).shape == (4, 3, 2)
    for name in ["LinearLayer", "OutputWithActivation", "SearchBeam", "SearchChoices", "NotSpecified", "log",
                 "InternalLayer", "concat_sources", "Loss"]:
        assert name in ns, name


def test_layers_variable_star_import_helpers():
    ns = _star("returnn.tf.layers.variable")
    assert ns["tf"] is tf and ns["contextlib"] is contextlib
    for name in ["VariableLayer", "LayerBase", "Dim", "Tensor", "tf_util", "tf_compat"]:
        assert name in ns, name
