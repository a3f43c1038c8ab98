"""returnn.sprint.interface in forward-only mode: RASR's config string, the epoch's checkpoint, posteriors
``[OutputDim, T]`` equal to the softmax of the saved params (numpy)."""

import numpy
import pytest

from returnn.errors import ConfigValueError
import returnn.sprint.interface as sprint_api


def test_forward_posteriors_from_epoch_checkpoint(tmp_path, monkeypatch):
    import tensorflow as tf


    monkeypatch.chdir(tmp_path)
    lines = ["#!rnn.py", "use_tensorflow = True", "model = '%s/model'" % tmp_path, "num_outputs = 3",
             "num_inputs = 2", 'network = {"output": {"class": "softmax", "loss": "ce", "from": "data:data"}}']
    (tmp_path / "config").write_text("\n".join(lines))
    rng = numpy.random.RandomState(0)
    params = {"W": rng.normal(size=(2, 3)).astype("float32"), "b": rng.normal(size=(3,)).astype("float32")}
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:  # the checkpoint of epoch 1
        variables = [tf.compat.v1.get_variable("output/" + name, initializer=value) for name, value in params.items()]
        variables.append(tf.compat.v1.get_variable("global_step", initializer=numpy.int64(1)))
        session.run(tf.compat.v1.global_variables_initializer())
        tf.compat.v1.train.Saver(variables).save(session, str(tmp_path / "model.001"), write_meta_graph=False)

    with pytest.raises(ConfigValueError):
        sprint_api.init(inputDim=2, outputDim=3, config="action:train,configfile:config", targetMode="criterion-by-sprint")
    sprint_api.init(inputDim=2, outputDim=3, config="action:forward,configfile:config,epoch:1", targetMode="forward-only")
    features = numpy.array([[0.1, 0.2], [0.2, 0.3], [0.3, -0.4], [0.4, 0.5]], "float32")
    posteriors = sprint_api._forward("segment1", features.T)
    sprint_api.exit()
    assert sprint_api.engine is None
    logits = features @ params["W"] + params["b"]
    expected = numpy.exp(logits) / numpy.exp(logits).sum(-1, keepdims=True)
    assert posteriors.shape == (3, 4)
    numpy.testing.assert_allclose(posteriors.T, expected, rtol=1e-5)


def test_config_string_needs_key_value():
    with pytest.raises(ConfigValueError):
        sprint_api.init(inputDim=2, outputDim=3, config="action:forward,configfile", targetMode="forward-only")


def test_action_nop_creates_the_engine_without_a_network(tmp_path):
    """``action:nop`` (the reference's demo-sprint-interface.py): the config is read and the engine created, no
    network is built and no model loaded (the epoch's checkpoint file is an empty placeholder there), as the
    reference (observed: ``Task == "nop"``, ``engine.network is None``)."""
    lines = ["#!rnn.py", "use_tensorflow = True", "num_inputs, num_outputs = 3, 5",
             "network = {'output': {'class': 'softmax', 'target': 'classes'}}", "model = %r" % f"{tmp_path}/model"]
    (tmp_path / "returnn.config").write_text("\n".join(lines))
    (tmp_path / "model.001.meta").write_text("")
    sprint_api.init(inputDim=3, outputDim=5, cudaEnabled=0, targetMode="forward-only",
                    config=f"epoch:1,action:nop,configfile:{tmp_path}/returnn.config")
    try:
        assert sprint_api.Task == "nop" and sprint_api.engine is not None and sprint_api.engine.network is None
        assert sprint_api.InputDim == 3 and sprint_api.OutputDim == 5
    finally:
        sprint_api.exit()
    with pytest.raises(ConfigValueError, match="'forward' or 'nop'"):
        sprint_api.init(inputDim=3, outputDim=5, targetMode="forward-only",
                        config=f"action:train,configfile:{tmp_path}/returnn.config")
