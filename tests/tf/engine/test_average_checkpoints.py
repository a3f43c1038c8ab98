"""The average_checkpoints option: rnn.py trains the 12AX demo setup for 3 epochs and writes <model>.avg.NNN, the
average of the last 2 epoch checkpoints, which rnn.py then loads for the forward task.

The arithmetic (float64 mean cast back, global_step from the newest) is that of tools/tf_avg_checkpoints.py, whose
results were observed bit-identical to the reference's tool (tests/tools/test_tf_avg_checkpoints.py); here the
expectation is computed with numpy from the epoch checkpoints."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

CONFIG = """#!rnn.py
use_tensorflow = True
task = "train"
train = {"class": "Task12AXDataset", "num_seqs": 40, "fixed_random_seed": 1}
dev = {"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2}
num_inputs = 9
num_outputs = 2
batch_size = 5000
max_seqs = 10
network = {
    "fw0": {"class": "rec", "unit": "nativelstm", "n_out": 10},
    "output": {"class": "softmax", "loss": "ce", "from": ["fw0"]},
}
optimizer = {"class": "adam"}
learning_rate = 0.01
num_epochs = 3
log_verbosity = 3
"""


def _rnn(*args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=REPO_ROOT)
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "rnn.py"), *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=env, timeout=600)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    return proc.stdout


def _read(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_train_average_and_forward(tmp_path):
    from returnn.engine.checkpoint_files import get_existing_epochs

    config = tmp_path / "12ax.config"
    config.write_text(CONFIG)
    model = str(tmp_path / "model")
    out = _rnn(str(config), "++model", model, "++average_checkpoints", "2", "++cleanup_old_models",
               "{'keep_last_n': 1, 'keep_best_n': 0, 'keep': []}")
    assert "Saved the average of epochs [1, 2] (last 2) as %s.avg.002." % model in out
    assert "Saved the average of epochs [2, 3] (last 2) as %s.avg.003." % model in out
    # one average at a time; the cleanup keeps epoch 2 (needed for the next average) besides the last one
    assert get_existing_epochs(model + ".avg") == [3]
    assert get_existing_epochs(model) == [2, 3]
    avg, ep2, ep3 = _read(model + ".avg.003"), _read(model + ".002"), _read(model + ".003")
    assert sorted(avg) == sorted(ep3)
    assert avg["global_step"] == ep3["global_step"] and avg["global_step"].dtype == np.int64
    for name, value in avg.items():
        if name != "global_step":
            expected = ((ep2[name].astype(np.float64) + ep3[name]) / 2).astype(ep3[name].dtype)
            np.testing.assert_array_equal(value, expected, err_msg=name)
    # the epoch checkpoint state file still names the epochs only
    assert tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path == model + ".003"

    # forward with the average, loaded as epoch 3 of the model <model>.avg
    hdf = str(tmp_path / "forward.hdf")
    out = _rnn(str(config), "++task", "forward", "++model", model + ".avg", "++load_epoch", "3", "++output_file", hdf,
               "++forward_batch_size", "1000", "++eval", "{'class': 'Task12AXDataset', 'num_seqs': 3, "
                                                         "'fixed_random_seed': 3}")
    assert "loading weights from %s.avg.003" % model in out
    import h5py

    with h5py.File(hdf, "r") as f:
        outputs = f["inputs"][...]
    # the softmax output of the averaged params: 2 probabilities per frame
    assert outputs.shape[1] == 2
    np.testing.assert_allclose(outputs.sum(axis=1), 1.0, rtol=1e-5)


def test_options_and_epoch_choice():
    from returnn.engine.checkpoint_averaging import AveragingOptions, epochs_to_average
    from returnn.errors import ConfigValueError

    scores = {1: {"dev_score": 0.5, "dev_score_output": 0.5, "dev_error": 0.3}, 2: {"dev_score": 0.2, "dev_error": 0.4},
              3: {"dev_score": 0.4, "dev_error": 0.1}, 4: {"dev_score": 0.2, "dev_error": 0.2}}
    error_key = lambda epoch: "dev_score"  # noqa: E731
    assert epochs_to_average([1, 2, 3, 4], scores, AveragingOptions(3), error_key) == [2, 3, 4]
    assert epochs_to_average([1, 2], scores, AveragingOptions({"last_n": 3}), error_key) is None
    # best by dev_score, ties: the earlier epoch; returned oldest first
    assert epochs_to_average([1, 2, 3, 4], scores, AveragingOptions({"best_n": 2}), error_key) == [2, 4]
    assert epochs_to_average([1, 2, 3, 4], scores, AveragingOptions({"best_n": 3}), error_key) == [2, 3, 4]
    assert epochs_to_average([1, 2, 3, 4], scores, AveragingOptions({"best_n": 2, "key": "dev_error"}),
                             error_key) == [3, 4]
    # only epochs with a checkpoint count
    assert epochs_to_average([1, 3], scores, AveragingOptions({"best_n": 2}), error_key) == [1, 3]
    for bad in (0, True, "3", {"last_n": 2, "best_n": 2}, {"lastn": 2}, {"last_n": 2, "key": "dev_score"}, {}):
        with pytest.raises(ConfigValueError, match="average_checkpoints"):
            AveragingOptions(bad)
