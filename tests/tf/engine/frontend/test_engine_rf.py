"""RF configs (get_model / train_step / forward_step) through the engine, both TF backends: training log lines, the
learning-rate file, checkpoint names (observed from the reference), resume, eval, forward with forward_callback
(outputs checked against numpy on the checkpoint's values) and the config mistakes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.forward_iface import ForwardCallbackIface
from returnn.tensor import Dim, batch_dim
from tests.tf.engine.test_training import run_task

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

time_dim = Dim(None, name="time")
in_dim = Dim(9, name="in")
out_dim = Dim(2, name="out")
EXTERN_DATA = {
    "data": {"dims": (batch_dim, time_dim, in_dim), "dtype": "float32"},
    "classes": {"dims": (batch_dim, time_dim), "sparse_dim": out_dim, "dtype": "int32",
                "available_for_inference": False},
}

# observed: tf.train.list_variables of the reference's checkpoint (tensorflow-net-dict backend) of NestedModel below
OBSERVED_NESTED_NAMES = {
    "blocks/0/bias/param": [8], "blocks/0/weight/param": [8, 8],
    "blocks/1/bias/param": [8], "blocks/1/weight/param": [8, 8],
    "emb/weight/param": [2, 8],
    "global_step": [],
    "inp/bias/param": [8], "inp/weight/param": [9, 8],
    "norm/bias/param": [8], "norm/scale/param": [8],
    "out/bias/param": [2], "out/weight/param": [8, 2],
    "seq/0/bias/param": [8], "seq/0/weight/param": [8, 8],
    "seq/1/bias/param": [8], "seq/1/weight/param": [8, 8],
}


class NestedModel(rf.Module):
    def __init__(self):
        super().__init__()
        dims = [Dim(8, name="hid%i" % i) for i in range(6)]
        self.emb = rf.Embedding(out_dim, dims[0])
        self.inp = rf.Linear(in_dim, dims[0])
        self.seq = rf.Sequential(rf.Linear(dims[0], dims[1]), rf.Linear(dims[1], dims[2]))
        self.blocks = rf.ModuleList(rf.Linear(dims[2], dims[3]), rf.Linear(dims[3], dims[4]))
        self.out = rf.Linear(dims[4], out_dim)
        self.norm = rf.LayerNorm(dims[4])

    def __call__(self, x, y):
        h = self.inp(x) + self.emb(y) * 0.0
        h = self.seq(h)
        for block in self.blocks:
            h = rf.relu(block(h))
        return self.out(self.norm(h))


def _losses(logits, targets):
    logits_packed, pack_dim = rf.pack_padded(logits, dims=(batch_dim, time_dim), enforce_sorted=False)
    targets_packed, _ = rf.pack_padded(targets, dims=(batch_dim, time_dim), enforce_sorted=False, out_dim=pack_dim)
    ce = rf.cross_entropy(estimated=logits_packed, estimated_type="logits", target=targets_packed, axis=out_dim)
    ce.mark_as_loss(name="ce")
    (rf.reduce_argmax(logits_packed, axis=out_dim) != targets_packed).mark_as_loss(name="fer", as_error=True)


def nested_train_step(*, model, extern_data, **_kwargs):
    _losses(model(extern_data["data"], extern_data["classes"]), extern_data["classes"])


class LinearModel(rf.Module):
    def __init__(self):
        super().__init__()
        self.out = rf.Linear(in_dim, out_dim)


# with dropout: only the training steps apply it (one graph, the engine's train flag), never eval or forward


def linear_train_step(*, model, extern_data, **_kwargs):
    _losses(model.out(rf.dropout(extern_data["data"], 0.5)), extern_data["classes"])


def linear_forward_step(*, model, extern_data, **_kwargs):
    out = model.out(rf.dropout(extern_data["data"], 0.5))
    out.mark_as_default_output(shape=(batch_dim, time_dim, out_dim))


def make_config(tmp_path, **kwargs):
    cfg = {
        "task": "train", "backend": "tensorflow",
        "train": {"class": "Task12AXDataset", "num_seqs": 30, "fixed_random_seed": 1},
        "dev": {"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2},
        "extern_data": EXTERN_DATA,
        "model_outputs": {"output": {"dims": (batch_dim, time_dim, out_dim), "dtype": "float32"}},
        "get_model": lambda *, epoch, step, **_kw: LinearModel(),
        "train_step": linear_train_step, "forward_step": linear_forward_step,
        "batch_size": 2000, "max_seqs": 10,
        "optimizer": {"class": "adam"}, "learning_rate": 0.01,
        "model": str(tmp_path / "models" / "model"),
        "learning_rate_file": str(tmp_path / "lr"),
        "num_epochs": 2, "log_verbosity": 5,
    }
    cfg.update(kwargs)
    config = Config()
    config.update(cfg)
    return config


@pytest.mark.parametrize("backend", ["tensorflow", "tensorflow-net-dict"])
def test_train_log_lr_file_checkpoint_names_resume(tmp_path, capsys, backend):
    config = make_config(tmp_path, backend=backend, get_model=lambda *, epoch, step, **_kw: NestedModel(),
                         train_step=nested_train_step)
    out = run_task(config, capsys=capsys)
    # the reference's lines (observed on demo-rf.config with tensorflow-net-dict)
    assert re.search(r"^train epoch 1, step 0, cost:ce \S+, error:fer \S+, loss \S+, ", out, re.M)
    assert re.search(r"^epoch 2 score: \S+ error: \S+ elapsed: ", out, re.M)
    assert len(re.findall(r"^dev: score \S+ error \S+$", out, re.M)) == 2
    text = open(config.value("learning_rate_file", None)).read()
    assert text.count("'dev_score':") == 2 and text.count("'dev_error':") == 2
    assert text.count("'train_score':") == 2 and text.count("'train_error':") == 2
    names = {name: shape for name, shape in tf.train.list_variables(config.value("model", None) + ".002")
             if not name.startswith("optimize/")}
    assert names == OBSERVED_NESTED_NAMES
    # resume: epochs 1 and 2 exist, a run with num_epochs 3 trains epoch 3 only
    config.set("num_epochs", 3)
    out = run_task(config, capsys=capsys)
    assert "train epoch 1," not in out and re.search(r"^train epoch 3, step 0,", out, re.M)
    assert os.path.exists(config.value("model", None) + ".003.index")


# observed: tf.train.list_variables of the reference's checkpoints of its demos/demo-rf.config (tensorflow-net-dict)
OBSERVED_DEMO_RF_NAMES = {
    "global_step": [],
    "layers/0/bias/param": [50], "layers/0/filter/param": [50, 9, 5],
    "layers/1/bias/param": [100], "layers/1/filter/param": [100, 50, 5],
    "layers/2/bias/param": [2], "layers/2/filter/param": [2, 100, 5],
}


class ConvModel(rf.Module):  # the structure of the reference's demo-rf.config
    def __init__(self):
        super().__init__()
        hidden_dim, hidden2_dim = Dim(50, name="hidden"), Dim(100, name="hidden2")
        self.layers = rf.ModuleList(rf.Conv1d(in_dim, hidden_dim, 5, padding="same"),
                                    rf.Conv1d(hidden_dim, hidden2_dim, 5, padding="same"),
                                    rf.Conv1d(hidden2_dim, out_dim, 5, padding="same"))

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x, _ = layer(x, in_spatial_dim=time_dim)
            x = rf.relu(x)
        return self.layers[-1](x, in_spatial_dim=time_dim)[0]


def test_conv_checkpoint_names(tmp_path, capsys):
    config = make_config(tmp_path, num_epochs=1, get_model=lambda *, epoch, step, **_kw: ConvModel(),
                         train_step=lambda *, model, extern_data, **_kw: _losses(model(extern_data["data"]),
                                                                                 extern_data["classes"]))
    run_task(config, capsys=capsys)
    names = {name: shape for name, shape in tf.train.list_variables(config.value("model", None) + ".001")
             if not name.startswith("optimize/")}
    assert names == OBSERVED_DEMO_RF_NAMES


def test_eval_reproduces_dev_line(tmp_path, capsys):
    config = make_config(tmp_path, num_epochs=1, learning_rate=0.0)  # the params stay as initialized
    out = run_task(config, capsys=capsys)
    dev_line = re.findall(r"^dev: score .*$", out, re.M)[-1]
    # dropout is on in training: the train pass's score differs from an eval of the same data and params without it
    train_score = float(re.search(r"^epoch 1 score: (\S+) ", out, re.M).group(1))
    out_train_eval = run_task(make_config(tmp_path, task="eval", load_epoch=1, learning_rate_file=str(tmp_path / "lr3"),
                                          eval=config.typed_value("train")), capsys=capsys)
    eval_score = float(re.search(r" eval: score (\S+) ", out_train_eval).group(1))
    assert abs(eval_score - train_score) > 0.01
    out = run_task(make_config(tmp_path, task="eval", load_epoch=1, learning_rate=0.0,
                               learning_rate_file=str(tmp_path / "lr2")), capsys=capsys)
    assert re.findall(r"^dev: score \S+ error \S+", out, re.M) == [dev_line]


class Collect(ForwardCallbackIface):
    def __init__(self):
        self.seqs, self.finished, self.model = {}, False, None

    def init(self, *, model):
        self.model = model

    def process_seq(self, *, seq_tag, outputs):
        self.seqs[seq_tag] = outputs["output"]

    def finish(self):
        self.finished = True


def test_forward_callback_outputs_equal_numpy(tmp_path, capsys):
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    callback = Collect()
    fwd_data = {"class": "Task12AXDataset", "num_seqs": 7, "fixed_random_seed": 3}
    run_task(make_config(tmp_path, task="forward", forward_data=fwd_data, forward_callback=callback),
             capsys=capsys)
    assert callback.finished and isinstance(callback.model, LinearModel) and len(callback.seqs) == 7
    reader = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "models" / "model.001"))
    weight, bias = reader.get_tensor("out/weight/param"), reader.get_tensor("out/bias/param")
    from returnn.datasets import init_dataset

    dataset = init_dataset(fwd_data)
    dataset.init_seq_order(epoch=1)
    dataset.load_seqs(0, 7)
    for i in range(7):
        x = dataset.get_data(i, "data")
        out = callback.seqs[dataset.get_tag(i)]
        assert [d.dimension for d in out.dims] == [x.shape[0], 2]
        np.testing.assert_allclose(out.raw_tensor, x @ weight + bias, rtol=1e-5, atol=1e-5)


def _no_loss_step(*, model, extern_data, **_kwargs):
    model.out(extern_data["data"])


@pytest.mark.parametrize("overrides, match", [
    (dict(train_step=_no_loss_step), r"config key 'train_step': expected train_step\(\*, model, extern_data\) to mark "
                                     r"at least one loss"),
    (dict(get_model=lambda *, epoch, step, **_kw: {"not": "a module"}),
     r"config key 'get_model': expected get_model\(\*, epoch, step, \*\*kwargs\) to return an rf.Module, got 'dict'"),
    (dict(pretrain="default"), r"config key 'pretrain': expected no pretrain with an RF model"),
    (dict(train_step=None), r"config key 'train_step': expected a function train_step\(\*, model, extern_data"),
])
def test_config_mistakes(tmp_path, overrides, match):
    with pytest.raises(ConfigValueError, match=match):
        run_task(make_config(tmp_path, **overrides))


def test_forward_without_forward_step(tmp_path, capsys):
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    with pytest.raises(ConfigValueError, match=r"config key 'forward_step': expected a function forward_step"):
        run_task(make_config(tmp_path, task="forward", forward_step=None, forward_callback=Collect(),
                             forward_data={"class": "Task12AXDataset", "num_seqs": 2}))


def test_rnn_py_prints_one_message(tmp_path):
    config_file = tmp_path / "no_loss.config"
    config_file.write_text(
        "#!rnn.py\n"
        "from returnn.tensor import Dim, batch_dim\n"
        "import returnn.frontend as rf\n"
        "backend = 'tensorflow'\n"
        "train = {'class': 'Task12AXDataset', 'num_seqs': 5}\n"
        "time_dim = Dim(None, name='time')\n"
        "in_dim, out_dim = Dim(9, name='in'), Dim(2, name='out')\n"
        "extern_data = {'data': {'dims': (batch_dim, time_dim, in_dim)},\n"
        "               'classes': {'dims': (batch_dim, time_dim), 'sparse_dim': out_dim, 'dtype': 'int32'}}\n"
        "class M(rf.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.out = rf.Linear(in_dim, out_dim)\n"
        "def get_model(*, epoch, step, **_kw):\n"
        "    return M()\n"
        "def train_step(*, model, extern_data, **_kw):\n"
        "    model.out(extern_data['data'])\n"
        f"model = {str(tmp_path / 'model')!r}\n"
        "num_epochs = 1\n")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "rnn.py"), str(config_file)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "ConfigValueError: config key 'train_step': expected train_step(*, model, extern_data) to mark at least " \
           "one loss" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("backend", ["tensorflow-net-dict"])
def test_demo_train_forward(tmp_path, capsys, backend):
    config = Config()
    config.load_file(os.path.join(ROOT, "demos", "demo-rf-tf.12ax.config"))
    small = dict(backend=backend, model=str(tmp_path / "model"), learning_rate_file=str(tmp_path / "lr"), num_epochs=1,
                 train={"class": "Task12AXDataset", "num_seqs": 100, "fixed_random_seed": 1},
                 dev={"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2})
    config.update(small)
    out = run_task(config, capsys=capsys)
    assert re.search(r"^dev: score \S+ error \S+$", out, re.M)
    labels = str(tmp_path / "labels.txt")
    config.update(dict(task="forward", forward_output_file=labels))
    run_task(config, capsys=capsys)
    lines = open(labels).read().splitlines()
    assert len(lines) == 10 and all(re.fullmatch(r"seq-\d+ [01]+", line) for line in lines)


def test_forward_without_callback_is_an_error(tmp_path, capsys):
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    with pytest.raises(ConfigValueError, match=r"config key 'forward_callback': expected a ForwardCallbackIface"):
        run_task(make_config(tmp_path, task="forward", forward_data={"class": "Task12AXDataset", "num_seqs": 2},
                             output_file=str(tmp_path / "out.hdf")))


def test_preload_from_files(tmp_path, capsys):
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    ckpt = str(tmp_path / "models" / "model.001")
    other = tmp_path / "other"
    config = make_config(other, num_epochs=1, learning_rate=0.0,
                         preload_from_files={"base": {"filename": ckpt, "init_for_train": True}})
    run_task(config, capsys=capsys)
    old = tf.compat.v1.train.NewCheckpointReader(ckpt)
    new = tf.compat.v1.train.NewCheckpointReader(str(other / "models" / "model.001"))
    for name in ("out/weight/param", "out/bias/param"):
        np.testing.assert_array_equal(new.get_tensor(name), old.get_tensor(name))


def _step_error_train_step(*, model, extern_data, **_kwargs):
    step = rf.get_run_ctx().step
    assert isinstance(step, rf.Tensor) and step.dims == () and step.dtype == "int64"  # as the reference (observed)
    linear_train_step(model=model, extern_data=extern_data)
    rf.cast(step, "float32").mark_as_loss(name="step", as_error=True)


def test_run_ctx_step_is_the_global_train_step(tmp_path, capsys):
    # rf.get_run_ctx().step is the graph's global step (a Tensor), so it advances from step to step in one graph
    # and goes on in the next epoch (the log line's step counts within the epoch)
    config = make_config(tmp_path, train_step=_step_error_train_step, dev=None)
    out = run_task(config, capsys=capsys)
    steps = [int(n) for n in re.findall(r"^train epoch \d+, step (\d+),", out, re.M)]
    errors = [float(x) for x in re.findall(r"^train epoch \d+, step \d+, .*error:step (\S+),", out, re.M)]
    assert steps == [0, 1, 2, 0, 1, 2]
    assert errors == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


_get_model_epochs = []


def _counting_get_model(*, epoch, step, **_kwargs):
    _get_model_epochs.append(epoch)
    return LinearModel()


def _epoch_schedule_train_step(*, model, extern_data, **_kwargs):
    epoch = rf.get_run_ctx().epoch
    assert isinstance(epoch, rf.Tensor) and epoch.dims == () and epoch.dtype == "int32"  # as the reference (observed)
    linear_train_step(model=model, extern_data=extern_data)
    # an epoch-dependent schedule: 0.5 in epoch 1, then 10 * epoch
    value = rf.where(epoch >= 2, rf.cast(epoch, "float32") * 10.0, 0.5)
    value.mark_as_loss(name="sched", as_error=True)


def test_run_ctx_epoch_is_fed_per_epoch(tmp_path, capsys):
    # rf.get_run_ctx().epoch is a scalar int32 Tensor fed with the epoch of each training and evaluation pass: the
    # schedule's value changes between epochs although the model (and graph) is built once (get_model called once)
    from returnn.lr_control.file_format import read_learning_rate_file
    del _get_model_epochs[:]
    config = make_config(tmp_path, train_step=_epoch_schedule_train_step, get_model=_counting_get_model,
                         num_epochs=3)
    out = run_task(config, capsys=capsys)
    errors = [float(x) for x in re.findall(r"^train epoch (?:\d+), step \d+, .*error:sched (\S+),", out, re.M)]
    steps_per_epoch = len(errors) // 3
    assert steps_per_epoch >= 1 and errors == [0.5] * steps_per_epoch + [20.0] * steps_per_epoch + \
        [30.0] * steps_per_epoch
    assert _get_model_epochs == [1]
    epochs = read_learning_rate_file(str(tmp_path / "lr"))
    assert [epochs[e].error["dev_error_sched"] for e in (1, 2, 3)] == [0.5, 20.0, 30.0]
    assert [epochs[e].error["train_error_sched"] for e in (1, 2, 3)] == [0.5, 20.0, 30.0]


def test_run_ctx_epoch_in_eval_task_is_the_loaded_epoch(tmp_path, capsys):
    config = make_config(tmp_path, train_step=_epoch_schedule_train_step, num_epochs=2)
    run_task(config, capsys=capsys)
    config = make_config(tmp_path, train_step=_epoch_schedule_train_step, task="eval", load_epoch=2,
                         eval_output_file=str(tmp_path / "eval.txt"))
    out = run_task(config, capsys=capsys)
    assert re.search(r"^epoch 2 'dev' eval, step 0, .*error:sched 20\.0,", out, re.M)
    assert re.search(r"^dev: score \S+ error fer \S+ sched 20\.0$", out, re.M)
