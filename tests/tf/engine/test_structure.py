"""The engine's structure (issue 18): the run's state in one object, the distribution strategy's points in the
order of a training run, and no engine module reading a private attribute of another object."""

from __future__ import annotations

import ast
import os

import returnn.tf.engine
from returnn.tf.distributed.strategy import SingleProcessStrategy
from tests.tf.engine import standin
from tests.tf.engine.test_training import make_config, run_task

ENGINE_DIR = os.path.dirname(returnn.tf.engine.__file__)


def _private_reads(path: str):
    """``(line, text)`` of every ``<expr>._name`` where ``<expr>`` is not ``self``/``cls`` (dunder names excluded)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_engine_module_reads_a_private_attribute_of_another_object():
    found = {}
    for name in sorted(os.listdir(ENGINE_DIR)):
        if name.endswith(".py"):
            reads = _private_reads(os.path.join(ENGINE_DIR, name))
            if reads:
                found[name] = reads
    assert found == {}


def test_the_scan_finds_a_private_read(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(engine):\n    return engine._stop_signal, engine.__class__\n\n"
                    "class A:\n    def g(self):\n        return self._x\n")
    assert _private_reads(str(path)) == [(2, "engine._stop_signal")]


class RecordingStrategy(SingleProcessStrategy):
    """The single-process behaviour, recording each call."""

    def __init__(self):
        self.calls = []

    def agree_int(self, value, name):
        self.calls.append(("agree_int", name, value))
        return value

    def agree_float(self, value, name):
        self.calls.append(("agree_float", name))
        return value

    def prepare_train_data(self, dataset):
        self.calls.append(("prepare_train_data", dataset.name))

    def sync_model(self, graph, session, variables):
        self.calls.append(("sync_model", sorted(v.op.name for v in variables)))

    def init_epoch(self, dataset, epoch):
        self.calls.append(("init_epoch", dataset.name, epoch))
        super().init_epoch(dataset, epoch)

    def step_sync(self, session, updater, global_step_offset):
        self.calls.append(("step_sync", global_step_offset))
        return None

    def end_of_pass(self, result):
        self.calls.append(("end_of_pass", result.num_steps))

    def after_save(self, epoch):
        self.calls.append(("after_save", epoch))


def test_training_calls_the_strategy_in_the_order_of_a_run(tmp_path, monkeypatch, capsys):
    """Two epochs of the stand-in (3 train steps, 1 dev step each): every distribution point, in order."""
    from returnn.tf.engine import engine as engine_mod

    standin.install(monkeypatch)
    strategy = RecordingStrategy()
    monkeypatch.setattr(engine_mod, "get_strategy", lambda: strategy)
    run_task(make_config(tmp_path, num_epochs=2), capsys=capsys)
    # all global variables: params, optimizer slots, global step (rank 0's values go to every worker)
    variables = ["beta1_power", "beta2_power", "global_step", "learning_rate", "output/W", "output/W/Adam",
                 "output/W/Adam_1", "output/b", "output/b/Adam", "output/b/Adam_1"]
    epoch = [("agree_float", "learning_rate"), ("init_epoch", "train", 1), ("step_sync", 0), ("end_of_pass", 3),
             ("init_epoch", "dev", 1), ("end_of_pass", 1), ("after_save", 1)]
    epoch2 = [("agree_float", "learning_rate"), ("init_epoch", "train", 2), ("step_sync", 3), ("end_of_pass", 3),
              ("init_epoch", "dev", 2), ("end_of_pass", 1), ("after_save", 2)]
    assert strategy.calls == [("prepare_train_data", "train"), ("agree_int", "start_epoch", 1),
                              ("sync_model", variables)] + epoch + epoch2


def test_engine_attributes_are_the_run_state(tmp_path, monkeypatch, capsys):
    """The reference's Engine attributes read and write the one RunState the parts receive."""
    from returnn.tf.engine import Engine

    standin.install(monkeypatch)
    config = make_config(tmp_path, num_epochs=1)
    engine = Engine(config=config)
    state = engine.state
    assert engine.model_filename == state.model_filename == str(tmp_path / "models" / "model")
    engine.init_datasets_from_config()
    assert engine.train_data is state.datasets.train and engine.train_data.name == "train"
    assert list(engine.eval_datasets) == ["dev"] and engine.eval_datasets["dev"] is state.datasets.dev
    engine.init_train_from_config(config, engine.train_data, engine.dev_data)
    assert engine.session is state.session and engine.network is state.network and engine.graph is state.graph
    assert engine.updater is state.updater and engine.train_flag_placeholder is state.train_flag
    engine.epoch = 7
    assert state.epoch == 7 and state.epoch_str() == "epoch 7"
    engine.finalize()
    assert state.session is None


def test_engine_train_epoch_and_score_format(tmp_path, monkeypatch, capsys):
    """The reference's Engine.train_epoch (one epoch of train()), get_eval_datasets and format_score."""
    from returnn.tf.engine import Engine

    standin.install(monkeypatch)
    config = make_config(tmp_path, num_epochs=3)
    engine = Engine(config=config)
    engine.init_datasets_from_config()
    engine.init_train_from_config(config, engine.train_data, engine.dev_data)
    assert engine.get_eval_datasets() == {"dev": engine.dev_data}
    assert engine.epoch == 1
    scores = engine.train_epoch()
    assert sorted(k for k in scores if not k.startswith(":meta:")) == ["dev_error", "dev_score", "train_error",
                                                                         "train_score"]
    assert os.path.exists(tmp_path / "models" / "model.001.index")
    assert not os.path.exists(tmp_path / "models" / "model.002.index")
    engine.finalize()
    # as observed from the reference's Engine.format_score
    assert Engine.format_score({"x": 1.5}) == "1.5"
    assert Engine.format_score({"x": 1.5, "y": 0.25}) == "x 1.5 y 0.25"
    assert Engine.format_score({}) == "None"
