"""tools/dump-dataset-raw-strings.py (returnn/datasets/raw_strings.py): the expected lines and file were
printed / written by the reference's tool on the same config (its start-up lines left out)."""

import os
import re
import subprocess
import sys

import numpy
import pytest

from returnn.datasets.raw_strings import collect_raw_strings, raw_strings_py_text
from returnn.errors import DataFileError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_CONFIG = '''#!rnn.py
import numpy
def _seq(text, n):
    return {"data": numpy.zeros((n, 3), "float32"), "orth": numpy.frombuffer(text.encode("utf8"), dtype="uint8")}
eval = {"class": "StaticDataset", "data": [_seq("hello world", 7), _seq("foo [laughter] bar", 12),
        _seq("it's \\"äpfel\\"", 30), _seq("x", 2)], "output_dim": {"data": (3, 2), "orth": (256, 1)}}
'''


def _run(tmp_path, *args):
    cfg = tmp_path / "x.config"
    cfg.write_text(_CONFIG, encoding="utf8")
    out_file = str(tmp_path / "refs.py")
    out = subprocess.run([sys.executable, "tools/dump-dataset-raw-strings.py", "--config", str(cfg), "--key", "orth",
                          "--out", out_file, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == [f"Using config file {str(cfg)!r}.", "Returnn dump-dataset-raw-strings starting up."]
    assert re.fullmatch(r"Iterating over <StaticDataset '\w+' epoch=1>\.", lines[2])
    assert lines[-2:] == [f"Done. Wrote to {out_file!r}.", "Quitting"]
    with open(out_file, encoding="utf8") as f:
        return lines[3:-2], f.read()


def test_dump_raw_strings_all(tmp_path):
    lines, text = _run(tmp_path, "--verbosity", "5")
    assert lines == [
        "0/4 seq tag 'seq-0', ref len 11 chars",
        "1/4 seq tag 'seq-1', ref len 18 chars",
        "2/4 seq tag 'seq-2', ref len 12 chars",
        "3/4 seq tag 'seq-3', ref len 1 chars",
        "Done. Num seqs 4. Total time 0:00:00.",
        "More seqs which we did not dumped: False.",
        "Seq-length 'orth' Stats:",
        "  4 seqs",
        "  Mean: 10.5",
        "  Std dev: 6.103277807866851",
        "  Min/max: 1 / 18",
    ]
    assert text == "{\n'seq-0': 'hello world',\n'seq-1': 'foo [laughter] bar',\n'seq-2': 'it\\'s \"äpfel\"',\n'seq-3': 'x',\n}\n"


def test_dump_raw_strings_range(tmp_path):
    lines, text = _run(tmp_path, "--startseq", "1", "--endseq", "2")
    assert lines == [
        "Done. Num seqs 3. Total time 0:00:00.",
        "More seqs which we did not dumped: True.",
        "Seq-length 'orth' Stats:",
        "  2 seqs",
        "  Mean: 15.0",
        "  Std dev: 3.0",
        "  Min/max: 12 / 18",
    ]
    assert text == "{\n'seq-1': 'foo [laughter] bar',\n'seq-2': 'it\\'s \"äpfel\"',\n}\n"


def test_raw_strings_not_text(capsys):
    from returnn.datasets.generating import StaticDataset
    ds = StaticDataset([{"data": numpy.zeros((2, 1), "float32"), "classes": numpy.array([1, 2], "int32")}],
                       output_dim={"data": (1, 2), "classes": (3, 1)})
    with pytest.raises(DataFileError, match=r"data key 'classes' of seq 'seq-0': expected text \(a string"):
        collect_raw_strings(ds, "classes", stream=sys.stdout)
    assert raw_strings_py_text({}) == "{\n}\n"


def test_dump_raw_strings_none(tmp_path):
    lines, text = _run(tmp_path, "--startseq", "7")
    assert lines == ["Done. Num seqs 7. Total time 0:00:00.", "More seqs which we did not dumped: False.",
                     "Seq-length 'orth' Stats:", "  0 seqs", "  (No data)"]
    assert text == "{\n}\n"
