"""Engine training loop, checkpoints, resume, eval reproduction, faults — with the stand-in network."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError, DataFileError
from returnn.log import log
from tests.tf.engine import standin

N_IN, N_OUT = 9, 2


def make_config(tmp_path, **kwargs):
    cfg = {
        "task": "train",
        "use_tensorflow": True,
        "train": {"class": "Task12AXDataset", "num_seqs": 30, "fixed_random_seed": 1},
        "dev": {"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2},
        "num_inputs": N_IN,
        "num_outputs": N_OUT,
        "batch_size": 2000,
        "max_seqs": 10,
        "network": {"output": {"class": "softmax", "loss": "ce"}},
        "learning_rate": 0.01,
        "model": str(tmp_path / "models" / "model"),
        "num_epochs": 2,
        "log_verbosity": 5,
    }
    cfg.update(kwargs)
    config = Config()
    config.update(cfg)
    return config


def run_task(config, task=None, capsys=None):
    from returnn.tasks import run_task as run

    log.init_by_config(config)
    run(config, task or config.value("task", "train"))
    if capsys is not None:
        return capsys.readouterr().out
    return None


def numpy_dev_score(config, checkpoint):
    """CE and frame error of the stand-in model over the dev data, computed with numpy from the checkpoint."""
    from returnn.datasets import init_dataset

    reader = tf.compat.v1.train.NewCheckpointReader(checkpoint)
    w, b = reader.get_tensor("output/W"), reader.get_tensor("output/b")
    ds = init_dataset(config.typed_value("dev"), default_kwargs={"name": "dev", "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    loss = err = frames = 0.0
    i = 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        x, y = ds.get_data(i, "data"), ds.get_data(i, "classes")
        logits = x.astype(np.float64) @ w + b
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        loss += -logp[np.arange(len(y)), y].sum()
        err += (logits.argmax(-1) != y).sum()
        frames += len(y)
        i += 1
    return loss / frames, err / frames


def test_train_two_epochs_logs_files_and_scores(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    config = make_config(tmp_path, learning_rate_file=str(tmp_path / "models" / "lr.txt"))
    out = run_task(config, capsys=capsys)
    assert "start training at epoch 1" in out
    assert "start epoch 1 with learning rate 0.01 ..." in out
    assert re.search(r"^train epoch 1, step 0, cost:output [0-9.]+, error:output [0-9.]+, loss [0-9.]+, "
                     r"[0-9.]+ sec/step, elapsed \d+:\d\d:\d\d", out, re.M)
    assert re.search(r"^train epoch 2, finished after \d+ steps, \d+:\d\d:\d\d elapsed \([0-9.]+% computing time\)$",
                     out, re.M)
    assert re.search(r"^epoch 1 score: [0-9.e-]+ error: [0-9.e-]+ elapsed: \d+:\d\d:\d\d$", out, re.M)
    dev_lines = re.findall(r"^dev: score ([0-9.e-]+) error ([0-9.e-]+)$", out, re.M)
    assert len(dev_lines) == 2
    # as the reference logs at verbosity 4+: its Newbob defaults in the repr, then the error keys of the
    # learning-rate control from the train scores (before the epoch line) and from dev (before the dev line)
    assert "learning_rate_decay=0.5, learning_rate_growth=1.0, filename=" in out and "\npretrain: None\n" in out
    lines = out.splitlines()
    train_key = [i for i, x in enumerate(lines) if re.fullmatch(
        r"Learning-rate-control: error key 'train_score' from \{'train_score': [0-9.e-]+, 'train_error': [0-9.e-]+\}",
        x)]
    dev_key = [i for i, x in enumerate(lines) if re.fullmatch(
        r"Learning-rate-control: error key 'dev_score' from \{'dev_score': [0-9.e-]+, 'dev_error': [0-9.e-]+\}", x)]
    assert len(train_key) == 1 and len(dev_key) == 1  # only for the first epoch scored in the process
    assert lines[train_key[0] + 1].startswith("epoch 1 score: ")
    assert lines.index("dev: score %s error %s" % dev_lines[0]) > dev_key[0] > train_key[0]
    assert out.rstrip().endswith("Finished training in epoch 2.")
    model = str(tmp_path / "models" / "model")
    for ep in (1, 2):
        for suffix in (".index", ".meta", ".data-00000-of-00001"):
            assert os.path.exists("%s.%03d%s" % (model, ep, suffix))
    assert not [n for n in os.listdir(tmp_path / "models") if ".tmp-" in n]
    # the printed dev score is sum(loss)/sum(frames) of the saved model: check against numpy
    score, error = numpy_dev_score(config, model + ".002")
    assert float(dev_lines[1][0]) == pytest.approx(score, rel=1e-5)
    assert float(dev_lines[1][1]) == pytest.approx(error, abs=1e-7)
    # the learning-rate file holds the scores in the reference's format
    text = open(tmp_path / "models" / "lr.txt").read()
    assert "2: EpochData(learningRate=0.01, error={" in text
    assert "'dev_score': %s" % dev_lines[1][0] in text
    assert "':meta:epoch_num_train_steps'" in text
    assert "':meta:effective_learning_rate': np.float32(0.01)," in text


def test_resume_and_finished(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    out = run_task(make_config(tmp_path, num_epochs=2), capsys=capsys)
    assert "loading weights from %s.001" % (tmp_path / "models" / "model") in out
    assert "start training at epoch 2" in out
    assert "train epoch 1," not in out
    out = run_task(make_config(tmp_path, num_epochs=2), capsys=capsys)
    assert "No epochs to train, start_epoch: 3, final_epoch: 2" in out
    assert "Finished training in epoch 2." in out


def test_resume_restores_params_and_optimizer_state(tmp_path, monkeypatch, capsys):
    """2 epochs in one run == 1 epoch + resume for 1 epoch (Adam slots and global step are restored)."""
    standin.install(monkeypatch)
    run_task(make_config(tmp_path / "a", num_epochs=2), capsys=capsys)
    run_task(make_config(tmp_path / "b", num_epochs=1), capsys=capsys)
    run_task(make_config(tmp_path / "b", num_epochs=2), capsys=capsys)
    ra = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "a" / "models" / "model.002"))
    rb = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "b" / "models" / "model.002"))
    for name in ("output/W", "output/b", "global_step"):
        np.testing.assert_allclose(ra.get_tensor(name), rb.get_tensor(name), rtol=1e-6)


def test_eval_task_reproduces_dev_score(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    out = run_task(make_config(tmp_path, num_epochs=2, log_verbosity=3), capsys=capsys)
    assert "Setup TF session with options {" in out  # verbosity 2, as the reference
    dev_lines = re.findall(r"^dev: score .*$", out, re.M)
    eval_file = tmp_path / "eval.txt"
    out = run_task(make_config(tmp_path, task="eval", load_epoch=2, log_verbosity=3,
                               eval_output_file=str(eval_file)), capsys=capsys)
    assert "Evaluate epoch 2\n" in out  # as the reference, before the checkpoint is loaded
    assert out.index("Evaluate epoch 2") < out.index("loading weights from %s.002" % (tmp_path / "models" / "model"))
    assert re.findall(r"^dev: score .*$", out, re.M) == [dev_lines[1]]
    score = float(dev_lines[1].split()[2])
    data = eval(open(eval_file).read())
    assert data["dev"]["score"] == {"cost:output": score}
    assert set(data["dev"]["error"]) == {"error:output"}


def test_load_epoch_missing_lists_available(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, task="eval", load_epoch=7), capsys=capsys)
    assert "load_epoch" in str(exc.value) and "available epochs" in str(exc.value) and ": 1" in str(exc.value)


def test_corrupted_checkpoint_names_file(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    data_file = tmp_path / "models" / "model.001.data-00000-of-00001"
    data_file.write_bytes(data_file.read_bytes()[:10])
    with pytest.raises(DataFileError) as exc:
        run_task(make_config(tmp_path, task="eval", load_epoch=1), capsys=capsys)
    assert "model.001" in str(exc.value)


def test_interrupted_save_is_not_a_checkpoint(tmp_path, monkeypatch, capsys):
    """A save killed before its .index was renamed leaves no epoch; the next run resumes after the last one."""
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    models = tmp_path / "models"
    # what a kill -9 during saving epoch 2 can leave behind: temp files and renamed data/meta, no index
    (models / "model.002.tmp-999.data-00000-of-00001").write_bytes(b"partial")
    (models / "model.002.data-00000-of-00001").write_bytes(b"partial")
    (models / "model.002.meta").write_bytes(b"partial")
    out = run_task(make_config(tmp_path, num_epochs=2), capsys=capsys)
    assert "start training at epoch 2" in out
    assert os.path.exists(models / "model.002.index")
    tf.compat.v1.train.NewCheckpointReader(str(models / "model.002")).get_tensor("output/W")


def test_nonfinite_loss_stops_without_checkpoint(tmp_path, monkeypatch, capsys):
    from returnn.tf.engine.runner import NonFiniteLossError

    standin.install(monkeypatch)
    config = make_config(tmp_path, num_epochs=3, standin_nan_at_step=5)
    with pytest.raises(NonFiniteLossError) as exc:
        run_task(config, capsys=capsys)
    msg = str(exc.value)
    assert "train epoch 2, step" in msg and "not finite" in msg
    models = tmp_path / "models"
    assert os.path.exists(models / "model.001.index")
    assert not os.path.exists(models / "model.002.index")


def test_nonfinite_loss_skipped_when_allowed(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    out = run_task(make_config(tmp_path, num_epochs=1, standin_nan_at_step=2, stop_on_nonfinite_train_score=False),
                   capsys=capsys)
    assert "loss is not finite" in out
    assert "Finished training in epoch 1." in out


def test_model_dir_not_writable(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, model=str(tmp_path / "afile" / "model")), capsys=capsys)
    assert "'model'" in str(exc.value) and "writable" in str(exc.value)
    out = capsys.readouterr().out
    assert "train epoch" not in out


def test_stop_request_abandons_epoch(tmp_path, monkeypatch, capsys):
    """A signal (here: the flag it sets) during epoch 2 abandons it; model.001 stays, no model.002."""
    from returnn.tf.engine.state import StopSignal

    standin.install(monkeypatch)
    calls = {"n": 0}
    orig = StopSignal.requested

    def requested(self):
        calls["n"] += 1
        if calls["n"] == 6:  # epoch 1 has 3 steps, dev eval 1: stop in epoch 2
            self.request(2)
        return orig(self)

    monkeypatch.setattr(StopSignal, "requested", requested)
    with pytest.raises(KeyboardInterrupt):
        run_task(make_config(tmp_path, num_epochs=3), capsys=capsys)
    out = capsys.readouterr().out
    assert "Training stopped in epoch 2" in out
    models = tmp_path / "models"
    assert os.path.exists(models / "model.001.index")
    assert not os.path.exists(models / "model.002.index")


def test_tensorboard_events_written(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=2, tf_log_dir=str(tmp_path / "tb")), capsys=capsys)
    dirs = os.listdir(tmp_path / "tb")
    # as the reference: train-<date>, and dev-<epoch>-<date> for each epoch's dev scores
    assert any(d.startswith("train-") for d in dirs)
    assert any(d.startswith("dev-1-") for d in dirs) and any(d.startswith("dev-2-") for d in dirs)
    train_dir = tmp_path / "tb" / [d for d in dirs if d.startswith("train-")][0]
    events = [f for f in os.listdir(train_dir) if f.startswith("events.out.tfevents.")]
    tags = set()
    for rec in tf.compat.v1.io.tf_record_iterator(str(train_dir / events[0])):
        ev = tf.compat.v1.Event.FromString(rec)
        tags |= {v.tag for v in ev.summary.value}
    # the reference's tags (observed): objective/loss (what tools/tf_inspect_summary_log.py shows by default), ...
    assert {"objective/loss/loss_output", "objective/loss/error_output", "objective/loss", "objective/constraints",
            "objective/objective", "epoch/learning_rate", "epoch/train_score"} <= tags
    # the dev passes: per step, at the global steps after the epoch's training steps (as the reference)
    first_steps = []
    for epoch in (1, 2):
        dev_dir = tmp_path / "tb" / [d for d in dirs if d.startswith("dev-%i-" % epoch)][0]
        events = [f for f in os.listdir(dev_dir) if f.startswith("events.out.tfevents.")]
        steps = [ev.step for ev in map(tf.compat.v1.Event.FromString,
                                       tf.compat.v1.io.tf_record_iterator(str(dev_dir / events[0])))
                 if any(v.tag == "objective/loss" for v in ev.summary.value)]
        first_steps.append(min(steps))
    assert first_steps[0] > 0 and first_steps[1] == 2 * first_steps[0], first_steps


def test_use_last_best_model_loads_best_epoch(tmp_path, monkeypatch, capsys):
    """When the LR control reports an earlier best epoch, its params are loaded before the next epoch."""
    from returnn.tf.engine import training

    standin.install(monkeypatch)
    loaded = []
    orig = training.maybe_use_last_best_model

    def spy(state, epoch):
        state.learning_rate_control.get_last_best_epoch = lambda **kw: 1 if epoch == 3 else None
        result = orig(state, epoch)
        if result is not None:
            reader = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "models" / "model.001"))
            w = state.session.run(state.network.layers["output"].params["W"])
            loaded.append((epoch, result, np.allclose(w, reader.get_tensor("output/W"))))
        return result

    monkeypatch.setattr(training, "maybe_use_last_best_model", spy)
    out = run_task(make_config(tmp_path, num_epochs=3, use_last_best_model=True), capsys=capsys)
    # the reference's message (returnn.lr_control.from_config.get_use_last_best_model_epoch), then the load
    assert re.search(r"^Last epoch 2 \(score: [0-9.]+\) is not the optimal model but epoch 1 has better score "
                     r"[0-9.]+ \(\{.*\}\), will use that model\.$", out, re.M), out
    assert re.search(r"^loading weights from .*model\.001$", out, re.M)
    assert loaded == [(3, 1, True)]


def test_progress_line_on_terminal(monkeypatch, capsys):
    """With a terminal and per-step lines off, the runner redraws one progress line with ETA."""
    from returnn.tf.engine.runner import Progress

    log.initialize(verbosity=3)
    monkeypatch.setattr(type(log.v3), "isatty", lambda self: True)
    progress = Progress("train epoch 1")
    assert progress.enabled
    progress.update(4, 10.0, 0.25)
    progress.clear()
    out = capsys.readouterr().out
    assert "\rtrain epoch 1, step 4, elapsed 0:00:10, 25.0%, ETA 0:00:30" in out


def test_save_epoch1_initial_model_and_log_batch_size(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    out = run_task(make_config(tmp_path, num_epochs=1, save_epoch1_initial_model=True, log_batch_size=True),
                   capsys=capsys)
    assert os.path.exists(tmp_path / "models" / "model.000.index")
    # as the reference: the step line carries the longest sequence per data key and the number of sequences
    assert re.search(r"^train epoch 1, step 0, cost:output [0-9.]+, error:output [0-9.]+, loss [0-9.]+, "
                     r"max_size:classes \d+, max_size:data \d+, num_seqs \d+, [0-9.]+ sec/step", out, re.M)
