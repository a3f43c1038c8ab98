"""demos/rf-conformer-aed against the reference's ``tensorflow-net-dict`` backend, on values observed by running the
reference (not run here; ``data/observed_rf_aed_parity.json``): the demo's small model (``RF_AED_SMALL=1``) with
fixed parameter values and the demo's whole ``train_step`` (CTC on the encoder, the decoder's cross entropy and its
label error; ``data/rf_aed_parity.config``) on three fixed sequences in one batch: on the same parameters the dev
losses equal the reference's to 1e-5, and each side loads the other's checkpoint without
``load_ignore_missing_vars`` (both hold the same variables: each parameter and the state of each random op's
generator, ``.../cond/random/random_generator/StateVar``; ours also the optimizer's slots)."""

import json
import os
import re

import pytest
import tensorflow as tf

from returnn.config import Config
from tests.demos._demo_modules import ASR_DIR, REPO_ROOT, load_module
from tests.tf.engine.test_training import run_task

CONFIG = os.path.join(REPO_ROOT, "tests", "demos", "data", "rf_aed_parity.config")
DEMO_CONFIG = os.path.join(REPO_ROOT, "demos", "rf-conformer-aed", "conformer-aed.config")
REF_CHECKPOINT = os.path.join(REPO_ROOT, "tests", "demos", "data", "ref_rf_aed_small_model.001")

with open(os.path.join(REPO_ROOT, "tests", "demos", "data", "observed_rf_aed_parity.json")) as _f:
    OBSERVED = json.load(_f)


def write_fixed_data(out_dir: str) -> None:
    """Three sequences (40, 31, 25 frames of 40 features, a fixed function of the indices) with the transcriptions
    "hello", "howdy", "abcde", as train/dev/test HDF files in the demo's layout (demos/asr-synth/prepare.py)."""
    import numpy as np
    prep = load_module(os.path.join(ASR_DIR, "prepare.py"), "asr_synth_prepare")
    vocab = [" ", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    lens = np.array([40, 31, 25], np.int32)
    n = int(lens.sum())
    feats = (np.sin(np.arange(n * 40).reshape(n, 40) * 0.113) * np.cos(np.arange(n)[:, None] * 0.071) * 1.5)
    # transcriptions of equal length: where a dynamic axis is padded (the EOS after the targets) differs between the
    # reference's net-dict backend at its default behavior_version (at the padded end; observed: with "hello",
    # "it's", "abc" its CE was 3.36967 against 3.36725 here, equal with equal lengths) and ours (each sequence's end)
    texts = ["hello", "howdy", "abcde"]
    for split in ("train", "dev", "test"):
        prep.write_hdf(os.path.join(out_dir, f"{split}.hdf"), feats.astype("float32"), lens,
                       [f"{split}/{i:05d}" for i in range(3)], texts, vocab)


def _run(tmp_path, monkeypatch, capsys, out_name: str, offset: int, **overrides) -> str:
    """Runs the parity config in this process (``RF_AED_PARITY_PVAL_OFFSET=offset``); :return: its output"""
    monkeypatch.setenv("RF_AED_SMALL", "1")
    monkeypatch.setenv("ASR_SYNTH_DATA", str(tmp_path))
    monkeypatch.setenv("RF_AED_OUT", str(tmp_path / out_name))
    monkeypatch.setenv("RF_AED_DEMO_CONFIG", DEMO_CONFIG)
    monkeypatch.setenv("RF_AED_PARITY_PVAL_OFFSET", str(offset))
    config = Config()
    config.load_file(CONFIG)
    config.update(dict(num_epochs=1, learning_rate=0.0, log_verbosity=4, **overrides))
    return run_task(config, capsys=capsys)


def _dev_scores(out: str) -> dict:
    """:return: the last ``dev:`` line's values (``dev: score ce X ctc Y error Z eval: ...`` → ``score_ce``,
    ``score_ctc``, ``error``)"""
    tokens = re.findall(r"^dev: (.*)$", out, re.M)[-1].split(" eval:")[0].split()
    values, kind, i = {}, "", 0
    while i < len(tokens):
        if tokens[i] in ("score", "error"):
            kind, i = tokens[i], i + 1
        elif re.fullmatch(r"[-+0-9.e]+", tokens[i]):
            values[kind], i = float(tokens[i]), i + 1
        else:
            values[f"{kind}_{tokens[i]}"], i = float(tokens[i + 1]), i + 2
    return values


def test_reference_checkpoint_gives_the_reference_losses(tmp_path, monkeypatch, capsys):
    """Ours loads the reference's checkpoint of the whole model (``ref_rf_aed_small_model.001``: its parameters of
    offset 3 and its random generator states) without ``load_ignore_missing_vars``, and its dev losses (CTC, CE,
    label error) on the fixed batch equal the reference's own of that checkpoint to 1e-5."""
    write_fixed_data(str(tmp_path))
    out = _run(tmp_path, monkeypatch, capsys, "eval", 1, task="eval", load=REF_CHECKPOINT, eval=None)
    observed = OBSERVED["reference_offset3"]["dev"]
    assert _dev_scores(out) == pytest.approx(observed, abs=1e-5)
    assert "random generator state" not in out  # the reference's checkpoint has every state ours has


def test_our_checkpoint_has_the_reference_variables(tmp_path, monkeypatch, capsys):
    """Ours (offset 2) writes every variable the reference's checkpoint of the same model has, under the same names
    with the same shapes (the parameters and one int64 [3] random generator state per random op: each dropout, the
    SpecAugment masks), plus the optimizer's slots; the reference loaded this checkpoint without
    ``load_ignore_missing_vars`` and gave the dev losses that ours gives (observed)."""
    write_fixed_data(str(tmp_path))
    out = _run(tmp_path, monkeypatch, capsys, "out", 2, eval=None)  # dev only (test time)
    assert _dev_scores(out) == pytest.approx(OBSERVED["reference_eval_of_ours_offset2"]["dev"], abs=1e-5)
    assert _dev_scores(out) != pytest.approx(OBSERVED["reference_offset3"]["dev"], abs=1e-3)  # other values
    ours = {name: list(shape) for name, shape in tf.train.list_variables(str(tmp_path / "out" / "model.001"))}
    ref = {name: shape for name, shape in OBSERVED["reference_offset3"]["variables"]}
    assert {name: ours.get(name) for name in ref} == ref
    assert sorted(set(ours) - set(ref)) == sorted(n for n in ours if n.startswith("optimize/"))
    states = [n for n in ref if n.endswith("/random_generator/StateVar")]
    assert len(states) == 21 and "decoder/layers/0/self_att/cond/random/random_generator/StateVar" in states
