"""tools/cleanup-old-models.py and the cleanup policy; the expected lines were observed with the reference's tool
on the same files (a 10-epoch 12AX training of the reference: its learning-rate file and checkpoint file sizes)."""

import os

import pytest

from tests.tools._tool_inputs import run_tool

# dev_score, dev_error, train_score, train_error of the reference's 12AX training (10 epochs)
SCORES = {
    1: (0.40433645248413086, 0.1451912373304367, 0.5017865896224976, 0.19477039575576782),
    2: (0.317943811416626, 0.1451912373304367, 0.3549434542655945, 0.14127321541309357),
    3: (0.23042058944702148, 0.1451912373304367, 0.27954280376434326, 0.14118081331253052),
    4: (0.2121090143918991, 0.14333456754684448, 0.22472724318504333, 0.1283378005027771),
    5: (0.19496260583400726, 0.07055328786373138, 0.21745918691158295, 0.12667466700077057),
    6: (0.15646298229694366, 0.05458596348762512, 0.19438977539539337, 0.09562967717647552),
    7: (0.12614448368549347, 0.05644262954592705, 0.16372734308242798, 0.06486187130212784),
    8: (0.0898929312825203, 0.03416264429688454, 0.12596948444843292, 0.0555298887193203),
    9: (0.08346790075302124, 0.03082064539194107, 0.1113714799284935, 0.04730666056275368),
    10: (0.06879138946533203, 0.024507984519004822, 0.11761701852083206, 0.04518155753612518),
}
SIZES = {".index": 270, ".data-00000-of-00001": 3296, ".meta": 142851}


def _setup(tmp_path, num_epochs=10):
    with open(tmp_path / "newbob.data", "w") as f:
        f.write("{\n")
        for epoch, (ds, de, ts, te) in SCORES.items():
            f.write("%i: EpochData(learningRate=0.01, error={\n':meta:epoch_num_train_steps': 20,\n'dev_error': %r,\n"
                    "'dev_score': %r,\n'train_error': %r,\n'train_score': %r,\n}),\n" % (epoch, de, ds, te, ts))
        f.write("}\n")
    for epoch in SCORES:
        for ext, size in SIZES.items():
            with open(tmp_path / ("model.%03d%s" % (epoch, ext)), "wb") as f:
                f.write(b"\0" * size)
    config = tmp_path / "cleanup.config"
    config.write_text("#!rnn.py\nnum_epochs = %i\nlog_verbosity = 3\n" % num_epochs)
    return ["--config", str(config), "--model", str(tmp_path / "model"), "--scores", str(tmp_path / "newbob.data")]


def _cleanup(config):
    from returnn.options import LearningRateControlOptions, RunOptions, TrainingOptions
    from returnn.tf.engine.cleanup import cleanup_old_models
    from returnn.tf.engine.network_setup import create_learning_rate_control

    return cleanup_old_models(RunOptions.read_one(config, "model"), TrainingOptions.from_config(config),
                              create_learning_rate_control(LearningRateControlOptions.from_config(config)))


def _epochs(tmp_path):
    return sorted(int(n.split(".")[1]) for n in os.listdir(tmp_path) if n.endswith(".index"))


def test_as_reference(tmp_path):
    args = _setup(tmp_path)
    code, out, err = run_tool("cleanup-old-models.py", *args, "--dry_run")
    assert code == 0, err
    plan = ("We have stored models for epochs [1, 2, 3, ..., 8, 9, 10] and keep epochs [4, 5, 6, 7, 8, 9, 10].\n"
            "We will delete the models of epochs [1, 2, 3].\n")
    assert out.startswith("Delete old models.\n") and plan in out and "Dry run: nothing deleted." in out
    assert _epochs(tmp_path) == list(range(1, 11))
    code, out, err = run_tool("cleanup-old-models.py", *args, stdin="yes\n")
    assert code == 0, err
    assert plan + "Delete those models? Confirm? [yes/no]Deleted 429.0KB.\n" in out
    assert _epochs(tmp_path) == list(range(4, 11))


def test_policy_observations():
    from returnn.engine.checkpoint_files import CleanupOptions, default_keep_pattern, select_epochs_to_keep

    # observed: the default 'keep' epochs for a few num_epochs (checkpoints of epochs 1..200 on disk)
    assert default_keep_pattern(3) == set()
    assert default_keep_pattern(5) == {4, 5}
    assert default_keep_pattern(8) == {4, 5, 8}
    assert default_keep_pattern(10) == {4, 5, 8, 10}
    assert default_keep_pattern(11) == default_keep_pattern(16) == {5, 10}
    assert default_keep_pattern(51) == {10, 20, 40}
    scores = {ep: {"dev_score": s[0], "dev_error": s[1], "train_score": s[2], "train_error": s[3],
                   ":meta:epoch_num_train_steps": 20} for ep, s in SCORES.items()}
    # observed with keep_last_n 1 and keep []: best 4 -> [6..10] (6: 4th best dev_error), 3 -> [8, 9, 10]
    for best_n, expected in ((4, [6, 7, 8, 9, 10]), (3, [8, 9, 10]), (2, [9, 10])):
        opts = CleanupOptions({"keep_last_n": 1, "keep_best_n": best_n, "keep": []}, num_epochs=10)
        assert sorted(select_epochs_to_keep(range(1, 11), scores, opts)) == expected


def test_epochs_after_num_epochs_untouched(tmp_path):
    from returnn.config import Config

    _setup(tmp_path)
    config = Config()
    config.update({"model": str(tmp_path / "model"), "learning_rate_file": str(tmp_path / "newbob.data"),
                   "num_epochs": 5, "cleanup_old_models": {"keep_last_n": 1, "keep_best_n": 1, "keep": []}})
    # as observed (num_epochs 20, checkpoints of epochs 1..200: only 1..20 listed), epochs after num_epochs stay
    assert _cleanup(config) == [1, 2, 3, 4]
    assert _epochs(tmp_path) == list(range(5, 11))


@pytest.mark.parametrize("bad", [{"keep_lastn": 1}, "yes"])
def test_bad_value(bad):
    from returnn.engine.checkpoint_files import CleanupOptions
    from returnn.errors import ConfigValueError

    with pytest.raises(ConfigValueError, match="cleanup_old_models"):
        CleanupOptions(bad, num_epochs=5)
