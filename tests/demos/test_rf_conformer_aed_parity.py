"""demos/rf-conformer-aed against the reference's ``tensorflow-net-dict`` backend, on values observed by running the
reference (not run here; ``data/observed_rf_aed_parity.json``): the demo's small model (``RF_AED_SMALL=1``) with
fixed parameter values and the CTC part of its ``train_step`` (``data/rf_aed_parity.config``; the reference's
net-dict backend does not build the decoder's causal self-attention nor the step-dependent SpecAugment, observed),
one epoch with learning rate 0 on three fixed sequences (``rnn.py data/rf_aed_parity.config ++num_epochs 1
++learning_rate 0.0``): the dev score (CTC loss per label) equals the reference's to 1e-5, and every parameter
variable of the reference's checkpoint is in ours under the same name with the same shape.

Observed differences of the checkpoints, pinned here: ours also holds the parameters of modules the step function
does not use (the decoder) and the optimizer's slots; the reference's holds the state variables of the random
generators of its dropout conds (``.../cond/random/random_generator/StateVar``), so the reference loads our checkpoint
only with missing variables ignored, and ours loads the reference's with ``load_ignore_missing_vars`` (checked by
hand: dev score 7.3362891 here with the reference's checkpoint, 7.3362889 in the reference)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from tests.demos._demo_modules import ASR_DIR, REPO_ROOT, load_module

CONFIG = os.path.join(REPO_ROOT, "tests", "demos", "data", "rf_aed_parity.config")
DEMO_CONFIG = os.path.join(REPO_ROOT, "demos", "rf-conformer-aed", "conformer-aed.config")

with open(os.path.join(REPO_ROOT, "tests", "demos", "data", "observed_rf_aed_parity.json")) as _f:
    OBSERVED = json.load(_f)


def write_fixed_data(out_dir: str) -> None:
    """Three sequences (40, 31, 25 frames of 40 features, a fixed function of the indices) with the transcriptions
    "hello", "it's", "abc", as train/dev/test HDF files in the demo's layout (demos/asr-synth/prepare.py)."""
    prep = load_module(os.path.join(ASR_DIR, "prepare.py"), "asr_synth_prepare")
    vocab = [" ", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    lens = np.array([40, 31, 25], np.int32)
    n = int(lens.sum())
    feats = (np.sin(np.arange(n * 40).reshape(n, 40) * 0.113) * np.cos(np.arange(n)[:, None] * 0.071) * 1.5)
    texts = ["hello", "it's", "abc"]
    for split in ("train", "dev", "test"):
        prep.write_hdf(os.path.join(out_dir, f"{split}.hdf"), feats.astype("float32"), lens,
                       [f"{split}/{i:05d}" for i in range(3)], texts, vocab)


def test_rf_conformer_aed_equals_reference_net_dict(tmp_path):
    from returnn.lr_control.file_format import read_learning_rate_file
    write_fixed_data(str(tmp_path))
    out = tmp_path / "out"
    env = dict(os.environ, RF_AED_SMALL="1", ASR_SYNTH_DATA=str(tmp_path), RF_AED_OUT=str(out),
               RF_AED_DEMO_CONFIG=DEMO_CONFIG)
    proc = subprocess.run([sys.executable, "rnn.py", CONFIG, "++num_epochs", "1", "++learning_rate", "0.0",
                           "++log_verbosity", "3"], capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env=env)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    scores = read_learning_rate_file(str(out / "newbob.data"))[1].error
    assert scores["dev_score"] == pytest.approx(OBSERVED["dev_score"], abs=1e-5)
    ours = {name: list(shape) for name, shape in tf.train.list_variables(str(out / "model.001"))}
    ref = {name: shape for name, shape in OBSERVED["variables"]}
    ref_params = {name: shape for name, shape in ref.items() if name.endswith("/param") or name == "global_step"}
    assert len(ref_params) == 43 and {name: ours.get(name) for name in ref_params} == ref_params
    extra = sorted(set(ours) - set(ref))
    assert extra == sorted(n for n in ours if n.startswith(("decoder/", "optimize/")))
    assert len([n for n in extra if n.startswith("decoder/")]) == 24
    assert sorted(set(ref) - set(ours)) == sorted(n for n in ref if n.endswith("/random/random_generator/StateVar"))
