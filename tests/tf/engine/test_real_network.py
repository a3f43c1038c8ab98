"""End to end with the real TFNetwork and Updater: train 2 epochs, eval reproduces the dev score, forward
writes an HDF that HDFDataset loads with the expected shapes."""

from __future__ import annotations

import os
import re

import returnn.tf.network.tfnetwork  # noqa: F401  (the real network and updater, imported: a broken import fails)
import returnn.tf.updater.updater  # noqa: F401
from tests.tf.engine.test_training import make_config, run_task

NET = {
    "hidden": {"class": "linear", "activation": "tanh", "n_out": 8, "from": "data"},
    "output": {"class": "softmax", "loss": "ce", "from": "hidden"},
}


def test_train_eval_forward_with_real_network(tmp_path, capsys):
    from returnn.datasets.hdf import HDFDataset

    kw = dict(network=NET, optimizer={"class": "adam"}, log_verbosity=3)
    out = run_task(make_config(tmp_path, **kw), capsys=capsys)
    dev_lines = re.findall(r"^dev: score [0-9.e-]+ error [0-9.e-]+$", out, re.M)
    assert len(dev_lines) == 2
    assert "Finished training in epoch 2." in out
    out = run_task(make_config(tmp_path, task="eval", load_epoch=2, **kw), capsys=capsys)
    assert re.findall(r"^dev: score .*$", out, re.M) == [dev_lines[1]]
    hdf = tmp_path / "fwd.hdf"
    run_task(make_config(tmp_path, task="forward", forward_batch_size=1000, output_file=str(hdf),
                         eval={"class": "Task12AXDataset", "num_seqs": 5, "fixed_random_seed": 3}, **kw),
             capsys=capsys)
    ds = HDFDataset(files=[str(hdf)])
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 5
    assert ds.get_data_dim("data") == 2
    ds.load_seqs(0, 1)
    x = ds.get_data(0, "data")
    assert x.ndim == 2 and x.shape[1] == 2
    assert abs(x.sum(axis=1) - 1.0).max() < 1e-5  # softmax rows
    assert os.path.exists(tmp_path / "models" / "model.002.index")
