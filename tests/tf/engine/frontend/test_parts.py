"""The parts of the RF engine that need no RF model: parameter checkpoint names, the loss holders of marked losses,
the score keys with error-only losses, RF config recognition and its config errors."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.options import FrontendOptions
from returnn.tf.engine.evaluation import score_keys
from returnn.tf.engine.frontend.config_entry import check_config, get_step_func, is_rf_config, step_func_name
from returnn.tf.engine.frontend.losses import RFLossHolder
from returnn.tf.engine.frontend.param_names import checkpoint_name, param_name_of_checkpoint_name
from returnn.tf.engine.runner import PassResult


@pytest.mark.parametrize("name, ckpt", [
    # observed: tf.train.list_variables of the reference's tensorflow-net-dict checkpoints
    ("layers.0.filter", "layers/0/filter/param"),
    ("seq.1.weight", "seq/1/weight/param"),
    ("norm.scale", "norm/scale/param"),
    ("emb.weight", "emb/weight/param"),
])
def test_checkpoint_name(name, ckpt):
    assert checkpoint_name(name) == ckpt
    assert param_name_of_checkpoint_name(ckpt) == name


def test_param_name_of_checkpoint_name_rejects_other_names():
    with pytest.raises(ValueError, match="global_step"):
        param_name_of_checkpoint_name("global_step")


def _values(holder: RFLossHolder):
    with tf.compat.v1.Session() as session:
        fetch = {k: v for k, v in {
            "value": holder.get_loss_value(), "error": holder.get_error_value(), "frames": holder.get_num_frames(),
            "objective": holder.get_loss_value_for_objective()}.items() if v is not None}
        return session.run(fetch)


def test_loss_holder_sum_scale_normalized():
    with tf.Graph().as_default():
        holder = RFLossHolder("ce", summed=tf.constant(12.0), num_frames=tf.constant(4.0), scale=0.5)
        assert _values(holder) == {"value": 12.0, "frames": 4.0, "objective": 6.0}
        holder = RFLossHolder("ce", summed=tf.constant(12.0), num_frames=tf.constant(4.0), scale=0.5,
                              use_normalized_loss=True)
        assert _values(holder)["objective"] == pytest.approx(1.5)


def test_loss_holder_as_error_is_not_trained():
    with tf.Graph().as_default():
        holder = RFLossHolder("fer", summed=tf.constant(3.0), num_frames=tf.constant(10.0), as_error=True)
        assert holder.get_loss_value() is None and holder.get_loss_value_for_objective() is None
        assert _values(holder) == {"error": 3.0, "frames": 10.0}


def _result(costs, errors, frames):
    names = sorted(set(costs) | set(errors))
    result = PassResult(names, cost_names=sorted(costs))
    values = {"frames:" + n: frames for n in names}
    values.update({"cost:" + n: v for n, v in costs.items()})
    values.update({"error:" + n: v for n, v in errors.items()})
    result.add(values)
    return result


def test_score_keys_with_error_only_loss():
    # observed (reference, tensorflow-net-dict, learning-rate file): ce + as_error fer -> dev_score, dev_error;
    # ce, ce2 + as_error fer -> dev_score_ce, dev_score_ce2, dev_error
    assert score_keys("dev", _result({"ce": 2.0}, {"fer": 1.0}, 4.0)) == {"dev_score": 0.5, "dev_error": 0.25}
    assert score_keys("dev", _result({"ce": 2.0, "ce2": 4.0}, {"fer": 1.0}, 4.0)) == {
        "dev_score_ce": 0.5, "dev_score_ce2": 1.0, "dev_error": 0.25}


def test_score_keys_of_layer_losses_unchanged():
    # every loss has a value (the layer engine): several losses are suffixed, errors too
    result = PassResult(["a", "b"])
    result.add({"frames:a": 2.0, "frames:b": 2.0, "cost:a": 1.0, "cost:b": 2.0, "error:a": 1.0})
    assert score_keys("dev", result) == {"dev_score_a": 0.5, "dev_score_b": 1.0, "dev_error_a": 0.5}


def _get_model(*, epoch, step, **_kwargs):
    return None


def _train_step(*, model, extern_data, **_kwargs):
    pass


def test_is_rf_config():
    assert is_rf_config(Config({"get_model": _get_model, "train_step": _train_step}))
    assert not is_rf_config(Config({"get_model": _get_model, "network": {"output": {"class": "copy"}}}))
    assert not is_rf_config(Config({"network": {"output": {"class": "copy"}}}))
    assert not is_rf_config(None)
    assert step_func_name(train=True, eval_flag=False) == "train_step"
    assert step_func_name(train=False, eval_flag=True) == "train_step"
    assert step_func_name(train=False, eval_flag=False) == "forward_step"


def test_missing_step_func_names_the_function():
    config = Config({"get_model": _get_model, "train_step": _train_step})
    assert get_step_func(FrontendOptions.from_config(config), "train_step") is _train_step
    with pytest.raises(ConfigValueError, match=r"'forward_step'.*forward_step\(\*, model, extern_data"):
        get_step_func(FrontendOptions.from_config(config), "forward_step")


def test_pretrain_with_rf_model_is_an_error():
    check_config(Config({"network": {}, "pretrain": "default"}))  # a layer config: no check here
    with pytest.raises(ConfigValueError, match="'pretrain'.*no pretrain with an RF model"):
        check_config(Config({"get_model": _get_model, "train_step": _train_step, "pretrain": "default"}))


def test_dataset_line_without_errors():
    # observed (reference, an RF model marking only "ce"): "dev: score 0.3647216558456421 error None"
    from returnn.tf.engine.evaluation import format_dataset_results

    assert format_dataset_results("dev", _result({"ce": 2.0}, {}, 4.0)) == "dev: score 0.5 error None"
    assert format_dataset_results("dev", _result({"ce": 2.0}, {"fer": 1.0}, 4.0)) == "dev: score 0.5 error 0.25"
