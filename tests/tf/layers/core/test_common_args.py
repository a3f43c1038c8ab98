"""The common layer arguments come from one table (``common_args.LAYER_ARGS``): ``LayerBase`` receives them as one
value whose fields and defaults are the table's (``CommonLayerArgs``), validation applies their rules (invalid values, unsupported, no effect), and ``updater_opts`` works per
layer (its params get the options; the updater applies them), as the reference."""

import dataclasses
import inspect

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError, LayerArgError
from returnn.tf.layers.core import common_args
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.spec import validate_layer_dict
from returnn.tf.network import TFNetwork
from returnn.tf.updater import Updater


def test_layer_base_takes_the_table_as_one_value():
    params = inspect.signature(LayerBase.__init__).parameters
    assert list(params) == ["self", "name", "network", "output", "sources", "common_args", "kwargs"]
    fields = {f.name: f.default for f in dataclasses.fields(common_args.CommonLayerArgs)}
    assert set(fields) == (set(common_args.COMMON_LAYER_ARGS) - {"from"}) | {"target_layers"}
    assert all(fields[a.name] is a.default for a in common_args.LAYER_ARGS if a.name != "from")
    assert set(common_args.LAYER_ARGS_BY_NAME) == common_args.COMMON_LAYER_ARGS
    assert {a.status for a in common_args.LAYER_ARGS} <= {"supported", "no effect", "unsupported"}
    assert common_args.LAYER_ARGS_BY_NAME["updater_opts"].status == "supported"
    assert common_args.UNSUPPORTED_ARGS == set()
    assert common_args.LAYER_ARGS_BY_NAME["out_shape"].status == "supported"
    assert "param_device" in common_args.NO_EFFECT_ARGS and "updater_opts" not in common_args.NO_EFFECT_ARGS
    assert list(common_args.COMMON_LAYER_ARGS_GROUPS) == ["wiring", "output", "loss", "params", "input", "rec",
                                                          "mode", "debug"]


def test_unsupported_arg_with_a_value_raises(monkeypatch):
    # no common arg is unsupported now: one made so for the test
    arg = common_args.LAYER_ARGS_BY_NAME["name_scope"]
    monkeypatch.setitem(common_args.LAYER_ARGS_BY_NAME, "name_scope",
                        dataclasses.replace(arg, status=common_args.UNSUPPORTED))
    validate_layer_dict("l", {"class": "linear", "n_out": 2, "name_scope": None})  # the default: fine
    with pytest.raises(LayerArgError) as exc_info:
        validate_layer_dict("l", {"class": "linear", "n_out": 2, "name_scope": "x"})
    assert str(exc_info.value).splitlines()[0] == (
        "layer 'l' {\"class\": \"linear\"}: is not supported (yet) in this implementation: 'name_scope'")


@pytest.mark.parametrize("arg, value", [("param_dropout", 1.0), ("param_dropout", -0.1), ("param_dropout", "0.1"),
                                        ("param_variational_noise", -1.0), ("param_dropout_min_ndim", 1.5)])
def test_param_noise_args_invalid_value(arg, value):
    with pytest.raises(LayerArgError) as exc_info:
        validate_layer_dict("l", {"class": "linear", "n_out": 2, arg: value})
    assert exc_info.value.arg == arg and "invalid value" in str(exc_info.value)


def test_no_effect_arg_warns_once_per_arg(capsys, monkeypatch):
    from returnn.log import log
    from returnn.tf.layers.core import spec

    monkeypatch.setattr(spec, "_warned_no_effect", set())
    log.initialize(verbosity=[3])
    validate_layer_dict("a", {"class": "linear", "n_out": 2, "param_device": "cpu"})
    validate_layer_dict("b", {"class": "linear", "n_out": 2, "param_device": "gpu"})
    validate_layer_dict("c", {"class": "linear", "n_out": 2, "collocate_with": None})  # not given: silent
    out = capsys.readouterr().out
    assert out.count("no effect") == 1
    assert ("WARNING: layer argument 'param_device' is accepted but has no effect in this implementation: device "
            "of the params (TF places them itself here) (given e.g. in layer 'a')\n") in out


def test_updater_opts_per_layer(session):
    """``learning_rate_multiplier`` 0 in one layer's ``updater_opts``: its params stay, the other layer's move."""
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 2, "sparse": True}}}),
                    train_flag=True)
    net.construct_from_dict({
        "frozen": {"class": "linear", "activation": "tanh", "n_out": 4, "from": "data",
                   "updater_opts": {"learning_rate_multiplier": 0.0}},
        "output": {"class": "softmax", "loss": "ce", "from": "frozen"}})
    frozen_w = net.get_layer("frozen").params["W"]
    assert frozen_w.RETURNN_updater_opts == {"learning_rate_multiplier": 0.0}
    updater = Updater(Config({"optimizer": {"class": "sgd"}}), initial_learning_rate=1.0, loss=net.get_objective(),
                      var_list=net.get_trainable_params())
    op = updater.get_optim_op()
    session.run(tf.compat.v1.global_variables_initializer())
    updater.init_optimizer_vars(session)
    before = session.run([frozen_w, net.get_layer("output").params["W"]])
    data = net.extern_data.data
    session.run(op, feed_dict={data["data"].placeholder: np.ones((1, 2, 3), "float32"),
                               data["data"].get_sequence_lengths(): [2],
                               data["classes"].placeholder: [[0, 1]], data["classes"].get_sequence_lengths(): [2]})
    after = session.run([frozen_w, net.get_layer("output").params["W"]])
    np.testing.assert_array_equal(after[0], before[0])
    assert np.abs(after[1] - before[1]).max() > 1e-4


def test_updater_opts_unknown_key_names_the_layer(session):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=True)
    with pytest.raises(ConfigValueError, match="updater_opts of layer 'l'"):
        net.construct_from_dict({"output": {"class": "linear", "n_out": 2, "from": "data"},
                                 "l": {"class": "linear", "n_out": 2, "from": "data", "is_output_layer": True,
                                       "updater_opts": {"learning_rate_multiplyer": 0.5}}})


def test_extra_deps_are_built_first_and_listed_as_dependencies():
    # as observed from the reference: a copy layer with "extra_deps": ["x"] builds x (nothing else uses it) and
    # lists it after its sources; its output is the input itself (no control dependency); a string is one name
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=False)
        net.construct_from_dict({"x": {"class": "linear", "from": "data", "n_out": 2},
                                 "output": {"class": "copy", "from": "data", "extra_deps": ["x"]},
                                 "y": {"class": "copy", "from": "data", "extra_deps": "x", "is_output_layer": True}})
        out = net.get_layer("output")
        assert [dep.name for dep in out.get_dep_layers()] == ["data", "x"]
        assert [dep.name for dep in net.get_layer("y").get_dep_layers()] == ["data", "x"]
        assert out.output.placeholder.op.control_inputs == []
    with pytest.raises(Exception, match="nope"):
        with tf.Graph().as_default():
            TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=False).construct_from_dict(
                {"output": {"class": "copy", "from": "data", "extra_deps": ["nope"]}})
