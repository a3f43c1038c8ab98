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
