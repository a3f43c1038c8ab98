"""The demos with recurrent subnetworks run end to end (tiny: one short epoch, then ++task search), and the
search output file parses with ast.literal_eval."""

from __future__ import annotations

import ast
import os

import pytest

from returnn.config import Config
from tests.tf.engine.test_training import run_task

DEMOS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "demos")


@pytest.mark.parametrize("demo", ["enc-dec.config", "attention-copy.config"])
def test_demo_trains_and_searches(tmp_path, capsys, demo):
    config = Config()
    config.load_file(os.path.join(DEMOS, demo))
    for key in ("train", "dev"):
        config.typed_dict[key] = dict(config.typed_value(key), num_seqs=40)
    config.typed_dict["search_data"] = config.typed_dict["dev"]
    out_file = tmp_path / "search.py"
    config.update({"model": str(tmp_path / "model"), "num_epochs": 1, "log_verbosity": 3,
                   "search_output_file": str(out_file)})
    run_task(config, "train", capsys=capsys)
    assert os.path.exists(str(tmp_path / "model.001.index"))
    out = run_task(config, "search", capsys=capsys)
    assert "Search done." in out
    hyps = ast.literal_eval(out_file.read_text())
    assert len(hyps) == 40 and all(isinstance(h, (str, list)) for h in hyps.values())
