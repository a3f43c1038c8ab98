"""A network without layers over time is trained and evaluated on frames, as the reference: the sequences are
concatenated and cut into batches of ``batch_size`` frames (values observed by running the reference on this config:
RETURNN 1.20261022, the same seeds and data)."""

import re

from returnn.config import Config
from returnn.log import log


def _config(tmp_path, network, **extra):
    config = Config()
    config.update({
        "task": "train", "train": {"class": "Task12AXDataset", "num_seqs": 20},
        "dev": {"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 1},
        "num_inputs": 9, "num_outputs": 2, "network": network, "batch_size": 100, "num_epochs": 1,
        "model": str(tmp_path / "model"), "log_verbosity": 5, "log_batch_size": True, **extra})
    return config


def _run(config, capsys):
    from returnn.tasks import run_task

    log.init_by_config(config)
    run_task(config, "train")
    return capsys.readouterr().out


def test_feed_forward_network_trains_on_frames_as_the_reference(tmp_path, capsys):
    out = _run(_config(tmp_path, {"out": {"class": "softmax", "loss": "ce", "from": "data"}}), capsys)
    steps = re.findall(r"^train epoch 1, step (\d+), cost:out ([0-9.]+), error:out ([0-9.]+), loss [0-9.]+, "
                       r"max_size:classes (\d+), max_size:data (\d+), num_seqs (\d+),", out, re.M)
    # 1016 frames in 20 sequences: ten batches of 100 frames, then 16; each batch one slice
    assert [int(s[3]) for s in steps] == [100] * 10 + [16]
    assert all(int(s[5]) == 1 for s in steps)
    observed = [0.7967786, 12.8354845, 9.464335, 2.4151895, 6.5375614, 3.3686967, 4.3227105, 2.5757926, 6.6504436,
                4.4644675, 14.162381]  # the reference's cost:out per step
    assert [round(float(s[1]), 4) for s in steps] == [round(v, 4) for v in observed]
    score = float(re.search(r"^epoch 1 score: ([0-9.]+) error: ([0-9.]+)", out, re.M).group(1))
    assert abs(score - 5.48203182220459) < 1e-5
    dev = re.search(r"^dev: score ([0-9.]+) error ([0-9.]+)$", out, re.M)
    assert abs(float(dev.group(1)) - 5.617569923400879) < 1e-5 and abs(float(dev.group(2)) - 0.2024291455745697) < 1e-6
    assert "epoch 1 'dev' eval, finished after 5 steps" in out  # 494 frames


def test_network_with_a_layer_over_time_keeps_whole_sequences(tmp_path, capsys):
    out = _run(_config(tmp_path, {"conv": {"class": "conv", "filter_size": [3], "padding": "same", "n_out": 4,
                                           "from": "data"},
                                  "out": {"class": "softmax", "loss": "ce", "from": "conv"}}, learning_rate=0.01), capsys)
    sizes = [int(m) for m in re.findall(r"^train epoch 1, step \d+, .*max_size:data (\d+),", out, re.M)]
    # whole sequences (the longest is 97 frames): never a batch cut at 100 frames across sequences
    assert 97 in sizes and 100 not in sizes
