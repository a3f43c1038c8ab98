"""Tests for returnn.engine.base.EngineBase (values observed from the reference's EngineBase)."""

import pytest

from returnn.config import Config
from returnn.engine.base import EngineBase
from returnn.errors import ConfigValueError


def _touch_checkpoint(prefix):
    for suffix in (".index", ".meta", ".data-00000-of-00001"):
        with open(prefix + suffix, "w") as f:
            f.write("x")


def test_new_engine_and_names():
    e = EngineBase(config=Config())
    assert (e.epoch, e.global_train_step, e.pretrain, e.model_filename, e.learning_rate, e.learning_rate_control) \
        == (0, None, None, None, 0.0, None)
    assert e.get_epoch_str() == "epoch 0" and e.is_pretrain_epoch() is None and e.is_first_epoch_after_pretrain() is None
    assert EngineBase.epoch_model_filename("/x/m", 3) == "/x/m.003"
    assert EngineBase.epoch_model_filename("/x/m", 3, is_pretrain=True) == "/x/m.pretrain.003"
    with pytest.raises(ConfigValueError, match="model"):
        e.get_epoch_model_filename()
    e.model_filename = "/x/m"
    e.set_epoch(3)
    assert e.epoch == 3 and e.get_epoch_str() == "epoch 3"
    assert e.get_epoch_model_filename() == "/x/m.003" and e.get_epoch_model_filename(epoch=7) == "/x/m.007"
    assert EngineBase.config_get_final_epoch(Config({"num_epochs": 7})) == 7
    assert EngineBase.config_get_final_epoch(Config()) == 5
    for method in (e.init_network_from_config, e.init_train_from_config):
        with pytest.raises(NotImplementedError):
            method()
    with pytest.raises(NotImplementedError):
        EngineBase.delete_model("/x/m.001")


def test_existing_models_and_start_epoch(tmp_path):
    model = str(tmp_path / "m")
    config = Config({"model": model, "num_epochs": 5})
    assert EngineBase.get_existing_models(config) == {} and EngineBase.get_epoch_model(config) == (None, None)
    assert EngineBase.get_train_start_epoch(config) == 1 and EngineBase.get_start_epoch_no_existing_model(config) == 1
    _touch_checkpoint(model + ".001")
    _touch_checkpoint(model + ".002")
    assert EngineBase.get_existing_models(config) == {1: model + ".001", 2: model + ".002"}
    assert EngineBase.get_epoch_model(config) == (2, model + ".002")
    assert EngineBase.get_train_start_epoch(config) == 3
    assert EngineBase.get_epoch_model(Config({"model": model, "task": "eval"})) == (2, model + ".002")
    assert EngineBase.get_start_epoch_no_existing_model(Config({"start_epoch": 4})) == 4
    # observed with the reference: "auto" (the default of start_epoch) gives 1 here too
    assert EngineBase.get_start_epoch_no_existing_model(Config({"start_epoch": "auto"})) == 1

