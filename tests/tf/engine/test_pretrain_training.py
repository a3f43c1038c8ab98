"""Training with per-epoch networks (pretrain, get_network, #config) and the real network.

The expected log lines were written by the reference for the same configs (see returnn/tf/engine/network_change.py).
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ConfigError
from tests.tf.engine.test_training import make_config, run_task


def lin(n, *sources):
    return {"class": "linear", "activation": "tanh", "n_out": n, "from": list(sources)}


CHAIN = {"l1": lin(6, "data"), "l2": lin(6, "l1"), "l3": lin(6, "l2"),
         "output": {"class": "softmax", "loss": "ce", "from": ["l3"]}}


def ckpt(path):
    reader = tf.compat.v1.train.NewCheckpointReader(path)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def small(tmp_path, **kwargs):
    kw = dict(train={"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 1},
              dev={"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 2}, log_verbosity=4,
              optimizer={"class": "adam"})
    kw.update(kwargs)
    return make_config(tmp_path, **kw)


def test_pretrain_from_output_grows_and_copies(tmp_path, capsys):
    model = str(tmp_path / "models" / "model")
    out = run_task(small(tmp_path, network=CHAIN, pretrain="default", num_epochs=5, learning_rate=0.0,
                         learning_rates=[0.1, 0.2, 0.3, 0.4, 0.5]), capsys=capsys)
    assert "pretrain: Pretrain construction algo 'from_output', number of pretrain epochs: 3\n" in out
    # as the reference: the initial learning rate during pretraining and in the epoch after it
    rates = re.findall(r"^start (?:pretrain )?epoch \d with learning rate (\S+) ", out, re.M)
    assert rates == ["0.0", "0.0", "0.0", "0.0", "0.5"]
    assert re.search(r"^pretrain epoch 2, finished", out, re.M) and re.search(r"^train epoch 4, finished", out, re.M)
    assert "pretrain epoch 3 'dev' eval, finished" in out and re.search(r"^pretrain epoch 1 score: ", out, re.M)
    assert ("reinit because network description differs. Diff:\ndict diff:\n  key 'l2' not in self\n"
            "['output'] dict diff:\n['output'] ['from'] list diff:\n['output'] ['from'] [0] self: 'l1' != other: 'l2'\n"
            ) in out
    assert out.count("reinit because") == 2  # epochs 4 and 5 train the network of pretrain epoch 3
    for name in ("model.pretrain.001", "model.pretrain.002", "model.pretrain.003", "model.004"):
        assert os.path.exists(os.path.join(tmp_path, "models", name + ".index"))
    first, second = ckpt(model + ".pretrain.001"), ckpt(model + ".pretrain.002")
    assert sorted(k for k in first if "/" in k and not k.startswith("optimize")) == [
        "l1/W", "l1/b", "output/W", "output/b"]
    for name in ("l1/W", "l1/b", "output/W", "output/b"):  # learning rate 0: the copied values stay
        np.testing.assert_array_equal(first[name], second[name])
    assert second["global_step"] == 2 * first["global_step"] > 0


def test_resume_in_pretrain_gives_the_same_model(tmp_path, capsys):
    net = {"l1": lin(6, "data"), "l2": lin(6, "l1"), "output": {"class": "softmax", "loss": "ce", "from": ["l2"]}}
    base = dict(network=net, pretrain="default", learning_rate=0.01, dev=None)
    run_task(small(tmp_path / "a", num_epochs=3, **base), capsys=capsys)
    run_task(small(tmp_path / "b", num_epochs=1, **base), capsys=capsys)  # stops in the middle of pretraining
    out = run_task(small(tmp_path / "b", num_epochs=3, **base), capsys=capsys)
    assert "start training at epoch 2" in out
    assert out.index("loading weights from %s" % (tmp_path / "b" / "models" / "model.pretrain.001")) < out.index(
        "reinit because network description differs")
    a, b = ckpt(str(tmp_path / "a" / "models" / "model.003")), ckpt(str(tmp_path / "b" / "models" / "model.003"))
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-6, err_msg=name)


def get_network(epoch, **kwargs):
    """Epoch 1: small; 2: grown (subset); 3: shrunk (subset); 4: reset; 5: grown, if possible."""
    dims = {1: (2, 3), 2: (4, 5), 3: (3, 4), 4: (3, 4), 5: (4, 4)}[epoch]
    net = {"a": lin(dims[0], "data"), "b": lin(dims[1], "data"),
           "lstm": {"class": "rec", "unit": "nativelstm2", "n_out": dims[0], "from": ["a", "b"]},
           "output": {"class": "softmax", "loss": "ce", "from": ["lstm", "a"]}}
    net["#copy_param_mode"] = {2: "subset", 3: "subset", 4: "reset", 5: "ifpossible"}.get(epoch)
    return net


def test_copy_param_modes(tmp_path, capsys):
    model = str(tmp_path / "models" / "model")
    out = run_task(small(tmp_path, network=None, get_network=get_network, num_epochs=5, learning_rate=0.0,
                         dev=None, log_verbosity=3), capsys=capsys)
    assert out.count("reinit because network description differs. Diff:") == 4
    # parts as the reference logs them: linear inputs per source, LSTM gates, plain shapes for biases
    assert ("Param <tf.Variable 'lstm/rec/W:0' shape=(9, 16) dtype=float32>: transform old values of shape parts "
            "[[5], [2, 2, 2, 2]] into new shape parts [[9], [4, 4, 4, 4]].") in out
    assert ("Param <tf.Variable 'output/W:0' shape=(8, 2) dtype=float32>: transform old values of shape parts "
            "[[2, 2], [2]] into new shape parts [[4, 4], [2]].") in out
    assert ("Param <tf.Variable 'a/b:0' shape=(4,) dtype=float32>: transform old values of shape (2,) into new "
            "shape (4,).") in out
    assert ("Will not set param <tf.Variable 'a/W:0' shape=(9, 4) dtype=float32> because its shape [9, 4] != "
            "(9, 3).") in out
    e1, e2, e3, e4, e5 = (ckpt("%s.%03d" % (model, ep)) for ep in range(1, 6))
    # subset, growing: each gate's old block at the start of the new gate block
    w_old, w_new = e1["lstm/rec/W"], e2["lstm/rec/W"]
    for gate in range(4):
        np.testing.assert_array_equal(w_new[:5, gate * 4:gate * 4 + 2], w_old[:, gate * 2:gate * 2 + 2])
    np.testing.assert_array_equal(e2["output/W"][[0, 1, 4, 5]], e1["output/W"])  # sources lstm (2 of 4), a (2 of 4)
    np.testing.assert_array_equal(e2["a/b"][:2], e1["a/b"])
    # subset, shrinking: the leading part of each old part
    np.testing.assert_array_equal(e3["output/W"], e2["output/W"][[0, 1, 2, 4, 5, 6]])
    np.testing.assert_array_equal(e3["lstm/rec/b"], e2["lstm/rec/b"][[0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14]])
    # reset: nothing carried over; ifpossible: same shapes carried over, others new
    assert not np.array_equal(e4["b/W"], e3["b/W"]) and not np.array_equal(e4["lstm/rec/W_re"], e3["lstm/rec/W_re"])
    np.testing.assert_array_equal(e5["b/W"], e4["b/W"])
    assert e5["a/W"].shape == (9, 4) and e5["global_step"] == 5 * e1["global_step"]


def test_config_overrides_and_learning_rate(tmp_path, capsys):
    def custom(idx, net_dict):
        if idx == 2:
            return None
        net_dict["#config"] = {"max_seqs": 2 + idx, "learning_rate": 0.001 * (idx + 1)}
        if idx == 0:  # another train dataset for this network: re-created, as the reference
            net_dict["#config"]["train"] = {"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 1}
        return net_dict

    out = run_task(small(tmp_path, network=CHAIN, num_epochs=4, max_seqs=10, use_learning_rate_control_always=True,
                         pretrain={"construction_algo": custom, "repetitions": [1, 1, 1]}), capsys=capsys)
    assert ("Overwrite learning rate for epoch 1: 0.01 -> 0.001\nUpdate config key 'max_seqs' for epoch 1: 10 -> 2\n"
            "Update config key 'train' for epoch 1: ") in out  # keys sorted, as the reference
    assert "Overwrite learning rate for epoch 2: 0.001 -> 0.002\nUpdate config key 'max_seqs' for epoch 2: 10 -> 3\n" \
        in out
    assert "start pretrain epoch 3 with learning rate 0.002 ..." in out  # the last overwrite stays
    assert "reinit because network description differs. Diff:\ndict diff:\n  key '#config' not in other\n" in out
    steps = [int(n) for n in re.findall(r"^(?:pretrain|train) epoch \d, finished after (\d+) steps", out, re.M)]
    assert steps == [2, 4, 1, 1]  # 4 seqs (max_seqs 2), 10 seqs (max_seqs 3), then max_seqs 10 again


@pytest.mark.parametrize("kwargs, match", [
    (dict(pretrain={"construction_algo": lambda idx, net_dict: dict(net_dict, **{"#config": {"max_seq": 3}})
                    if idx < 1 else None}), "the network of epoch 1 overrides 'max_seq', which the config does not"),
    (dict(pretrain={"construction_algo": lambda idx, net_dict: dict(net_dict, **{"#config": {"learning_rate": 1}})
                    if idx < 1 else None}), "config key 'use_learning_rate_control_always': expected True"),
    (dict(pretrain={"construction_algo": lambda idx, net_dict: 1 / 0}),
     r"\(idx=0, the network of pretrain epoch 1\) raised ZeroDivisionError"),
    (dict(network=dict(CHAIN, l1=dict(CHAIN["l1"], dropout=__import__("returnn.pretrain").pretrain.WrapEpochValue(
        lambda epoch: 0.1)))), "values without WrapEpochValue in config 'network'.*got 'l1/dropout'"),
])
def test_bad_per_epoch_networks(tmp_path, kwargs, match):
    config = small(tmp_path, **dict(dict(network=CHAIN), **kwargs))
    with pytest.raises(ConfigError, match=match):
        run_task(config)


def test_wrap_epoch_value_and_get_network_signature(tmp_path, capsys):
    from returnn.pretrain import WrapEpochValue

    net = {"l1": dict(lin(6, "data"), n_out=WrapEpochValue(lambda epoch: 4 + epoch)), "l2": lin(6, "l1"),
           "output": {"class": "softmax", "loss": "ce", "from": ["l2"]}}
    out = run_task(small(tmp_path / "a", network=net, pretrain={"repetitions": [1, 2]}, num_epochs=4, dev=None),
                   capsys=capsys)
    assert "['l1'] ['n_out'] self: 6 != other: 7" in out  # pretrain epochs 2 and 3 train the final network
    assert "Will not set param <tf.Variable 'l1/W:0' shape=(9, 7) dtype=float32> because its shape [9, 7] != " \
           "(9, 6)." in out
    assert out.count("reinit because") == 2  # epoch 4 keeps the network of epoch 3 (n_out 7)
    seen = []

    def only_epoch(epoch):  # the reference calls get_network(epoch=N) only
        seen.append(epoch)
        return dict(CHAIN, **{"#trainable": False})  # as the reference: nothing trained, no optimizer, no step

    out = run_task(small(tmp_path / "b", network={"unused": {}}, get_network=only_epoch, num_epochs=1, dev=None),
                   capsys=capsys)
    assert seen == [1, 1]  # the network of the first epoch, then the one of epoch 1 when it starts
    assert "net trainable params: []" in out and "Create optimizer" not in out
    assert ckpt(str(tmp_path / "b" / "models" / "model.001"))["global_step"] == 0


def test_import_and_eval_with_pretrain(tmp_path, capsys):
    base = dict(network=CHAIN, pretrain="default")
    run_task(small(tmp_path / "a", num_epochs=2, **base), capsys=capsys)
    donor = str(tmp_path / "a" / "models" / "model.pretrain.002")
    out = run_task(small(tmp_path / "b", num_epochs=1, learning_rate=0.0, import_model_train_epoch1=donor, **base),
                   capsys=capsys)
    assert "loading weights from %s" % donor in out
    imported, donor_values = ckpt(str(tmp_path / "b" / "models" / "model.pretrain.001")), ckpt(donor)
    np.testing.assert_array_equal(imported["l1/W"], donor_values["l1/W"])
    assert imported["global_step"] > donor_values["global_step"]  # the global step is imported too
    out = run_task(small(tmp_path / "a", task="eval", load_epoch=1, **base), capsys=capsys)
    assert "pretrain epoch 1 'dev' eval, finished" in out and "layer linear 'l2'" not in out
