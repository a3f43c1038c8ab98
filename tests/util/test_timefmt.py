"""Tests for the reference's duration formats."""

from returnn.util.basic import hms, hms_fraction, human_bytes_size, human_size


def test_hms():
    assert hms(0) == "0:00:00"
    assert hms(3725.9) == "1:02:05"
    assert hms(90061) == "25:01:01"


def test_hms_fraction():
    assert hms_fraction(1.25) == "0:00:01.2500"
    assert hms_fraction(3661.5, decimals=1) == "1:01:01.5"


def test_human_bytes_size():
    # values observed from the reference's human_bytes_size
    assert human_bytes_size(0) == "0B"
    assert human_bytes_size(512) == "512B"
    assert human_bytes_size(819) == "819B"
    assert human_bytes_size(5.5) == "5.5B"
    assert human_bytes_size(820) == "0.8KB"
    assert human_bytes_size(1023) == "1.0KB"
    assert human_bytes_size(1536) == "1.5KB"
    assert human_bytes_size(1024 ** 2 * 3.3) == "3.3MB"
    assert human_bytes_size(1024 ** 2 * 819.2) == "819.2MB"
    assert human_bytes_size(1024 ** 2 * 819.3) == "0.8GB"
    assert human_bytes_size(3 * 1024 ** 3) == "3.0GB"
    assert human_bytes_size(3 * 2 ** 50) == "3072.0TB"


def test_human_size():
    # values observed from the reference's human_size
    assert human_size(800) == "800"
    assert human_size(801) == "0.8K"
    assert human_size(999) == "1.0K"
    assert human_size(1234567) == "1.2M"
    assert human_size(12345678901) == "12.3G"
    assert human_size(10 ** 15) == "1000.0T"
    assert human_size(-5000) == "-5000"
    assert human_size(1000, prec=3) == "1.000K"
    assert human_size(850, frac=0.9) == "850"
