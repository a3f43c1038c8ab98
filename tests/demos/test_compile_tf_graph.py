"""Tests for tools/compile_tf_graph.py: the written graph holds the network's variables (with the reference's
names), a saver to load a training checkpoint, the train-flag placeholder; params list; clear errors."""

import importlib.util
import os
import subprocess
import sys

import numpy
import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "compile_tf_graph.py")

CONFIG = """#!rnn.py
use_tensorflow = True
extern_data = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
network = {
    "hidden": {"class": "linear", "activation": "tanh", "n_out": 5, "from": "data"},
    "drop": {"class": "dropout", "dropout": 0.1, "from": "hidden"},
    "output": {"class": "softmax", "loss": "ce", "from": "drop", "target": "classes"},
}
"""


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("compile_tf_graph_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_meta_graph_with_params_and_saver(tool, tmp_path):
    import tensorflow as tf

    config = tmp_path / "tiny.config"
    config.write_text(CONFIG)
    out = tmp_path / "graph.meta"
    tool.main([TOOL, str(config), "--train", "-1", "--eval", "1", "--output_file", str(out),
               "--output_file_model_params_list", str(tmp_path / "params.txt"),
               "--output_file_state_vars_list", str(tmp_path / "state.txt")])
    assert (tmp_path / "params.txt").read_text() == "hidden/W\nhidden/b\noutput/W\noutput/b\n"
    assert (tmp_path / "state.txt").read_text() == ""
    # load the graph, set the params through its saver from a checkpoint, run the output
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        saver = tf.compat.v1.train.import_meta_graph(str(out))
        names = {op.name for op in graph.get_operations()}
        assert {"hidden/W", "hidden/b", "output/W", "output/b", "train_flag"} <= names
        session.run(graph.get_operation_by_name("init_all_vars"))
        variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
        w = numpy.arange(15, dtype="float32").reshape(3, 5) / 10.0
        variables["hidden/W"].load(w, session)
        ckpt = saver.save(session, str(tmp_path / "model.001"))
        variables["hidden/W"].load(numpy.zeros((3, 5), "float32"), session)
        saver.restore(session, ckpt)
        numpy.testing.assert_array_equal(session.run(variables["hidden/W"]), w)


def test_pbtxt_and_pb(tool, tmp_path):
    from google.protobuf import text_format
    import tensorflow as tf

    config = tmp_path / "tiny.config"
    config.write_text(CONFIG)
    tool.main([TOOL, str(config), "--output_file", str(tmp_path / "g.pbtxt")])
    graph_def = text_format.Parse((tmp_path / "g.pbtxt").read_text(), tf.compat.v1.GraphDef())
    names = {node.name for node in graph_def.node}
    assert {"hidden/W", "hidden/b", "output/W", "output/b", "save/restore_all"} <= names
    assert "train_flag" not in names  # --train 0: a fixed mode, no placeholder
    tool.main([TOOL, str(config), "--output_file", str(tmp_path / "g.pb")])
    graph_def = tf.compat.v1.GraphDef.FromString((tmp_path / "g.pb").read_bytes())
    assert "output/W" in {node.name for node in graph_def.node}


def test_errors(tool, tmp_path):
    from returnn.errors import ConfigValueError

    config = tmp_path / "tiny.config"
    config.write_text(CONFIG)
    with pytest.raises(ConfigValueError, match="--output_file"):
        tool.main([TOOL, str(config), "--output_file", str(tmp_path / "g.txt")])
    with pytest.raises(ConfigValueError, match="together with --rec_step_by_step"):
        tool.main([TOOL, str(config), "--rec_step_by_step_output_file", str(tmp_path / "info.json")])
    no_data = tmp_path / "no_data.config"
    no_data.write_text(CONFIG.replace('extern_data = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}', ""))
    proc = subprocess.run([sys.executable, TOOL, str(no_data), "--output_file", str(tmp_path / "g.meta")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "\nerror: config key 'extern_data'" in proc.stderr
    assert not (tmp_path / "g.meta").exists()
