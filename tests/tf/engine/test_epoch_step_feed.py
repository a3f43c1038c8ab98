"""The engine feeds the network's ``epoch_step`` placeholder (a state kept over the epoch restarts at step 0)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from returnn.tf.engine.runner import _StepFeeds
from tests.tf.engine.test_training import make_config, run_task


def test_training_with_a_state_kept_over_the_epoch(tmp_path):
    # without the feed, the first step stops with "You must feed a value for placeholder tensor 'epoch_step'"
    # every batch has 4 sequences (the kept state's batch size stays the same within the epoch)
    config = make_config(tmp_path, num_epochs=1, max_seqs=4, batch_size=100000,
                         train={"class": "Task12AXDataset", "num_seqs": 32, "fixed_random_seed": 1},
                         dev={"class": "Task12AXDataset", "num_seqs": 8, "fixed_random_seed": 2}, network={
        "lstm": {"class": "rec", "unit": "lstm", "n_out": 5, "initial_state": "keep_over_epoch", "from": "data"},
        "output": {"class": "softmax", "loss": "ce", "from": "lstm"}})
    run_task(config)
    assert (tmp_path / "models" / "model.001.index").exists()


def test_step_feeds_give_the_step_within_the_pass():
    graph = tf.Graph()
    with graph.as_default():
        ph = tf.compat.v1.placeholder(tf.int64, shape=(), name="epoch_step")
    feeds = _StepFeeds([], [], None, None, None, None, global_step_offset=100, epoch_step_ph=ph)
    assert feeds.placeholders() == [ph]

    class Batch:
        pass

    values = feeds.values(Batch(), own_data=True, step=3)
    assert values == [3] and values[0].dtype == np.int64
