"""tools/get-attention-weights.py on a small attention model the test initialises: the npy dict per batch and the
HDF layout as observed from the reference's tool, the weights against numpy from the checkpoint."""

from __future__ import annotations

import os

import h5py
import numpy as np
import pytest
import tensorflow as tf

CONFIG = """#!rnn.py
use_tensorflow = True
task = "initialize_model"
train = {"class": "TaskNumberBaseConvertDataset", "num_seqs": 6}
dev = {"class": "TaskNumberBaseConvertDataset", "num_seqs": 5, "fixed_random_seed": 42}
extern_data = {"data": {"sparse": True, "dim": 8}, "classes": {"sparse": True, "dim": 2}}
network = {
    "encoder": {"class": "linear", "activation": "tanh", "from": "data", "n_out": 4},
    "enc_ctx": {"class": "linear", "activation": None, "from": "encoder", "n_out": 4},
    "output": {"class": "rec", "from": [], "target": "classes0", "unit": {
        "emb": {"class": "linear", "activation": None, "with_bias": False, "from": "prev:output", "n_out": 4},
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
def att_model(tmp_path_factory):
    from returnn.config import Config
    from returnn.log import log
    from returnn.tasks import run_task

    tmp = tmp_path_factory.mktemp("atttools")
    model = str(tmp / "net")
    path = tmp / "att.config"
    path.write_text(CONFIG % {"model": model})
    config = Config()
    config.load_file(str(path))
    config.set("model", model + ".001")
    log.init_by_config(config)
    run_task(config, "initialize_model")
    return str(path), model + ".001"


def _dev_seqs():
    from returnn.datasets import init_dataset

    ds = init_dataset({"class": "TaskNumberBaseConvertDataset", "num_seqs": 5, "fixed_random_seed": 42})
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 5)
    return [(ds.get_tag(i), ds.get_data(i, "data"), ds.get_data(i, "classes")) for i in range(5)]


def _numpy_att_weights(checkpoint, x, y):
    """[len(y) + 1, len(x)]: softmax over the encoder of the energies, the decoder fed the previous target."""
    r = tf.compat.v1.train.NewCheckpointReader(checkpoint)
    enc = np.tanh(r.get_tensor("encoder/W")[x] + r.get_tensor("encoder/b"))
    ctx = enc @ r.get_tensor("enc_ctx/W") + r.get_tensor("enc_ctx/b")
    prev = np.concatenate([[0], y])  # initial_output 0, then the targets (the EOS 2 comes last)
    rows = []
    for label in prev:
        energy = (np.tanh(ctx + r.get_tensor("output/rec/emb/W")[label]) @ r.get_tensor("output/rec/energy/W"))[:, 0]
        e = np.exp(energy - energy.max())
        rows.append(e / e.sum())
    return np.array(rows)


def test_npy_dump_as_reference(att_model, tmp_path, capsys):
    from returnn.tf.tools.attention_weights import get_attention_weights

    dump = tmp_path / "dump"
    stats = get_attention_weights(att_model[0], data="dev", dump_dir=str(dump), num_seqs=2,
                                  reset_seq_ordering="default", batch_size=60, layers=["att_weights", "energy_sq"])
    out = capsys.readouterr().out
    # as the reference: only the sequences with index <= num_seqs, one file per batch named after the config,
    # the epoch and the batch's first and last sequence index
    files = sorted(os.listdir(dump))
    assert files[0] == "att_ep001_data_0_1.npy" and all(f.startswith("att_ep001_data_") for f in files)
    seqs = _dev_seqs()
    seen = []
    for name in files:
        entries = np.load(str(dump / name), allow_pickle=True).item()
        first = int(name.split("_")[3])
        assert sorted(entries) == list(range(len(entries)))
        for i, entry in entries.items():
            seq_idx = first + i
            seen.append(seq_idx)
            tag, x, y = seqs[seq_idx]
            assert list(entry) == ["tag", "data", "classes", "output", "output_len", "encoder_len", "rec_att_weights",
                                   "rec_energy_sq"]
            assert entry["tag"] == tag
            np.testing.assert_array_equal(entry["data"], x)
            np.testing.assert_array_equal(entry["classes"], y)
            assert entry["output_len"] == len(y) + 1 and entry["encoder_len"] == len(x)
            assert entry["output_len"].dtype == np.int32
            # the targets, then EOS, padded to the batch with EOS (as the reference's dump)
            np.testing.assert_array_equal(entry["output"], list(y) + [2] * (len(entry["output"]) - len(y)))
            weights = entry["rec_att_weights"]
            assert weights.shape == (len(y) + 1, len(x)) and weights.dtype == np.float32
            np.testing.assert_allclose(weights, _numpy_att_weights(att_model[1], x, y), rtol=1e-5, atol=1e-6)
    assert sorted(seen) == [0, 1, 2]
    assert "Layer 'att_weights' Stats:" in out and "Layer 'energy_sq' Stats:" in out
    assert stats["att_weights"].num_seqs == 3


def test_hdf_output(att_model, tmp_path, capsys):
    from returnn.tf.tools.attention_weights import get_attention_weights

    out_file = str(tmp_path / "att.hdf")
    get_attention_weights(att_model[0], data="dev", output_format="hdf", output_file=out_file,
                          reset_seq_ordering="default")
    seqs = _dev_seqs()
    with h5py.File(out_file, "r") as f:
        # the layout the reference's tool writes (observed): weights flattened (dim 1), extra stream "sizes"
        assert dict(f["targets/size"].attrs)["sizes"].tolist() == [1, 1]
        assert f.attrs["numSeqs"] == 5 and f.attrs["inputPattSize"] == 1
        lens = f["seqLengths"][()]
        sizes = f["targets/data/sizes"][()].reshape(-1, 2)
        tags = [t.decode() if isinstance(t, bytes) else t for t in f["seqTags"][()]]
        inputs = f["inputs"][()]
    offset = 0
    for k, tag in enumerate(tags):
        _, x, y = next(s for s in seqs if s[0] == tag)
        assert sizes[k].tolist() == [len(y) + 1, len(x)] and lens[k].tolist() == [(len(y) + 1) * len(x), 2]
        weights = inputs[offset:offset + lens[k][0]].reshape(len(y) + 1, len(x))
        np.testing.assert_allclose(weights, _numpy_att_weights(att_model[1], x, y), rtol=1e-5, atol=1e-6)
        offset += lens[k][0]


def test_errors(att_model, tmp_path):
    from returnn.errors import ConfigValueError
    from returnn.tf.tools.attention_weights import get_attention_weights

    with pytest.raises(ConfigValueError, match="--do_search"):
        get_attention_weights(att_model[0], dump_dir=str(tmp_path), do_search=True)
    with pytest.raises(ConfigValueError, match="--dump_dir"):
        get_attention_weights(att_model[0])
    with pytest.raises(ConfigValueError, match="(?s)att_weight.*did you mean.*att_weights"):
        get_attention_weights(att_model[0], dump_dir=str(tmp_path), layers=["att_weight"], data="dev",
                              reset_seq_ordering="default")


def test_set_all_dropout():
    from returnn.tf.tools.attention_weights import set_all_dropout

    net = {"a": {"class": "linear", "dropout": 0.3}, "b": {"class": "copy"},
           "r": {"class": "rec", "unit": {"c": {"class": "linear", "dropout": 0.1}}}}
    out = set_all_dropout(net, 0.0)
    assert out["a"]["dropout"] == 0.0 and "dropout" not in out["b"] and out["r"]["unit"]["c"]["dropout"] == 0.0
    assert net["a"]["dropout"] == 0.3  # the original is left as it was
