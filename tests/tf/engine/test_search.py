"""The search task with the real network: a tiny decoder (rec unit with choice + decide) on the copy task."""

from __future__ import annotations

import re

import pytest

from tests.tf.engine.test_training import run_task
from returnn.config import Config

pytest.importorskip("returnn.tf.layers.search.choice")

NET = {
    "output": {
        "class": "rec", "from": [], "target": "classes", "size_target": "classes",
        "unit": {
            "prev_embed": {"class": "linear", "activation": None, "with_bias": False, "n_out": 8,
                           "from": "prev:output"},
            "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 8, "from": ["prev_embed"]},
            "output_prob": {"class": "softmax", "from": "s", "target": "classes", "loss": "ce"},
            "output": {"class": "choice", "from": "output_prob", "target": "classes", "beam_size": 3,
                       "initial_output": 0},
        },
    },
    "decision": {"class": "decide", "from": "output", "loss": "edit_distance", "target": "classes"},
}


def _config(tmp_path, **kw):
    cfg = {
        "task": "train", "use_tensorflow": True,
        "train": {"class": "CopyTaskDataset", "nsymbols": 6, "minlen": 3, "maxlen": 6, "num_seqs": 20},
        "search_data": {"class": "CopyTaskDataset", "nsymbols": 6, "minlen": 3, "maxlen": 6, "num_seqs": 4,
                        "fixed_random_seed": 7},
        "extern_data": {"data": {"dim": 6, "sparse": True}, "classes": {"dim": 6, "sparse": True}},
        "batch_size": 500, "max_seqs": 10, "network": NET, "search_output_layer": "decision",
        "optimizer": {"class": "adam"}, "learning_rate": 0.01, "num_epochs": 1,
        "model": str(tmp_path / "model"), "log_verbosity": 4,
    }
    cfg.update(kw)
    config = Config()
    config.update(cfg)
    return config


def test_search_task_writes_hypotheses(tmp_path, capsys):
    run_task(_config(tmp_path), capsys=capsys)
    out_file = tmp_path / "search.py"
    out = run_task(_config(tmp_path, task="search", search_output_file=str(out_file), search_output_file_format="py"),
                   capsys=capsys)
    lines = re.findall(r"^seq_idx: (\d+), seq_tag: '([^']+)', output 'decision': array\(\[([0-9, ]*)\]", out, re.M)
    assert [int(i) for i, _, _ in lines] == [0, 1, 2, 3]
    assert re.search(r"^Search done\. Num steps \d+, Final: score None error [0-9.]+$", out, re.M)
    hyps = eval(open(out_file).read())
    assert set(hyps) == {tag for _, tag, _ in lines}
    for _, tag, labels in lines:
        assert hyps[tag] == [int(x) for x in labels.replace(" ", "").split(",") if x]
