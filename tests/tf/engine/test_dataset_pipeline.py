"""Training with ``dataset_pipeline = True`` (the batches from a tf.data pipeline instead of feeding): the same
batches, so the same scores as the feeding runner, with the real TFNetwork and Updater."""

from __future__ import annotations

import re

from tests.tf.engine.test_training import make_config, run_task

NET = {
    "hidden": {"class": "linear", "activation": "tanh", "n_out": 8, "from": "data"},
    "output": {"class": "softmax", "loss": "ce", "from": "hidden"},
}



def test_dataset_pipeline_trains_as_feeding(tmp_path, capsys):
    kw = dict(network=NET, optimizer={"class": "adam"}, log_verbosity=3, num_epochs=1, random_seed=1,
              train={"class": "Task12AXDataset", "num_seqs": 12, "fixed_random_seed": 1},
              dev={"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 2}, max_seqs=4)
    fed = run_task(make_config(tmp_path / "fed", **kw), capsys=capsys)
    piped = run_task(make_config(tmp_path / "piped", dataset_pipeline=True, **kw), capsys=capsys)
    fed_lines = re.findall(r"^(epoch \d+ score: .*) elapsed|^(dev: score .*)$", fed, re.M)
    piped_lines = re.findall(r"^(epoch \d+ score: .*) elapsed|^(dev: score .*)$", piped, re.M)
    assert len(fed_lines) == 2  # train and dev scores
    assert piped_lines == fed_lines
    assert re.findall(r"train epoch 1, finished after (\d+) steps", piped) == ["3"]  # 12 seqs, max_seqs 4
