"""tools/debug-dump-search-scores.py on a small attention model (parameters from a short training run, EOS bias
raised so that hypotheses end at different steps): the HDF equals the one the reference's tool wrote for the same
checkpoint and dataset (observed, stored in data/search_scores_observed.npz)."""

from __future__ import annotations

import os
import subprocess
import sys

import h5py
import numpy as np
import pytest
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OBSERVED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "search_scores_observed.npz")

CONFIG = """#!rnn.py
use_tensorflow = True
task = "train"
train = {"class": "TaskNumberBaseConvertDataset", "num_seqs": 200}
dev = {"class": "TaskNumberBaseConvertDataset", "num_seqs": 5, "fixed_random_seed": 42}
extern_data = {"data": {"sparse": True, "dim": 8}, "classes": {"sparse": True, "dim": 2}}
network = {
    "encoder": {"class": "linear", "activation": "tanh", "from": "data", "n_out": 8},
    "enc_ctx": {"class": "linear", "activation": None, "from": "encoder", "n_out": 8},
    "output": {"class": "rec", "from": [], "target": "classes0", "max_seq_len": "max_len_from('base:encoder') * 3",
               "unit": {
        "emb": {"class": "linear", "activation": None, "with_bias": False, "from": "prev:output", "n_out": 8},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc_ctx", "emb"]},
        "energy_tanh": {"class": "activation", "activation": "tanh", "from": "energy_in"},
        "energy": {"class": "linear", "activation": None, "with_bias": False, "from": "energy_tanh", "n_out": 1},
        "energy_sq": {"class": "squeeze", "axis": "f", "from": "energy"},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy_sq"},
        "att": {"class": "generic_attention", "weights": "att_weights", "base": "base:encoder"},
        "prob": {"class": "softmax", "from": "att", "target": "classes0", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes0", "beam_size": 2, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 2},
    }},
    "target_with_eos_": {"class": "reinterpret_data", "from": "data:classes", "increase_sparse_dim": 1},
    "target_with_eos": {"class": "postfix_in_time", "postfix": 2, "from": "target_with_eos_",
                        "register_as_extern_data": "classes0"},
}
batch_size = 60
max_seqs = 10
model = %(model)r
log_verbosity = 3
"""


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """The config and its checkpoint ``net.001`` with the observed parameters."""
    tmp = tmp_path_factory.mktemp("searchscores")
    observed = np.load(OBSERVED)
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf.compat.v1.Variable(observed[key], name=key[len("param:"):])
                     for key in observed.files if key.startswith("param:")]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            saver.save(session, str(tmp / "net.001"), write_meta_graph=False)
    path = tmp / "search.config"
    path.write_text(CONFIG % {"model": str(tmp / "net")})
    return str(path)


def _check_as_observed(filename: str, prefix: str) -> None:
    observed = np.load(OBSERVED)
    with h5py.File(filename, "r") as f:
        assert f.attrs["numSeqs"] == 2 and f.attrs["inputPattSize"] == 3 and f.attrs["numLabels"] == 3
        np.testing.assert_array_equal(f["inputs"][()], observed[prefix + "inputs"])
        np.testing.assert_array_equal(f["seqLengths"][()], observed[prefix + "seqLengths"])
        tags = [t.decode() if isinstance(t, bytes) else t for t in f["seqTags"][()]]
        assert tags == observed[prefix + "seqTags"].tolist() == ["seq-0<->seq-1", "seq-2<->seq-3<->seq-4"]
        keys = sorted(k[len(prefix + "data:"):] for k in observed.files if k.startswith(prefix + "data:"))
        assert sorted(f["targets/data"]) == keys
        for key in keys:
            value, expected = f["targets/data"][key][()], observed[prefix + "data:" + key]
            if key == "seq_tags":
                assert h5py.check_string_dtype(f["targets/data"][key].dtype) is not None  # vlen, as the reference
                value = np.array([t.decode() if isinstance(t, bytes) else t for t in value])
                np.testing.assert_array_equal(value, expected)
            elif expected.dtype.kind == "f":
                assert value.shape == expected.shape
                np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5, err_msg=key)
            else:
                np.testing.assert_array_equal(value, expected, err_msg=key)
                assert value.dtype == expected.dtype, key
            np.testing.assert_array_equal(f["targets/size"].attrs[key], observed[prefix + "size:" + key])


def test_hdf_as_reference(model, tmp_path):
    from returnn.tf.tools.search_scores import dump_search_scores

    out = str(tmp_path / "scores.hdf")
    assert dump_search_scores(model, output_file=out, dataset="config:dev") == 2
    _check_as_observed(out, "ref:")
    observed = np.load(OBSERVED)
    # the end label's frame counts (include_eos): seq-4 decided [1, 2]; its second hypothesis [1, 0, 1, 2]
    assert observed["ref:data:seq_sizes"].ravel().tolist() == [24, 24, 21, 21, 2]
    assert observed["ref:data:output__output_value_raw_seq_lens"].ravel()[-2:].tolist() == [2, 4]
    # after backtracking, every hypothesis has the decided length (as the reference)
    assert observed["ref:data:output__output_value_final_seq_lens"].ravel()[-2:].tolist() == [2, 2]
    with pytest.raises(Exception, match="--output_file"):
        dump_search_scores(model, output_file=out, dataset="config:dev")


def test_att_weights_via_command_line(model, tmp_path):
    out = str(tmp_path / "att.hdf")
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "debug-dump-search-scores.py"), model,
                           "--dataset", "config:dev", "--output_file", out, "--att_weights", "--epoch", "1"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _check_as_observed(out, "refatt:")


def test_errors():
    from returnn.errors import ConfigValueError
    from returnn.tf.tools.search_scores import add_search_dump_layers

    with pytest.raises(ConfigValueError, match="--rec_layer_name"):
        add_search_dump_layers({"output": {"class": "linear"}}, rec_layer="output")
    with pytest.raises(ConfigValueError, match="choice layer"):
        add_search_dump_layers({"output": {"class": "rec", "unit": {"output": {"class": "copy"}}}},
                               rec_layer="output")
