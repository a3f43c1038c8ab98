"""``inference_steps_in_flight``: eval, forward and search passes run several steps at once; the results, their
order and the log lines must be exactly those of one step after another."""

from __future__ import annotations

import re

import pytest

from returnn.errors import ConfigValueError
from tests.tf.engine import standin
from tests.tf.engine.test_search import _config as search_config
from tests.tf.engine.test_training import make_config, run_task

DEV = {"class": "Task12AXDataset", "num_seqs": 40, "fixed_random_seed": 2}


def _dev_lines(out: str) -> list:
    return re.findall(r"^dev: .*$", out, re.M)


def test_eval_identical_with_steps_in_flight(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1, dev=DEV), capsys=capsys)
    outs = {}
    for in_flight in (1, 3):
        out = run_task(make_config(tmp_path, task="eval", load_epoch=1, dev=DEV, batch_size=300, max_seqs=3,
                                   inference_steps_in_flight=in_flight), capsys=capsys)
        steps = re.findall(r"'dev' eval, step (\d+),", out)
        assert [int(s) for s in steps] == list(range(len(steps))) and len(steps) > 5  # in order, several steps
        outs[in_flight] = _dev_lines(out)
    assert outs[1] and outs[1] == outs[3]


def test_forward_callback_order_with_steps_in_flight(tmp_path, monkeypatch, capsys):
    from returnn.forward_iface import ForwardCallbackIface

    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    seen = {}

    for in_flight in (1, 4):
        tags = []

        class Callback(ForwardCallbackIface):
            def process_seq(self, *, seq_tag, outputs):
                tags.append((seq_tag, outputs["output"].raw_tensor.sum()))

        run_task(make_config(tmp_path, task="forward", eval=DEV, forward_batch_size=200, max_seqs=2,
                             forward_callback=Callback, inference_steps_in_flight=in_flight), capsys=capsys)
        seen[in_flight] = tags
    assert len(seen[1]) == DEV["num_seqs"]
    assert seen[1] == seen[4]


def test_search_identical_with_steps_in_flight(tmp_path, capsys):
    run_task(search_config(tmp_path), capsys=capsys)
    results = {}
    for in_flight in (1, 2):
        out_file = tmp_path / f"search{in_flight}.py"
        run_task(search_config(tmp_path, task="search", search_output_file=str(out_file), max_seqs=1,
                               search_output_file_format="py", inference_steps_in_flight=in_flight), capsys=capsys)
        results[in_flight] = out_file.read_text()
    assert results[1].count("\n") == 4 + 2  # 4 sequences, braces
    assert results[1] == results[2]


def test_steps_in_flight_invalid(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, task="eval", load_epoch=1, inference_steps_in_flight=0), capsys=capsys)
    assert "inference_steps_in_flight" in str(exc.value) and ">= 1" in str(exc.value)
