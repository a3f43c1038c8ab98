"""The engine demos run end to end (shortened by config overrides): train, then eval of a saved epoch
reproduces the training run's dev line; the forward demo writes an HDF that HDFDataset loads."""

from __future__ import annotations

import os
import re

from returnn.config import Config
from tests.tf.engine.test_training import run_task

DEMOS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                     "demos")


def _load(name, **overrides):
    config = Config()
    config.load_file(os.path.join(DEMOS, name))
    config.update(overrides)
    return config


def test_12ax_demo_train_eval_forward(tmp_path, capsys):
    model = str(tmp_path / "model")
    small = dict(model=model, num_epochs=2, train={"class": "Task12AXDataset", "num_seqs": 200, "fixed_random_seed": 1},
                 dev={"class": "Task12AXDataset", "num_seqs": 30, "fixed_random_seed": 2})
    out = run_task(_load("demo-tf-native-lstm.12ax.config", **small), capsys=capsys)
    dev_lines = re.findall(r"^dev: score \S+ error \S+$", out, re.M)
    assert len(dev_lines) == 2 and "Finished training in epoch 2." in out
    assert os.path.exists(model + ".002.index")
    out = run_task(_load("demo-tf-native-lstm.12ax.config", task="eval", load_epoch=2, **small), capsys=capsys)
    assert re.findall(r"^dev: score .*$", out, re.M) == [dev_lines[1]]
    hdf = str(tmp_path / "out.hdf")
    run_task(_load("demo-tf-forward-hdf.config", model=model, output_file=hdf), capsys=capsys)
    from returnn.datasets.hdf import HDFDataset

    ds = HDFDataset(files=[hdf])
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 50
    ds.load_seqs(0, 1)
    assert ds.get_data(0, "data").shape[1] == 2


def test_newbob_demo_writes_learning_rate_file(tmp_path, capsys):
    lr_file = str(tmp_path / "newbob.data")
    out = run_task(_load("demo-tf-newbob.config", model=str(tmp_path / "model"), learning_rate_file=lr_file,
                         num_epochs=2, train={"class": "Task12AXDataset", "num_seqs": 50, "fixed_random_seed": 1}),
                   capsys=capsys)
    assert "Finished training in epoch 2." in out
    text = open(lr_file).read()
    assert text.startswith("{") and "1: EpochData(learningRate=0.01, error={" in text and "'dev_score':" in text
