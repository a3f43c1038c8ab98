"""Pretrain checkpoints (<model>.pretrain.NNN): found for resume, model choice and cleanup, as the reference does
(observed: a training stopped in pretrain epoch 2 resumes from <model>.pretrain.001; cleanup_old_models deletes
pretrain checkpoints like the others)."""

from __future__ import annotations

from returnn.config import Config
from returnn.engine.checkpoint_files import get_epoch_model_filename, get_existing_checkpoints
from returnn.options import CheckpointOptions, LearningRateControlOptions, TrainingOptions
from returnn.pretrain import Pretrain
from returnn.tf.engine.network_setup import create_learning_rate_control
from returnn.tf.engine.cleanup import cleanup_old_models
from returnn.tf.engine.model_selection import choose_model_for_eval, choose_model_for_train

NET = {"l1": {"class": "linear", "n_out": 2, "from": ["data"]}, "l2": {"class": "linear", "n_out": 2, "from": ["l1"]},
       "output": {"class": "softmax", "loss": "ce", "from": ["l2"]}}


def touch_checkpoint(prefix):
    for ext in (".index", ".meta", ".data-00000-of-00001"):
        with open(prefix + ext, "w") as f:
            f.write("x")


def test_existing_checkpoints_and_model_choice(tmp_path):
    model = str(tmp_path / "net")
    assert get_epoch_model_filename(model, 3, is_pretrain=True) == model + ".pretrain.003"
    for epoch in (1, 2):
        touch_checkpoint("%s.pretrain.%03d" % (model, epoch))
    touch_checkpoint(model + ".pretrain.003.tmp-99")  # an interrupted save: no checkpoint
    assert get_existing_checkpoints(model) == {1: model + ".pretrain.001", 2: model + ".pretrain.002"}
    config = Config()
    config.update({"model": model, "network": NET, "task": "train"})
    pretrain = Pretrain(original_network_json=NET)  # 2 pretrain epochs
    choice = choose_model_for_train(CheckpointOptions.from_config(config), model, pretrain=pretrain)
    assert (choice.filename, choice.epoch) == (model + ".pretrain.002", 2)
    config.update({"load_epoch": 1})
    choice = choose_model_for_train(CheckpointOptions.from_config(config), model, pretrain=pretrain)
    assert choice.filename == model + ".pretrain.001"
    touch_checkpoint(model + ".003")
    config.update({"load_epoch": 0})
    assert choose_model_for_eval(CheckpointOptions.from_config(config), model, task="search").filename == model + ".003"


def test_cleanup_deletes_pretrain_checkpoints(tmp_path, capsys):
    model = str(tmp_path / "net")
    for epoch in (1, 2, 3):
        touch_checkpoint("%s.pretrain.%03d" % (model, epoch))
    for epoch in (4, 5):
        touch_checkpoint("%s.%03d" % (model, epoch))
    config = Config()
    config.update({"model": model, "num_epochs": 5, "cleanup_old_models": {"keep_last_n": 1, "keep_best_n": 0,
                                                                           "keep": [2]}})
    assert cleanup_old_models(model, TrainingOptions.from_config(config),
                              create_learning_rate_control(LearningRateControlOptions.from_config(config))) == [1, 3, 4]
    assert get_existing_checkpoints(model) == {2: model + ".pretrain.002", 5: model + ".005"}
