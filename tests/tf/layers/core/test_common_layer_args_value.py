"""The common layer arguments arrive as one value (``CommonLayerArgs``, parsed once by the network from the layer
dict); the reference's signature (one by one, ``super().__init__(**kwargs)``) keeps working for the layer classes of
configs, and the attributes of the reference (``layer.loss``, ``layer.target``, ``layer.L2``, ...) read the value."""

import pytest
import tensorflow as tf

from returnn.config import Config, global_config_ctx
from returnn.errors import ConfigValueError, LayerArgError
from returnn.options.network import NetworkOptions
from returnn.tensor import NotSpecified
from returnn.tf.layers.basic import LayerBase, LinearLayer, register_layer_class
from returnn.tf.layers.core.common_args import CommonLayerArgs, split_layer_kwargs
from returnn.tf.layers.core.init_kwargs import common_args_named_by, layer_init_kwargs
from returnn.tf.network import TFNetwork

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}


def _net(config=None, **flags):
    return TFNetwork(config=Config({"extern_data": EXTERN, **(config or {})}), train_flag=flags.get("train", False))


def test_parse_takes_given_values_and_table_defaults():
    args = CommonLayerArgs.from_layer_kwargs({"n_out": 5, "L2": 0.01, "_target_layers": {"layer:x": 1},
                                              "activation": "tanh", "name": "l"})
    assert (args.n_out, args.L2, args.target_layers) == (5, 0.01, {"layer:x": 1})
    assert (args.loss_scale, args.trainable, args.dropout, args.extra_deps) == (1.0, True, 0.0, ())
    assert CommonLayerArgs().n_out is NotSpecified
    assert repr(args) == "CommonLayerArgs(n_out=5, L2=0.01, target_layers={'layer:x': 1})"
    with pytest.raises(Exception):  # frozen
        args.n_out = 3


def test_split_gives_the_rest_and_one_by_one_wins_over_the_value():
    base = CommonLayerArgs.from_layer_kwargs({"n_out": 5, "loss_scale": 0.5})
    args, rest = split_layer_kwargs({"n_out": 7, "with_bias": False, "rec_previous_layer": None}, base=base)
    assert (args.n_out, args.loss_scale) == (7, 0.5)
    assert rest == {"with_bias": False}  # internal kwargs LayerBase ignores are dropped
    assert split_layer_kwargs({}, base=base)[0] is base


def test_builtin_class_gets_the_value_and_its_own_named_common_args():
    d = {"name": "l", "network": None, "sources": [], "n_out": 4, "L2": 0.1, "in_dim": None, "activation": None}
    kwargs = layer_init_kwargs(LinearLayer, d)
    assert set(kwargs) == {"name", "network", "sources", "in_dim", "activation", "common_args"}
    assert (kwargs["common_args"].n_out, kwargs["common_args"].L2) == (4, 0.1)
    assert common_args_named_by(LinearLayer) == {"in_dim"}


def test_network_layer_attributes_read_the_value():
    with tf.Graph().as_default():
        net = _net()
        net.construct_from_dict({"output": {"class": "softmax", "from": "data", "loss": "ce", "L2": 0.1,
                                            "loss_scale": 0.5, "trainable": False, "darc1": 0.2}})
        layer = net.get_layer("output")
        assert layer.common_args.L2 == 0.1 and layer.L2 == 0.1
        assert (layer.target, layer.loss_scale, layer.trainable, layer.darc1) == ("classes", 0.5, False, 0.2)
        assert layer.loss.class_name == "ce" and layer.n_out is NotSpecified
        assert layer.common_args.loss is layer.loss
        assert net.get_trainable_params() == []
        layer.loss_scale = 2.0  # a layer's own value wins; the parsed value stays
        assert (layer.loss_scale, layer.common_args.loss_scale) == (2.0, 0.5)


class _ExplicitBaseInit(LayerBase):
    """Calls ``LayerBase.__init__`` with the arguments one by one and drops the loss (as a config may)."""
    layer_class = "test_common_args_explicit"

    def __init__(self, name, network, output, sources, n_out=NotSpecified, **kwargs):
        kwargs.pop("loss", None)
        LayerBase.__init__(self, name=name, network=network, output=output, sources=sources, n_out=n_out,
                           L2=0.5, **kwargs)
        self.seen_n_out = n_out
        weights = self.add_param(tf.compat.v1.get_variable("W", shape=(sources[0].output.dim, n_out)))
        self.output.placeholder = tf.einsum("btf,fo->bto", sources[0].output.placeholder, weights)


def test_config_layer_class_gets_the_args_one_by_one():
    register_layer_class(_ExplicitBaseInit)
    with tf.Graph().as_default():
        net = _net()
        net.construct_from_dict({"output": {"class": "test_common_args_explicit", "from": "data", "n_out": 4,
                                            "loss": "ce", "target": "classes"}})
        layer = net.get_layer("output")
        assert layer.seen_n_out == 4 and layer.n_out == 4 and layer.L2 == 0.5 and layer.target == "classes"
        assert layer.loss is None and net.losses_dict == {} and net.get_losses_initialized()[0] == {}


def test_unknown_one_by_one_arg_names_the_closest_common_arg():
    with tf.Graph().as_default():
        net = _net()
        out = net.extern_data.data["data"].copy_template()
        with pytest.raises(LayerArgError, match="unknown argument") as exc_info:
            LayerBase(name="x", network=net, output=out, sources=[], loss_scal=1.0)
        assert "loss_scale" in str(exc_info.value)


def test_config_defaults_of_param_noise_come_from_network_options():
    with tf.Graph().as_default():
        net = _net({"param_variational_noise": 0.25}, train=True)
        assert net.options == NetworkOptions(param_variational_noise=0.25)
        net.construct_from_dict({"output": {"class": "linear", "from": "data", "n_out": 2},
                                 "own": {"class": "linear", "from": "data", "n_out": 2, "is_output_layer": True,
                                         "param_variational_noise": 0.0}})
        assert net.get_layer("output").param_variational_noise == 0.25
        assert net.get_layer("own").param_variational_noise == 0.0
    with pytest.raises(ConfigValueError, match="param_dropout"):
        _net({"param_dropout": 1.5})


def test_network_without_config_uses_the_global_one():
    with tf.Graph().as_default(), global_config_ctx(Config({"extern_data": EXTERN, "param_dropout": 0.1})):
        net = TFNetwork(train_flag=False)
        assert net.options.param_dropout == 0.1 and "classes" in net.extern_data.data


class _ScopeNameLayer(LayerBase):
    layer_class = "test_common_args_scope_name"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.var_creation_scope() as scope:
            self.scope_name = scope.name
            weights = self.add_param(tf.compat.v1.get_variable("w", shape=(self.sources[0].output.dim,)))
        self.output.placeholder = self.sources[0].output.placeholder * weights

    @classmethod
    def get_out_data_from_opts(cls, name, sources, **kwargs):
        return sources[0].output.copy_template(name="%s_output" % name)


def test_var_creation_scope_gives_the_layer_variable_scope():
    # observed from the reference: VariableScope 'sub/output' for layer "output" of subnetwork "sub"
    register_layer_class(_ScopeNameLayer)
    with tf.Graph().as_default():
        net = _net()
        net.construct_from_dict({
            "sub": {"class": "subnetwork", "from": "data",
                    "subnetwork": {"output": {"class": "test_common_args_scope_name", "from": "data"}}},
            "output": {"class": "test_common_args_scope_name", "from": "sub"}})
        assert net.get_layer("sub/output").scope_name == "sub/output"
        assert net.get_layer("output").scope_name == "output"
        assert [p.name for p in net.get_trainable_params()] == ["output/w:0", "sub/output/w:0"]
