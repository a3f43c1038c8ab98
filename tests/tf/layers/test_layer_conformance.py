"""Every layer class of the network packages is registered, documented and exercised by a test; layer
templates are inferred before any TF op of the layer exists."""

import glob
import inspect
import os

import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.tf.layers.core.registry import LAYERS, LOSSES
from tf_net_helpers import build_net

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_TEXT = "".join(open(p).read() for p in glob.glob(os.path.join(HERE, "..", "**", "test_*.py"), recursive=True))
# the core layers of the network packages (issue 4); other layer families are tested by their own packages
OWN_LAYERS = ["source", "linear", "softmax", "copy", "activation", "dropout", "combine", "eval", "constant",
              "compare", "reinterpret_data", "reduce", "slice", "split_dims", "merge_dims", "combine_dims",
              "expand_dims", "squeeze", "transpose", "length", "postfix_in_time", "prefix_in_time",
              "time_chunking", "time_unchunking", "window", "cast", "switch", "gather", "pad", "layer_norm",
              "batch_norm", "conv", "pool", "subnetwork", "forward", "hidden"]


def test_issue_layer_list_is_registered():
    assert set(OWN_LAYERS) <= set(LAYERS.names())
    assert {"ce", "ctc", "mse", "l1", "bin_ce", "sigmoid_ce", "sse_sigmoid", "as_is"} <= set(LOSSES.names())


@pytest.mark.parametrize("name", OWN_LAYERS)
def test_layer_is_tested_and_documented(name):
    cls = LAYERS.get(name)
    if name not in ("forward", "hidden", "source"):
        assert f'"class": "{name}"' in TEST_TEXT, f"no test builds layer class {name!r}"
    doc = inspect.getmodule(cls).__doc__ or ""
    assert cls.__doc__ and doc.strip(), f"{name}: class and module need docstrings"


def _count_ops():
    return len(tf.compat.v1.get_default_graph().get_operations())


@pytest.mark.parametrize("layer_dict", [
    {"class": "linear", "n_out": 3}, {"class": "softmax", "n_out": 3}, {"class": "reduce", "mode": "max", "axes": "T"},
    {"class": "slice", "axis": "T", "slice_start": 1}, {"class": "window", "window_size": 3},
    {"class": "split_dims", "axis": "F", "dims": (2, 2)}, {"class": "conv", "filter_size": (3,), "n_out": 2},
    {"class": "pool", "mode": "max", "pool_size": (2,)}, {"class": "expand_dims", "axis": "F"},
    {"class": "pad", "axes": "T", "padding": 1}, {"class": "combine", "kind": "add"},
    {"class": "layer_norm"}, {"class": "merge_dims", "axes": ["T", "F"]}, {"class": "gather", "axis": "F", "position": 0},
])
def test_template_inference_creates_no_tf_ops(session, layer_dict):
    net = build_net({}, {"data": {"dim": 4}})
    src = net.get_layer("data")
    layer_class = LAYERS.get(layer_dict["class"])
    kwargs = {k: v for k, v in layer_dict.items() if k != "class"}
    before = _count_ops()
    out = layer_class.get_out_data_from_opts(name="x", network=net, sources=[src], **kwargs)
    assert _count_ops() == before
    assert out.placeholder is None
