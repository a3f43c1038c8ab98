"""Step checkpoints (resume mid-epoch, bit-identically): the files, the step-seeded random ops, and kill -9."""

from __future__ import annotations

import json
import os
import re
import sys

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf  # noqa: F401 (graph mode, control flow v1)
from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.options import TrainingOptions
from returnn.tf.engine import step_checkpoints
from returnn.tf.engine.runner import PassResult
from returnn.tf.ops import step_random

tf1 = tf.compat.v1
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _dropout_graph(step_seeded: bool):
    graph = tf.Graph()
    with graph.as_default():
        tf1.set_random_seed(42)
        step_seed = step_random.create_step_seed(graph) if step_seeded else None
        x = tf.ones([4, 50])
        out = step_random.nn_dropout(x, rate=0.5, seed=7)
    return graph, step_seed, out


def test_step_seeded_dropout_depends_on_the_step_only():
    graph, step_seed, out = _dropout_graph(True)
    assert out.op.type != "RandomUniform" and not step_random.stateful_random_ops([out])
    values = {}
    for run in range(2):  # two sessions: a fresh session must draw the same masks for the same steps
        with tf1.Session(graph=graph) as session:
            values[run] = [session.run(out, {step_seed: step}) for step in (5, 6, 5)]
    for run in range(2):
        np.testing.assert_array_equal(values[run][0], values[run][2])  # same step, same mask
        assert not np.array_equal(values[run][0], values[run][1])  # next step, new mask
        np.testing.assert_array_equal(values[0][run], values[1][run])
    kept = values[0][0] != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(values[0][0][kept], 2.0)  # kept values scaled by 1 / (1 - rate)


def test_without_step_seed_dropout_is_the_stateful_op():
    graph, _, out = _dropout_graph(False)
    assert [op.type for op in step_random.stateful_random_ops([out])] == ["RandomUniform"]
    with tf1.Session(graph=graph) as session:
        first, second = session.run(out), session.run(out)
    assert not np.array_equal(first, second)  # the kernel's state moved on
    with tf1.Session(graph=graph) as session:
        np.testing.assert_array_equal(session.run(out), first)  # a new session starts from the seed again


def test_stateful_random_ops_inside_a_loop_stay_stateful():
    graph = tf.Graph()
    with graph.as_default():
        step_random.create_step_seed(graph)
        _, acc = tf1.while_loop(lambda i, a: i < 3,
                                lambda i, a: (i + 1, a + step_random.random_uniform([2], seed=3)),
                                [tf.constant(0), tf.zeros([2])])
        found = step_random.stateful_random_ops([acc])
    assert [op.type for op in found] == ["RandomUniform"]


def test_due_by_steps_and_by_minutes():
    class FakeState:
        model_filename = "/nonexistent/model"

        @staticmethod
        def epoch_model_filename(epoch):
            return "/nonexistent/model.%03d" % epoch

    now = [100.0]
    by_steps = step_checkpoints.StepCheckpointer(FakeState(), 1, every_steps=20, every_minutes=0, global_step_start=0,
                                                 learning_rate=0.1, clock=lambda: now[0])
    assert [s for s in range(1, 61) if by_steps.due(s)] == [20, 40, 60]
    by_time = step_checkpoints.StepCheckpointer(FakeState(), 1, every_steps=0, every_minutes=0.5, global_step_start=0,
                                                learning_rate=0.1, clock=lambda: now[0])
    assert not by_time.due(1)
    now[0] += 29.9
    assert not by_time.due(2)
    now[0] += 0.1
    assert by_time.due(3)  # 30 s after the epoch's start (then after the last step checkpoint)


def test_options_reject_negative_intervals():
    assert not TrainingOptions.from_config(Config({})).step_checkpoints_enabled
    assert TrainingOptions.from_config(Config({"step_checkpoint_interval_minutes": 0.5})).step_checkpoints_enabled
    with pytest.raises(ConfigValueError, match="step_checkpoint_interval"):
        TrainingOptions.from_config(Config({"step_checkpoint_interval": -1}))


def _fake_checkpoint(prefix: str, steps: int, *, complete: bool = True) -> None:
    for suffix in (".index", ".data-00000-of-00001", ".meta"):
        open(prefix + suffix, "w").close()
    if complete:
        result = PassResult(["output"])
        result.loss["output"], result.frames["output"], result.num_steps = 0.1 + 0.2, 3.0, steps
        step_checkpoints.write_marker(prefix, step_checkpoints.PassProgress(
            epoch=2, steps_done=steps, global_step_start=10, learning_rate=0.01,
            sums=step_checkpoints.PassProgress.sums_of(result), last_batch="x"))


def test_markers_find_and_remove(tmp_path):
    model = str(tmp_path / "model")
    epoch2 = model + ".002"
    _fake_checkpoint(step_checkpoints.step_checkpoint_prefix(epoch2, 20), 20)
    _fake_checkpoint(step_checkpoints.step_checkpoint_prefix(epoch2, 40), 40, complete=False)  # killed before marker
    _fake_checkpoint(step_checkpoints.step_checkpoint_prefix(model + ".001", 20), 20)
    open(epoch2 + ".step00000060.json.tmp-123", "w").close()  # killed while writing the marker
    assert [s for s, _ in step_checkpoints.find_step_checkpoints(epoch2)] == [20]
    progress = step_checkpoints.read_marker(epoch2 + ".step00000020")
    assert (progress.epoch, progress.steps_done, progress.global_step_start) == (2, 20, 10)
    restored = PassResult(["output"])
    progress.restore_sums(restored)
    assert restored.loss["output"] == 0.1 + 0.2 and restored.num_steps == 20  # exact float through JSON
    with pytest.raises(step_checkpoints.StepCheckpointError, match="losses"):
        progress.restore_sums(PassResult(["other"]))
    with open(epoch2 + ".step00000020.json") as f:
        assert json.load(f)["global_step"] == 30
    removed = step_checkpoints.remove_all_step_checkpoints(model, except_epoch_prefix=epoch2)
    assert [os.path.basename(p) for p in removed] == ["model.001.step00000020"]
    assert sorted(os.listdir(tmp_path)) and not any(n.startswith("model.001") for n in os.listdir(tmp_path))
    step_checkpoints.remove_all_step_checkpoints(model, only_epoch_prefix=epoch2)
    assert os.listdir(tmp_path) == []


def test_generators_restored():
    progress = step_checkpoints.PassProgress(
        epoch=1, steps_done=1, global_step_start=0, learning_rate=1.0, sums={}, last_batch=None,
        numpy_state=step_checkpoints.numpy_global_state(), python_state=step_checkpoints.python_global_state())
    import random

    expected = (np.random.rand(3), random.random())
    progress.restore_generators()
    got = (np.random.rand(3), random.random())
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1] == expected[1]


def test_kill_9_twice_then_bit_identical(tmp_path):
    """The fast version of benchmarks/resume/kill_resume.py: 2 trials, kill -9 then SIGTERM (each shortly after the
    process wrote a step checkpoint), 12AX with dropout, 2 epochs of 24 sequences; every variable of each epoch
    checkpoint and the learning-rate file equal those of the uninterrupted run."""
    sys.path.insert(0, os.path.join(REPO, "benchmarks", "resume"))
    try:
        import kill_resume
    finally:
        sys.path.pop(0)
    code = kill_resume.main(["--trials", "2", "--small", "--step-interval", "3", "--kill-after-step-checkpoint",
                             "--signals", "KILL,TERM", "--window", "0.1", "--seed", "0", "--workdir", str(tmp_path),
                             "++num_epochs", "2"])
    with open(tmp_path / "killed" / "log") as f:
        log_text = f.read()
    parts = log_text.split("\n===== ")
    assert [p.split(" =====")[0] for p in parts[1:]] == ["signal SIGKILL", "signal SIGTERM", "ended, exit code 0"]
    assert "Save step checkpoint under" in parts[0] and "Load step checkpoint" not in parts[0]
    # SIGTERM: the running step ends; when a step of the epoch ran in this process, a step checkpoint of the last one
    # is written and the restart continues from it (when the signal came after the epoch's last step, the next
    # epoch's first step is not run: nothing to save)
    assert "Training stopped in epoch" in parts[1], parts[1][-2000:]
    stopped = re.search(r"Training stopped in epoch \d+ .*; a restart continues this epoch from the step checkpoint "
                        r"(\S+)\.\n", parts[1])
    if stopped:
        assert "Load step checkpoint %s: continuing" % stopped.group(1) in parts[2]
    else:
        assert "this epoch is not saved" in parts[1] and "stopped at step 0 " in parts[1]
    resumed = re.findall(r"Load step checkpoint \S+\.step(\d+): continuing epoch \d+ after step (\d+)", log_text)
    assert len(resumed) >= 1 and all(int(a) == int(b) for a, b in resumed)
    assert code == 0


def _read_all(prefix):
    reader = tf1.train.NewCheckpointReader(prefix)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


@pytest.fixture
def restore_op_determinism():
    """Step checkpoints switch TF's op determinism on for the process; switch it back for the other tests."""
    from tensorflow.python.framework import config as tf_config

    before = tf_config.is_op_determinism_enabled()
    yield
    assert tf_config.is_op_determinism_enabled()  # switched on by the training with step checkpoints
    if not before:
        tf_config.disable_op_determinism()


def test_stop_request_writes_step_checkpoint_and_resumed_run_is_identical(tmp_path, monkeypatch, capsys,
                                                                          restore_op_determinism):
    """In one process: a stop request (as SIGINT/SIGTERM make) after the 7th step writes a step checkpoint of step 7
    (the interval is 4); the rerun continues after step 7 and ends with the uninterrupted run's variables (all, exact)
    and learning-rate file."""
    from returnn.tf.engine.state import StopSignal
    from tests.tf.engine.test_training import make_config, run_task

    network = {"fw0": {"class": "rec", "unit": "nativelstm", "n_out": 5, "dropout": 0.2},
               "output": {"class": "softmax", "loss": "ce", "from": "fw0", "dropout": 0.1}}

    def config(name):
        return make_config(tmp_path / name, network=network, max_seqs=2, num_epochs=2, step_checkpoint_interval=4,
                           log_verbosity=4, learning_rate_file=str(tmp_path / name / "lr.txt"))

    run_task(config("ref"))
    checks = [0]
    original = StopSignal.requested

    def requested(self):
        checks[0] += 1
        return checks[0] > 7 or original(self)  # checked before each step: stop before the 8th

    monkeypatch.setattr(StopSignal, "requested", requested)
    capsys.readouterr()
    with pytest.raises(KeyboardInterrupt):
        run_task(config("run"))
    out = capsys.readouterr().out
    monkeypatch.undo()
    model = str(tmp_path / "run" / "models" / "model")
    assert [s for s, _ in step_checkpoints.find_step_checkpoints(model + ".001")] == [7]
    assert "Save step checkpoint under %s.001.step00000007 (epoch 1, step 7)" % model in out
    assert "a restart continues this epoch from the step checkpoint %s.001.step00000007." % model in out
    other = config("run")  # other training data: the batches done before are not the same, one clear error
    other.update({"train": {"class": "Task12AXDataset", "num_seqs": 30, "fixed_random_seed": 5}})
    with pytest.raises(step_checkpoints.StepCheckpointError, match="batch 7 of the epoch is not the one trained"):
        run_task(other)
    out = run_task(config("run"), capsys=capsys)
    assert "Load step checkpoint %s.001.step00000007: continuing epoch 1 after step 7" % model in out
    ref, got = _read_all(str(tmp_path / "ref" / "models" / "model.002")), _read_all(model + ".002")
    assert sorted(ref) == sorted(got) and len(ref) > 5
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)
    texts = []
    for name in ("ref", "run"):
        with open(tmp_path / name / "lr.txt") as f:
            texts.append(re.sub(r"epoch_train_time_secs'?: \d+", "T", f.read()))
    assert texts[0] == texts[1] and "dev_score" in texts[0]
    assert not [n for n in os.listdir(tmp_path / "run" / "models") if ".step" in n]


def test_warning_names_stateful_random_ops_of_the_training_step(tmp_path, capsys, restore_op_determinism):
    from tests.tf.engine.test_training import make_config, run_task

    network = {"noise": {"class": "eval", "from": "data", "eval": "source(0) + tf.random.uniform(tf.shape(source(0)))"},
               "output": {"class": "softmax", "loss": "ce", "from": "noise", "dropout": 0.1}}
    out = run_task(make_config(tmp_path, network=network, num_epochs=1, step_checkpoint_interval=100,
                               log_verbosity=3), capsys=capsys)
    match = re.search(r"step checkpoints: (\d+) random op\(s\) of the training step keep their state .*: (.*)", out)
    assert match, out[-3000:]
    assert match.group(1) == "1" and match.group(2).startswith("noise/")  # the eval layer's; not the dropout
