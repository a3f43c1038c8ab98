"""Tests for the reference's duration formats."""

from returnn.util.basic import hms, hms_fraction, human_bytes_size


def test_hms():
    assert hms(0) == "0:00:00"
    assert hms(3725.9) == "1:02:05"
    assert hms(90061) == "25:01:01"


def test_hms_fraction():
    assert hms_fraction(1.25) == "0:00:01.2500"
    assert hms_fraction(3661.5, decimals=1) == "1:01:01.5"


def test_human_bytes_size():
    assert human_bytes_size(512) == "512B"
    assert human_bytes_size(1536) == "1.50KB"
    assert human_bytes_size(3 * 1024 ** 3) == "3.00GB"
