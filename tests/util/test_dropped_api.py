"""Tests for returnn.util.dropped_api: the warning text, once per form until reset, and the record of uses."""

import pytest

from returnn.util.dropped_api import (DROPPED_APIS, DroppedApi, accept_dropped_api, dropped_api_uses,
                                      reset_dropped_api_uses)


@pytest.fixture(autouse=True)
def _reset():
    reset_dropped_api_uses()
    yield
    reset_dropped_api_uses()


def test_warning_text_names_old_and_new_form():
    api = DroppedApi(old="f(a=1)", removed="in 2020", meaning="a is b", new="f(b=1)")
    assert api.warning_text() == ("dropped API: f(a=1) (removed from the reference in 2020); accepted here with its "
                                  "old meaning: a is b. Use f(b=1).")


def test_warning_once_then_again_after_reset(capsys):
    accept_dropped_api("dim_without_dimension")
    accept_dropped_api("dim_without_dimension")
    expected = "WARNING: " + DROPPED_APIS["dim_without_dimension"].warning_text() + "\n"
    assert capsys.readouterr().out == expected
    assert dropped_api_uses() == ["dim_without_dimension"]
    reset_dropped_api_uses()
    assert dropped_api_uses() == []
    accept_dropped_api("dim_without_dimension")
    assert capsys.readouterr().out == expected


def test_unknown_key_is_an_internal_error():
    with pytest.raises(KeyError):
        accept_dropped_api("no_such_form")


def _runner():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "real-configs", "run.py")
    spec = importlib.util.spec_from_file_location("real_configs_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_real_config_runner_lists_configs_rejected_for_a_dropped_api():
    run = _runner()
    ok = {"status": "ok", "params": {"w": [2, 3]}}
    ref = {
        "a.config": {"status": "error", "stage": "network",
                     "message": "AttributeError: 'RecStepInfoLayer' object has no attribute 'get_end_flag'"},
        "b.config": dict(ok),  # built by the reference only with the stand-in; our side reports the old form
        "c.config": {"status": "error", "stage": "config", "message": "FileNotFoundError: x"},
        "d.config": dict(ok),
    }
    ours = {"a.config": {**ok, "dropped_apis": []}, "b.config": {**ok, "dropped_apis": ["dim_without_dimension"]},
            "d.config": {**ok, "dropped_apis": []}}
    assert run.dropped_api_cause(ref["a.config"], None).startswith("`RecStepInfoLayer.get_end_flag(")
    assert run.dropped_api_cause(ref["b.config"], ours["b.config"]).startswith("`DimensionTag(kind=..., descr")
    assert run.dropped_api_cause(ref["c.config"], None) is None
    assert run.dropped_api_cause(ref["d.config"], ours["d.config"]) is None
    lines = run.dropped_api_report(sorted(ref), ref, ours)
    assert lines[0].endswith("2 configs; built here: **2 of 2**.")
    rows = [line for line in lines if line.startswith("| `")]
    assert len(rows) == 2 and any("| 1 | 1 (1 with the reference's variables) |" in row for row in rows)
    report = run.make_report(sorted(ref), ref, ours, "ref-x", 1.0)
    assert "builds 2." in report and "**2 of 2 (100.0 %)**" in report
    assert "Rejected by the reference for a dropped API" in report and "1× config: FileNotFoundError: x" in report
