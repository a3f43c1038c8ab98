"""tools/tf_export_saved_model.py and returnn.tf.export: the SavedModel of a small attention model, loaded with
plain ``tf.saved_model.load`` in a fresh process that cannot import returnn, gives what ``task = "forward"`` writes
to its HDF (forward signature) and the n-best lists ``task = "search"`` writes (search signature); a network with a
Python function or a custom op is refused naming the layer."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys

import h5py
import numpy
import pytest

from returnn.config import Config
from returnn.log import log

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOL = os.path.join(REPO_ROOT, "tools", "tf_export_saved_model.py")
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_saved_model.py")

ATTENTION_NET = {
    "embed": {"class": "linear", "activation": None, "with_bias": False, "n_out": 6, "from": "data"},
    "encoder": {"class": "rec", "unit": "nativelstm2", "n_out": 8, "from": "embed"},
    "enc_ctx": {"class": "linear", "activation": None, "n_out": 8, "from": "encoder"},
    "frame_prob": {"class": "softmax", "from": "encoder", "n_out": 4, "is_output_layer": True},  # forward output
    "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": "max_len_from('base:encoder') + 2",
               "unit": {
        "prev_embed": {"class": "linear", "activation": None, "with_bias": False, "n_out": 5, "from": "prev:output"},
        "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 8, "from": ["prev_embed", "prev:context"]},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc_ctx", "s"]},
        "energy_act": {"class": "activation", "activation": "tanh", "from": "energy_in"},
        "energy": {"class": "linear", "activation": None, "with_bias": False, "n_out": 1, "from": "energy_act"},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy"},
        "context": {"class": "generic_attention", "weights": "att_weights", "base": "base:encoder"},
        "prob": {"class": "softmax", "from": ["s", "context"], "target": "classes", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
    }},
    "decision": {"class": "decide", "from": "output", "loss": "edit_distance", "target": "classes"},
}


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("tf_export_saved_model_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(tmp_path, **kwargs) -> Config:
    config = Config()
    config.update(dict({"use_tensorflow": True, "model": str(tmp_path / "model"), "log_verbosity": 3,
                        "batch_size": 10000, "max_seqs": 100, "forward_batch_size": 10000}, **kwargs))
    return config


def _run_task(config: Config, task: str) -> None:
    from returnn.tasks import run_task

    config.set("task", task)
    log.init_by_config(config)
    run_task(config, task)


def _padded_inputs(dataset_opts, keys):
    """:return: {key: batch-major padded array, key + "_seq_lens": lengths}, the tags, in the dataset's order"""
    from returnn.datasets import init_dataset

    dataset = init_dataset(dict(dataset_opts))
    dataset.init_seq_order(epoch=1)
    dataset.load_seqs(0, dataset.num_seqs)
    tags = [dataset.get_tag(i) for i in range(dataset.num_seqs)]
    out = {}
    for key in keys:
        seqs = [dataset.get_data(i, key) for i in range(dataset.num_seqs)]
        lens = numpy.array([len(s) for s in seqs], numpy.int32)
        arr = numpy.zeros((len(seqs), lens.max()) + seqs[0].shape[1:], seqs[0].dtype)
        for i, seq in enumerate(seqs):
            arr[i, :len(seq)] = seq
        out[key], out[key + "_seq_lens"] = arr, lens
    return out, tags


def _run_without_returnn(tmp_path, model_dir, signatures, inputs):
    numpy.savez(tmp_path / "inputs.npz", **inputs)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    proc = subprocess.run([sys.executable, RUNNER, str(model_dir), str(tmp_path / "inputs.npz"), str(tmp_path / "out")]
                          + list(signatures), cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "returnn loaded: False" in proc.stdout
    return {sig: dict(numpy.load(tmp_path / ("out-%s.npz" % sig))) for sig in signatures}, proc.stdout


def test_saved_model_gives_the_forward_and_search_tasks_outputs(tool, tmp_path):
    """One model for both signatures (each TF process start costs seconds): forward of ``frame_prob``, search of
    the attention decoder (config ``search_output_layer = "decision"``: the beam it decides on)."""
    data = {"class": "CopyTaskDataset", "nsymbols": 5, "minlen": 2, "maxlen": 6, "num_seqs": 7,
            "fixed_random_seed": 5}
    extern = {"data": {"dim": 5, "sparse": True}, "classes": {"dim": 5, "sparse": True}}
    setup = dict(extern_data=extern, network=ATTENTION_NET, random_seed=7)
    _run_task(_config(tmp_path, train=data, **setup), "initialize_model")
    config_file = tmp_path / "setup.config"
    config_file.write_text("#!rnn.py\nuse_tensorflow = True\nextern_data = %r\nnetwork = %r\n"
                           "search_output_layer = 'decision'\nforward_output_layer = 'frame_prob'\n"
                           % (extern, ATTENTION_NET))
    tool.main([str(config_file), "--load", str(tmp_path / "model"), "--output_dir", str(tmp_path / "sm"),
               "--search"])
    assert (tmp_path / "sm" / "saved_model.pb").exists() and (tmp_path / "sm" / "variables").is_dir()
    hdf, search_file = tmp_path / "fwd.hdf", tmp_path / "search.py"
    load = str(tmp_path / "model")
    _run_task(_config(tmp_path, eval=data, load=load, output_file=str(hdf), forward_output_layer="frame_prob",
                      **setup), "forward")
    _run_task(_config(tmp_path, search_data=data, load=load, search_output_layer="output", search_do_eval=False,
                      search_output_file=str(search_file), search_output_file_format="py", **setup), "search")
    inputs, tags = _padded_inputs(data, ["data"])
    outputs, stdout = _run_without_returnn(tmp_path, tmp_path / "sm", ["serving_default", "search"], inputs)
    assert "serving_default: inputs ['data', 'data_seq_lens'], outputs ['output', 'output_seq_lens']" in stdout
    assert "search: inputs ['data', 'data_seq_lens'], outputs ['hypotheses', 'hypotheses_seq_lens', 'scores']" in stdout
    # forward: as task=forward's HDF
    forward = outputs["serving_default"]
    with h5py.File(hdf, "r") as f:
        ref, lens = f["inputs"][...], f["seqLengths"][...][:, 0]
        ref_tags = [t.decode() if isinstance(t, bytes) else str(t) for t in f["seqTags"][...]]
    assert ref_tags == tags and forward["output"].shape[2] == 4
    numpy.testing.assert_array_equal(forward["output_seq_lens"], lens)
    offsets = numpy.concatenate([[0], numpy.cumsum(lens)])
    for i in range(len(tags)):
        numpy.testing.assert_allclose(forward["output"][i, :lens[i]], ref[offsets[i]:offsets[i + 1]], atol=1e-5,
                                      rtol=0)
    assert numpy.ptp(ref) > 1e-3  # not a constant output
    # search: all hypotheses of each beam and their scores as task=search's n-best lists
    nbest = ast.literal_eval(search_file.read_text())
    hyps, lens, scores = (outputs["search"][k] for k in ("hypotheses", "hypotheses_seq_lens", "scores"))
    assert hyps.shape[:2] == lens.shape == scores.shape == (len(tags), 3)
    assert list(nbest) == tags
    for b, tag in enumerate(tags):
        assert len(nbest[tag]) == 3
        for k, (score, hyp) in enumerate(nbest[tag]):
            assert hyps[b, k, :lens[b, k]].tolist() == hyp, (tag, k)
            assert abs(scores[b, k] - score) <= 1e-5
    assert len({tuple(h) for item in nbest.values() for _, h in item}) > 3  # not all the same hypothesis


PY_FUNC_NET = {
    "a": {"class": "linear", "n_out": 4, "activation": "tanh", "from": "data"},
    "pyf": {"class": "eval", "from": "a", "eval": "tf.ensure_shape(tf.compat.v1.py_func(lambda x: x * 2, [source(0)], "
                                                  "tf.float32, stateful=False), source(0).shape)"},
    "output": {"class": "copy", "from": "pyf"},
}


def _random_init_config(tmp_path, network):
    config = _config(tmp_path, extern_data={"data": {"dim": 3}}, network=network, allow_random_model_init=True,
                     task="forward", log_verbosity=2)
    log.init_by_config(config)
    return config


def test_python_function_refused_naming_the_layer(tmp_path):
    from returnn.tf.export import NotExportableError, export_saved_model

    with pytest.raises(NotExportableError) as exc:
        export_saved_model(_random_init_config(tmp_path, PY_FUNC_NET), str(tmp_path / "sm"))
    assert exc.value.layer == "pyf" and exc.value.op_name.startswith("pyf/PyFunc")
    assert str(exc.value).startswith("cannot export layer 'pyf' as a SavedModel: op type 'PyFunc")
    assert not (tmp_path / "sm").exists()
    # the part before it exports
    signatures = export_saved_model(_random_init_config(tmp_path, PY_FUNC_NET), str(tmp_path / "sm"),
                                    output_layer="a")
    assert sorted(signatures["serving_default"].inputs) == ["data", "data_seq_lens"]
    assert (tmp_path / "sm" / "saved_model.pb").exists()


def test_python_function_inside_a_tf_function_refused(tmp_path):
    from returnn.tf.export import NotExportableError, export_saved_model

    net = dict(PY_FUNC_NET, pyf={"class": "eval", "from": "a", "eval": (
        "tf.ensure_shape(tf.function(lambda x: tf.numpy_function(lambda v: v * 2, [x], tf.float32))(source(0)), "
        "source(0).shape)")})
    with pytest.raises(NotExportableError, match="op type 'PyFunc' calls a Python function.*inside the function"
                       ) as exc:
        export_saved_model(_random_init_config(tmp_path, net), str(tmp_path / "sm"))
    assert exc.value.layer == "pyf"


def test_custom_op_refused_and_existing_dir(tmp_path, monkeypatch):
    from returnn.errors import ConfigValueError
    from returnn.tf.export import NotExportableError, export_saved_model, graph_check

    net = {"a": {"class": "linear", "n_out": 4, "activation": "tanh", "from": "data"},
           "output": {"class": "copy", "from": "a"}}
    (tmp_path / "sm").mkdir()
    with pytest.raises(ConfigValueError, match="output_dir"):
        export_saved_model(_random_init_config(tmp_path, net), str(tmp_path / "sm"))
    core = graph_check.core_op_types()  # a custom op: an op type TensorFlow does not have (here: made so)
    monkeypatch.setattr(graph_check, "core_op_types", lambda: core - {"MatMul"})
    with pytest.raises(NotExportableError, match="op type 'MatMul' is no TensorFlow op") as exc:
        export_saved_model(_random_init_config(tmp_path, net), str(tmp_path / "sm2"))
    assert exc.value.layer == "a"


def test_writer_saves_variables_and_fills_tables_on_load(tmp_path):
    import tensorflow as tf

    from returnn.tf.export.saved_model import write_saved_model
    from returnn.tf.export.signature import Signature

    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        words = tf.compat.v1.placeholder(tf.string, [None], name="words")
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), default_value=0)
        scale = tf.compat.v1.get_variable("scale", initializer=3)
        session.run(tf.compat.v1.global_variables_initializer())
        session.run(scale.assign(5))  # the value in the session is saved, not the initial one
        write_saved_model(session, {"serving_default": Signature(inputs={"words": words},
                                                                 outputs={"ids": table.lookup(words) * scale})},
                          str(tmp_path / "sm"))
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        meta = tf.compat.v1.saved_model.load(session, ["serve"], str(tmp_path / "sm"))
        sig = meta.signature_def["serving_default"]
        ids = session.run(sig.outputs["ids"].name, {sig.inputs["words"].name: ["b", "x", "a"]})
    assert ids.tolist() == [10, 0, 5]
