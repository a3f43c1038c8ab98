"""Tests for demos/lm-fortunes/prepare.py: text files, orth symbols, exact unigram baseline."""

import math
import os
import subprocess
import sys
from collections import Counter

import pytest

from tests.demos._demo_modules import LM_DIR, have_fortunes, load_module

SCRIPT = os.path.join(LM_DIR, "prepare.py")


def test_unigram_baseline_exact():
    lm = load_module(SCRIPT, "lm_fortunes_prepare")
    symbols = ["a", "b", "[END]"]
    # train counts: a 3, b 1, [END] 2 -> add-one: a 4/9, b 2/9, [END] 3/9
    ce, ppl = lm.unigram_baseline(["aab", "a"], ["ab"], symbols)
    expected = -(math.log(4 / 9) + math.log(2 / 9) + math.log(3 / 9)) / 3
    assert abs(ce - expected) < 1e-12 and abs(ppl - math.exp(expected)) < 1e-9


@pytest.mark.skipif(not have_fortunes(), reason="fortunes not installed (apt-get install fortunes)")
def test_prepare_files(tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT, "--out-dir", str(tmp_path), "--num-train", "300",
                           "--num-dev", "50"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    symbols = (tmp_path / "orth_symbols.txt").read_text().split("\n")[:-1]
    assert len(symbols) == 75 and symbols[0] == " " and symbols[-1] == "[END]"
    train = (tmp_path / "train.txt").read_text().splitlines()
    dev = (tmp_path / "dev.txt").read_text().splitlines()
    assert len(train) == 300 and len(dev) == 50 and not set(train) & set(dev)
    assert set("".join(train + dev)) <= set(symbols)
    # unigram.txt agrees with an independent computation
    counts = Counter("".join(train))
    counts["[END]"] = len(train)
    total = sum(counts.values()) + len(symbols)
    nll = -sum(math.log((counts[c] + 1) / total) for line in dev for c in list(line) + ["[END]"])
    ce = nll / sum(len(line) + 1 for line in dev)
    assert (tmp_path / "unigram.txt").read_text().splitlines()[0] == f"dev unigram cross entropy (nats/char): {ce:.4f}"
