"""forward (HDF, callback), compute_priors, analyze_data, preload/import, cleanup policy, device errors."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ConfigValueError
from tests.tf.engine import standin
from tests.tf.engine.test_training import make_config, run_task

EVAL = {"class": "Task12AXDataset", "num_seqs": 6, "fixed_random_seed": 3}


def _probs(checkpoint, x):
    reader = tf.compat.v1.train.NewCheckpointReader(checkpoint)
    logits = x.astype(np.float64) @ reader.get_tensor("output/W") + reader.get_tensor("output/b")
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _eval_seqs():
    from returnn.datasets import init_dataset

    ds = init_dataset(EVAL, default_kwargs={"name": "eval", "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    out = {}
    i = 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out[ds.get_tag(i)] = ds.get_data(i, "data")
        i += 1
    return out


def test_forward_to_hdf_matches_numpy(tmp_path, monkeypatch, capsys):
    from returnn.datasets.hdf import HDFDataset

    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    out_file = tmp_path / "fwd.hdf"
    out = run_task(make_config(tmp_path, task="forward", eval=EVAL, forward_batch_size=500,
                               output_file=str(out_file)), capsys=capsys)
    assert "Forwarding to HDF file: %s" % out_file in out
    assert os.path.exists(out_file) and not [n for n in os.listdir(tmp_path) if "tmp" in n]
    ds = HDFDataset(files=[str(out_file)])
    ds.init_seq_order(epoch=1)
    seqs = _eval_seqs()
    assert ds.num_seqs == len(seqs)
    ckpt = str(tmp_path / "models" / "model.001")
    for i in range(ds.num_seqs):
        ds.load_seqs(i, i + 1)
        tag = ds.get_tag(i)
        np.testing.assert_allclose(ds.get_data(i, "data"), _probs(ckpt, seqs[tag]), rtol=1e-4, atol=1e-6)
    # no overwrite without forward_override_hdf_output
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, task="forward", eval=EVAL, forward_batch_size=500,
                             output_file=str(out_file)), capsys=capsys)
    assert "forward_override_hdf_output" in str(exc.value)
    run_task(make_config(tmp_path, task="forward", eval=EVAL, forward_batch_size=500, output_file=str(out_file),
                         forward_override_hdf_output=True), capsys=capsys)


def test_forward_of_time_major_output_logged_batch_major(tmp_path, capsys):
    """A rec layer's output is time-major; the log shows it batch-major, as written and as the reference prints."""
    net = {"fw": {"class": "rec", "unit": "lstm", "n_out": 4, "from": "data"},
           "output": {"class": "softmax", "loss": "ce", "from": "fw"}}
    out_file = tmp_path / "fwd.hdf"
    out = run_task(make_config(tmp_path, task="forward", eval=EVAL, forward_batch_size=500, network=net,
                               allow_random_model_init=True, output_file=str(out_file), log_verbosity=4),
                   capsys=capsys)
    assert ("Forward output: Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],"
            "F|F'classes:sparse-dim'(2)]}\n") in out
    assert os.path.exists(out_file)


def test_forward_callback(tmp_path, monkeypatch, capsys):
    from returnn.forward_iface import ForwardCallbackIface

    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    events = []

    class Callback(ForwardCallbackIface):
        def init(self, *, model):
            events.append("init")

        def process_seq(self, *, seq_tag, outputs):
            events.append((seq_tag, outputs["output"].raw_tensor.copy()))

        def finish(self):
            events.append("finish")

    run_task(make_config(tmp_path, task="forward", eval=EVAL, forward_batch_size=500, forward_callback=Callback),
             capsys=capsys)
    assert events[0] == "init" and events[-1] == "finish"
    seqs = _eval_seqs()
    got = dict(events[1:-1])
    assert set(got) == set(seqs)
    ckpt = str(tmp_path / "models" / "model.001")
    for tag, x in seqs.items():
        np.testing.assert_allclose(got[tag], _probs(ckpt, x), rtol=1e-4, atol=1e-6)


def test_compute_priors(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    prior_file = tmp_path / "prior.txt"
    prior_file.write_text("old\n")  # replaced, as the reference does
    out = run_task(make_config(tmp_path, task="compute_priors", train=EVAL, forward_batch_size=500,
                               output_file=str(prior_file), log_verbosity=4), capsys=capsys)
    priors = np.loadtxt(prior_file)
    ckpt = str(tmp_path / "models" / "model.001")
    frames = np.concatenate([_probs(ckpt, x) for x in _eval_seqs().values()])
    np.testing.assert_allclose(priors, np.log(frames.mean(0)), rtol=1e-4)
    # the reference's log lines (verbosity 4)
    assert "Compute priors, using output layer " in out and ", writing to %r.\n" % str(prior_file) in out
    prior_sum = re.search(r"^Prior sum in std-space \(should be close to 1\.0\): ([0-9.e-]+)$", out, re.M)
    assert float(prior_sum.group(1)) == pytest.approx(1.0, abs=1e-6)
    assert "Saved prior in %r in +log space.\n" % str(prior_file) in out


def test_analyze_data(tmp_path, monkeypatch, capsys):
    prefix = tmp_path / "stats"
    run_task(make_config(tmp_path, task="analyze_data", train=EVAL, statistics_save_prefix=str(prefix)),
             capsys=capsys)
    xs = np.concatenate(list(_eval_seqs().values()))
    np.testing.assert_allclose(np.loadtxt(str(prefix) + ".mean.txt"), xs.mean(0), atol=1e-6)
    np.testing.assert_allclose(np.loadtxt(str(prefix) + ".std_dev.txt"), xs.std(0), atol=1e-6)
    assert os.path.exists(str(prefix) + ".log_priors.txt")


def test_import_model_train_epoch1_and_preload(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path / "a", num_epochs=1), capsys=capsys)
    src = str(tmp_path / "a" / "models" / "model.001")
    w_src = tf.compat.v1.train.NewCheckpointReader(src).get_tensor("output/W")
    out = run_task(make_config(tmp_path / "b", num_epochs=1, learning_rate=0.0, import_model_train_epoch1=src),
                   capsys=capsys)
    assert "start training at epoch 1" in out
    w_b = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "b" / "models" / "model.001")).get_tensor("output/W")
    np.testing.assert_allclose(w_b, w_src)  # lr 0: unchanged
    out = run_task(make_config(tmp_path / "c", num_epochs=1, learning_rate=0.0, preload_from_files={
        "x": {"filename": src, "init_for_train": True, "prefix": ""}}), capsys=capsys)
    w_c = tf.compat.v1.train.NewCheckpointReader(str(tmp_path / "c" / "models" / "model.001")).get_tensor("output/W")
    np.testing.assert_allclose(w_c, w_src)


def test_preload_without_init_for_train_is_skipped_in_training_with_a_warning(tmp_path, monkeypatch, capsys):
    """As the reference (observed): in training, an entry without init_for_train is not loaded (a missing file is not
    even noticed); here a warning names the entry, the file and the key."""
    standin.install(monkeypatch)
    missing = str(tmp_path / "no-such-model")
    out = run_task(make_config(tmp_path, num_epochs=1, preload_from_files={"enc": {"filename": missing}}),
                   capsys=capsys)
    assert "start training at epoch 1" in out and "Start pre-loading weights" not in out
    assert (f"WARNING: preload_from_files['enc'] (file {missing!r}) is not loaded in training: its 'init_for_train' "
            f"is not set, so training starts from scratch; set \"init_for_train\": True to initialise the training "
            f"with it") in out


def test_cleanup_policy_matches_reference_observations():
    from returnn.engine.checkpoint_files import CleanupOptions, default_keep_pattern, select_epochs_to_keep

    # observed with the reference: 40 epochs, dev_score 1.0 + ((ep*7) % 11) / 10, train_score constant
    scores = {ep: {"dev_score": 1.0 + ((ep * 7) % 11) / 10.0, "train_score": 1.0} for ep in range(1, 41)}
    keep = select_epochs_to_keep(range(1, 41), scores, CleanupOptions(True, num_epochs=40))
    assert sorted(keep) == [5, 8, 10, 11, 20, 22, 33, 39, 40]
    assert default_keep_pattern(100) == {10, 20, 40, 80}
    assert default_keep_pattern(300) == {20, 40, 80, 160}
    assert default_keep_pattern(12) == {5, 10}
    with pytest.raises(ConfigValueError):
        CleanupOptions({"keep_lastn": 1}, num_epochs=5)


def test_cleanup_during_training(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=4, cleanup_old_models={"keep_last_n": 1, "keep_best_n": 0, "keep": []}),
             capsys=capsys)
    names = sorted(n for n in os.listdir(tmp_path / "models") if n.endswith(".index"))
    assert names == ["model.004.index"]


def test_device_gpu_without_gpu(tmp_path, monkeypatch, capsys):
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("machine has a GPU")
    standin.install(monkeypatch)
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, device="gpu"), capsys=capsys)
    assert "'device'" in str(exc.value) and "cpu" in str(exc.value)


def test_initialize_model_and_nop_init_net_train(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    model = str(tmp_path / "init" / "model")
    run_task(make_config(tmp_path, task="initialize_model", model=model), capsys=capsys)
    names = tf.compat.v1.train.NewCheckpointReader(model).get_variable_to_shape_map()
    assert set(names) == {"output/W", "output/b", "global_step"}  # as the reference's: no optimizer state
    out = run_task(make_config(tmp_path, task="nop_init_net_train"), capsys=capsys)
    assert "nop_init_net_train" in out and "train epoch" not in out


def test_initialize_model_without_train_dataset(tmp_path, monkeypatch, capsys):
    """As the reference: the network's shapes come from extern_data, no 'train' is needed."""
    standin.install(monkeypatch)
    model = str(tmp_path / "init" / "model")
    run_task(make_config(tmp_path, task="initialize_model", model=model, train=None, dev=None), capsys=capsys)
    shapes = tf.compat.v1.train.NewCheckpointReader(model).get_variable_to_shape_map()
    assert shapes["output/W"] == [9, 2] and "global_step" in shapes


def test_search_without_dataset(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, task="search", allow_random_model_init=True), capsys=capsys)
    assert "'search_data'" in str(exc.value)


def test_missing_data_key_names_the_key(tmp_path, monkeypatch, capsys):
    """The dataset lacks 'classes' which the training graph needs: one error naming the key and the dataset."""
    standin.install(monkeypatch)
    from returnn.tf.engine import runner

    monkeypatch.setattr(runner.Runner, "_data_keys", lambda self: ["data"])
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    assert "'classes'" in str(exc.value) and "train epoch 1" in str(exc.value)


def test_programmatic_api_forward_single(tmp_path, monkeypatch, capsys):
    """Engine(config) + init_network_from_config + forward_single, as scripts use the reference's engine."""
    from returnn.datasets import init_dataset
    from returnn.log import log
    from returnn.tf.engine import Engine, get_global_engine

    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    config = make_config(tmp_path, task="forward", log_verbosity=2)
    log.init_by_config(config)
    assert Engine.get_epoch_model(config) == (1, str(tmp_path / "models" / "model.001"))
    engine = Engine(config=config)
    assert get_global_engine() is engine
    engine.init_network_from_config(config)
    ds = init_dataset(EVAL, default_kwargs={"name": "eval", "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    seqs = _eval_seqs()
    out = engine.forward_single(ds, 2)
    np.testing.assert_allclose(out, _probs(str(tmp_path / "models" / "model.001"), seqs[ds.get_tag(2)]),
                               rtol=1e-4, atol=1e-6)
    engine.finalize()


def test_analyze_task_not_provided(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    with pytest.raises(ConfigValueError) as exc:
        run_task(make_config(tmp_path, task="analyze"), capsys=capsys)
    assert "'analyze'" in str(exc.value) and "analyze_data" in str(exc.value)


def test_train_with_hdf_dump_layer_feeds_seq_tags(tmp_path, monkeypatch, capsys):
    """An hdf_dump layer adds the extern data ``seq_tag``; the engine feeds the batch's tags into it."""
    import h5py

    dump = tmp_path / "dump.hdf"
    # a layer over time (conv): batches of whole sequences (a frame-wise network's batches are cut across them)
    net = {"conv": {"class": "conv", "filter_size": [3], "padding": "same", "n_out": 4, "from": "data"},
           "dump": {"class": "hdf_dump", "filename": str(dump), "from": "conv"},
           "output": {"class": "softmax", "loss": "ce", "from": "dump"}}
    run_task(make_config(tmp_path, num_epochs=1, network=net, dev=None), capsys=capsys)  # file closed at the end
    with h5py.File(dump, "r") as f:
        tags = sorted(t.decode() for t in f["seqTags"][()])
    assert len(tags) == 30 and len(set(tags)) == 30
