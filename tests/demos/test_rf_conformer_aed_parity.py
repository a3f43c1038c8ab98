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
only with ``load_ignore_missing_vars = True`` (observed: without it, it stops with "Key encoder/cond/random/
random_generator/StateVar not found in checkpoint"), and ours loads the reference's only with it too (the decoder's
parameters are missing there). With it, each side's checkpoint gives the other side's dev score
(:func:`test_checkpoints_move_between_reference_and_ours`)."""

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


REF_CHECKPOINT = os.path.join(REPO_ROOT, "tests", "demos", "data", "ref_rf_aed_small_model.001")


def _dev_score(stdout: str) -> float:
    import re
    return float(re.findall(r"^dev: score (\S+)", stdout, re.M)[-1])


def test_checkpoints_move_between_reference_and_ours(tmp_path):
    """Both directions on the small encoder + CTC model, each with values other than the config's initial ones
    (``RF_AED_PARITY_PVAL_OFFSET``), so a score equal to the other side's shows the checkpoint's values were used:
    ours loads the reference's checkpoint (``ref_rf_aed_small_model.001``, written by the reference with offset 3)
    and gives the reference's dev score; ours writes a checkpoint with offset 2, whose dev score here equals the
    one the reference computed after loading that checkpoint (observed)."""
    observed = OBSERVED["checkpoint_exchange"]
    write_fixed_data(str(tmp_path))
    env = dict(os.environ, RF_AED_SMALL="1", ASR_SYNTH_DATA=str(tmp_path), RF_AED_DEMO_CONFIG=DEMO_CONFIG)

    def run(*args, **extra_env):
        proc = subprocess.run([sys.executable, "rnn.py", CONFIG, *args, "++log_verbosity", "4"], capture_output=True,
                              text=True, timeout=600, cwd=REPO_ROOT, env=dict(env, **extra_env))
        assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
        return _dev_score(proc.stdout)

    # the reference's checkpoint here (its StateVar random states are not needed, our unused decoder keeps its
    # initial values)
    ours_of_ref = run("++task", "eval", "++load", REF_CHECKPOINT, "++load_ignore_missing_vars", "1",
                      RF_AED_OUT=str(tmp_path / "eval"))
    assert ours_of_ref == pytest.approx(observed["reference_offset3_dev_score"], abs=1e-5)
    assert abs(ours_of_ref - OBSERVED["dev_score"]) > 0.01  # not the config's own initial values
    # our checkpoint there: the reference's score of it equals ours
    ours = run("++num_epochs", "1", "++learning_rate", "0.0", RF_AED_OUT=str(tmp_path / "out"),
               RF_AED_PARITY_PVAL_OFFSET="2")
    assert ours == pytest.approx(observed["reference_eval_of_ours_offset2_dev_score"], abs=1e-5)
    assert abs(ours - OBSERVED["dev_score"]) > 0.01
