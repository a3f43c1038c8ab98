"""The search task with the real network: a tiny decoder (rec unit with choice + decide) on the copy task."""

from __future__ import annotations

import re

from tests.tf.engine.test_training import run_task
from returnn.config import Config
import returnn.tf.layers.search.choice  # noqa: F401  (the layers this test builds)

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


def test_search_log_names_the_output_and_its_beam(tmp_path, capsys):
    """As the reference: 'Given output <layer> is after decision (no beam).' for a decided output; for the rec
    layer's beam output, 'has beam ...' and one 'outputs' line per sequence with all beam_size hypotheses, the
    first one being the decided hypothesis."""
    run_task(_config(tmp_path), capsys=capsys)
    out = run_task(_config(tmp_path, task="search"), capsys=capsys)
    assert re.search(r"^Given output <DecideLayer 'decision' out_type=Tensor\{.*\}> is after decision \(no beam\)\.$",
                     out, re.M)
    decided = re.findall(r"^seq_idx: (\d+), seq_tag: '[^']+', output 'decision': (array\(\[[0-9, ]*\].*)$", out, re.M)
    out = run_task(_config(tmp_path, task="search", search_output_layer="output"), capsys=capsys)
    assert re.search(r"^Given output <RecLayer 'output' .*> has beam "
                     r"SearchBeam\(name='output/output', beam_size=3\)\.$", out, re.M)
    nbest = re.findall(r"^seq_idx: (\d+), seq_tag: '[^']+', outputs 'output': \[(.*)\]$", out, re.M)
    assert [i for i, _ in nbest] == [i for i, _ in decided] == ["0", "1", "2", "3"]
    for (_, hyps), (_, best) in zip(nbest, decided):
        assert hyps.count("array(") == 3 and hyps.startswith(best)
