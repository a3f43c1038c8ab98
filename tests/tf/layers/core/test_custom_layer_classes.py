"""Layer classes defined in a config (subclasses of ``LayerBase`` / ``_ConcatInputLayer`` with the reference's hooks),
registered with ``register_layer_class`` / ``auto_register_layer_classes``: they build, compute and train (one
epoch through ``rnn.py``). The config below trains with the reference as well (observed: the same 4 trainable
params, ``net params #: 99``)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError, LayerShapeError
from returnn.tf.layers.basic import LayerBase, auto_register_layer_classes, get_layer_class, register_layer_class
from returnn.tf.layers.core.registry import LayerClassRegistrationError
from returnn.tf.network import TFNetwork

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))

CONFIG = '''#!rnn.py
import tensorflow as tf
from TFNetworkLayer import LayerBase, _ConcatInputLayer, register_layer_class, auto_register_layer_classes
from TFUtil import Data

use_tensorflow = True
task = "train"
train = {"class": "Task12AXDataset", "num_seqs": 20}
dev = {"class": "Task12AXDataset", "num_seqs": 5, "fixed_random_seed": 1}
num_inputs = 9
num_outputs = 2
batch_size = 500
max_seqs = 5
num_epochs = 1
learning_rate = 0.1
log_verbosity = 3


class ScaleLayer(_ConcatInputLayer):
    """Multiplies the input by a trainable per-feature scale."""
    layer_class = "test_custom_scale"

    def __init__(self, scale_init=1.0, **kwargs):
        super(ScaleLayer, self).__init__(**kwargs)
        with self.var_creation_scope():
            scale = self.add_param(tf.compat.v1.get_variable(
                "scale", shape=(self.input_data.dim,), initializer=tf.constant_initializer(scale_init)))
        self.output.placeholder = self.input_data.placeholder * scale

    @classmethod
    def get_out_data_from_opts(cls, name, sources, **kwargs):
        return sources[0].output.copy_template(name="%s_output" % name)


class ProjectLayer(LayerBase):
    """A bias-free projection to n_out; "other" names a layer (resolved in transform_config_dict)."""
    layer_class = "test_custom_project"

    def __init__(self, n_out, other=None, **kwargs):
        super().__init__(**kwargs)
        x = self.sources[0].output.copy_as_batch_major()
        w = self.add_param(tf.compat.v1.get_variable("W", shape=(x.dim, n_out)))
        y = tf.einsum("btf,fo->bto", x.placeholder, w)
        if other is not None:
            y = y + 0.0 * tf.reduce_sum(other.output.placeholder)
        self.output.placeholder = y

    @classmethod
    def transform_config_dict(cls, d, network, get_layer):
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if d.get("other"):
            d["other"] = get_layer(d["other"])

    @classmethod
    def get_out_data_from_opts(cls, name, sources, n_out, **kwargs):
        x = sources[0].output.copy_as_batch_major()
        return Data(name="%s_output" % name, shape=(None, n_out), dim=n_out,
                    same_dim_tags_as={"t": x.get_time_dim_tag()})


register_layer_class(ScaleLayer)
auto_register_layer_classes(list(globals().values()))

network = {
    "scaled": {"class": "test_custom_scale", "from": "data", "scale_init": 2.0},
    "proj": {"class": "test_custom_project", "from": "scaled", "n_out": 8, "other": "scaled"},
    "output": {"class": "softmax", "from": "proj", "loss": "ce"},
}
'''


def test_config_layer_classes_build_and_compute(session, tmp_path):
    path = tmp_path / "custom.config"
    path.write_text(CONFIG)
    config = Config()
    config.load_file(str(path))
    net = TFNetwork(config=config, train_flag=False)
    net.construct_from_dict(config.typed_value("network"))
    assert type(net.layers["scaled"]).__name__ == "ScaleLayer" and get_layer_class("test_custom_project")
    assert [(p.name, p.shape.as_list()) for p in net.get_trainable_params()] == [
        ("output/W:0", [8, 2]), ("output/b:0", [2]), ("proj/W:0", [9, 8]), ("scaled/scale:0", [9])]
    assert net.get_num_params() == 99
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    x = np.random.RandomState(1).randn(2, 3, 9).astype("float32")
    proj, w = session.run([net.layers["proj"].output.placeholder, net.layers["proj"].params["W"]],
                          {data.placeholder: x, data.size_placeholder[0]: [3, 2]})
    np.testing.assert_allclose(proj, np.einsum("btf,fo->bto", 2.0 * x, w), rtol=1e-5, atol=1e-5)
    assert net.layers["proj"].output.dims[1] == data.dims[1]  # same_dim_tags_as


def test_config_layer_classes_train_one_epoch_with_rnn_py(tmp_path):
    path = tmp_path / "custom.config"
    path.write_text(CONFIG + f"model = {str(tmp_path / 'model')!r}\n")
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "rnn.py"), str(path)], cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=REPO_ROOT, TF_CPP_MIN_LOG_LEVEL="3"))
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    assert "net params #: 99" in proc.stdout and "epoch 1 score: " in proc.stdout
    variables = dict(tf.train.list_variables(str(tmp_path / "model.001")))
    assert variables["scaled/scale"] == [9] and variables["proj/W"] == [9, 8]
    scale = tf.train.load_variable(str(tmp_path / "model.001"), "scaled/scale")
    assert not np.allclose(scale, 2.0)  # trained


def _layer_class(name, **attrs):
    return type(name, (LayerBase,), {"layer_class": attrs.pop("layer_class", None), **attrs})


def test_register_layer_class_like_reference():
    """Observed: registering the same class again is fine; a class without ``layer_class`` or under a taken name
    is rejected (AssertionError); ``auto_register_layer_classes`` skips values that are no layer classes."""
    cls = _layer_class("A", layer_class="test_custom_a")
    register_layer_class(cls)
    register_layer_class(cls)
    assert get_layer_class("test_custom_a") is cls
    with pytest.raises(LayerClassRegistrationError, match="no layer_class name"):
        register_layer_class(_layer_class("NoName"))
    with pytest.raises(AssertionError, match="'copy': that name is already taken"):
        register_layer_class(_layer_class("MyCopy", layer_class="copy"))
    other = _layer_class("D", layer_class="test_custom_d")
    auto_register_layer_classes([other, 3, "x", _layer_class("NoName2"), get_layer_class("copy")])
    assert get_layer_class("test_custom_d") is other and get_layer_class("copy").__name__ == "CopyLayer"


def _net_with(cls, layer_desc):
    register_layer_class(cls)
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=False)
    net.construct_from_dict({"output": {"class": cls.layer_class, "from": "data", **layer_desc}})
    return net


def test_args_taken_through_kwargs_and_unknown_args(session):
    class PopLayer(LayerBase):
        layer_class = "test_custom_pop"

        def __init__(self, **kwargs):
            self.factor = kwargs.pop("factor")
            super().__init__(**kwargs)
            self.output.placeholder = self.sources[0].output.placeholder * self.factor

        @classmethod
        def get_out_data_from_opts(cls, name, sources, **kwargs):
            return sources[0].output.copy_template(name=f"{name}_output")

    assert _net_with(PopLayer, {"factor": 3.0}).layers["output"].factor == 3.0
    with pytest.raises(LayerArgError, match="unknown argument 'fcator'"):
        _net_with(PopLayer, {"factor": 3.0, "fcator": 1})


def test_errors_of_config_layer_classes_name_the_layer(session):
    class NoOutputLayer(LayerBase):
        layer_class = "test_custom_no_output"

        @classmethod
        def get_out_data_from_opts(cls, name, sources, **kwargs):
            return sources[0].output.copy_template(name=f"{name}_output")

    class WrongShapeLayer(NoOutputLayer):
        layer_class = "test_custom_wrong_shape"

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.output.placeholder = tf.reduce_sum(self.sources[0].output.placeholder, axis=-1)

    with pytest.raises(LayerShapeError, match="layer 'output'.*did not set its output"):
        _net_with(NoOutputLayer, {})
    with pytest.raises(LayerShapeError, match="layer 'output'.*does not match the output template"):
        _net_with(WrongShapeLayer, {})
