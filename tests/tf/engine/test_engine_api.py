"""The reference's programmatic Engine API: the network flags (``use_search_flag`` ...), ``search`` with its
arguments, ``create_network``, ``_net_dict_diff``, and the public ``Runner`` signature (values observed from the
reference where noted)."""

from __future__ import annotations

import numpy as np
import pytest

from returnn.config import Config
from returnn.datasets.generating import DummyDataset
from returnn.tensor import FeatureDim, SpatialDim
from returnn.tf.engine import Engine, Runner

NET = {"output": {"class": "softmax", "loss": "ce", "from": "data:data"}}

SEARCH_NET = {
    "enc": {"class": "reduce", "mode": "max", "axis": "t", "from": "data:data"},
    "output": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": {
        "embed": {"class": "linear", "from": "prev:output", "activation": "sigmoid", "n_out": 3},
        "prob": {"class": "softmax", "from": ["embed", "base:enc"], "loss": "ce", "target": "classes"},
        "output": {"class": "choice", "beam_size": 3, "from": "prob", "target": "classes", "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0}}},
    "decision": {"class": "decide", "from": "output", "loss": "edit_distance"},
}


def _dataset(num_seqs=2, output_dim=3):
    dataset = DummyDataset(input_dim=2, output_dim=output_dim, num_seqs=num_seqs, seq_len=4)
    dataset.init_seq_order(epoch=1)
    return dataset


def _config(tmp_path, network=None, **kwargs):
    return Config({"model": str(tmp_path / "model"), "num_outputs": 3, "num_inputs": 2, "network": network or NET,
                   "batch_size": 100, **kwargs})


@pytest.mark.parametrize("task, expected", [(None, (False, True, False)), ("search", (True, True, False)),
                                            ("forward", (False, False, False)), ("eval", (False, True, False))])
def test_flags_of_a_new_engine(task, expected):
    engine = Engine(config=Config({"task": task} if task else {}))  # observed from the reference
    assert (engine.use_search_flag, engine.use_eval_flag, engine.use_dynamic_train_flag) == expected


def test_init_network_follows_the_flags(tmp_path):
    config = _config(tmp_path)
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=_dataset())
    assert engine.use_dynamic_train_flag  # as the reference
    engine.use_dynamic_train_flag = False
    engine.init_network_from_config(config)  # no checkpoint, config task train: random params, as the reference
    assert engine.network.train_flag is False and engine.network.eval_flag and not engine.network.search_flag
    assert engine.updater is None
    engine.use_eval_flag = False
    engine.init_network_from_config(config)
    assert not engine.network.eval_flag
    engine.finalize()


def test_init_train_without_data(tmp_path):
    config = _config(tmp_path)
    engine = Engine(config=config)
    engine.init_train_from_config()  # extern data from the config, as the reference allows
    assert engine.network.get_default_output_layer().output.dim == 3
    engine.finalize()


def test_search_with_arguments(tmp_path):
    config = _config(tmp_path, SEARCH_NET, num_outputs=5)
    dataset = _dataset(output_dim=5)
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=dataset)
    engine.use_search_flag = True
    engine.use_dynamic_train_flag = False
    engine.init_network_from_config(config)
    assert engine.network.search_flag
    out_file = tmp_path / "search.py"
    engine.search(dataset, output_layer_names=["decision", "output"], output_file=str(out_file),
                  output_file_format="py")
    assert engine.network.total_objective is not None and "decision" in engine.network.losses_dict
    hyps = eval(out_file.read_text())
    assert sorted(hyps) == ["seq-0", "seq-1"] and set(hyps["seq-0"]) == {"decision", "output"}
    assert hyps["seq-0"]["decision"] == hyps["seq-0"]["output"][0][1]  # the best of the n-best list
    with pytest.raises(Exception, match="search_output_layer"):
        engine.search(dataset, output_layer_names="no_such_layer")
    engine.finalize()


def test_create_network_varying_flags():
    config = _config(__import__("pathlib").Path("/nonexistent"), SEARCH_NET)
    for train_flag, eval_flag, search_flag in [(False, False, False), (True, False, False), (False, True, False),
                                               (False, False, True)]:
        network, updater = Engine.create_network(config=config, rnd_seed=0, train_flag=train_flag,
                                                 eval_flag=eval_flag, search_flag=search_flag,
                                                 net_dict=config.typed_dict["network"])
        assert network.search_flag == search_flag
        assert (updater is not None) == (train_flag is not False)


def test_net_dict_diff_compares_dims_by_kind_and_size():
    diff = Engine._net_dict_diff
    assert diff({"a": FeatureDim("out", 13)}, {"a": FeatureDim("out", 13)}) == []
    assert diff({"a": FeatureDim("out", 13)}, {"a": FeatureDim("out2", 13)}) == []  # the name does not count
    assert diff({"a": SpatialDim("t")}, {"a": SpatialDim("t")}) == []
    # observed from the reference
    assert diff({"a": FeatureDim("out", 13)}, {"a": FeatureDim("out", 17)}) == [
        "dict diff:", "['a'] self: Dim{F'out'(13)} != other: Dim{F'out'(17)}"]
    assert diff({"a": FeatureDim("out", 13)}, {"a": SpatialDim("out", 13)}) == [
        "dict diff:", "['a'] self: Dim{F'out'(13)} != other: Dim{'out'(13)}"]


def test_public_runner_signature(tmp_path):
    config = _config(tmp_path)
    dataset = _dataset(num_seqs=3)
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=dataset)
    network = engine.network
    got = []

    def callback(output, seq_tag, seq_idx):
        got.append((output.shape, seq_tag, list(seq_idx)))

    batches = dataset.generate_batches(recurrent_net=True, batch_size=100, max_seqs=2,
                                       used_data_keys=network.used_data_keys)
    runner = Runner(engine=engine, dataset=dataset, batches=batches, train=False, eval=True,
                    extra_fetches={"output": network.get_default_output_layer().output.placeholder,
                                   "seq_tag": lambda: network.get_seq_tags(),
                                   "seq_idx": network.get_extern_data("seq_idx", mark_data_key_as_used=True)},
                    extra_fetches_callback=callback)
    runner.run(report_prefix="test")
    assert runner.finalized and runner.num_steps == 2 and set(runner.score) == {"output"}
    assert got == [((2, 4, 3), ["seq-0", "seq-1"], [0, 1]), ((1, 4, 3), ["seq-2"], [2])]
    with pytest.raises(ValueError, match="training op"):
        Runner(engine=Engine(config=config), dataset=dataset, batches=batches, train=True)
    engine.finalize()


def test_side_hdf_dump_layer_runs_in_training(tmp_path):
    """An hdf_dump layer that no loss reads (is_output_layer) runs with every step, as the reference's fetches."""
    import h5py

    dump = tmp_path / "dump.hdf"
    net = dict(NET, dump={"class": "hdf_dump", "from": "data:classes", "filename": str(dump), "is_output_layer": True})
    config = _config(tmp_path, net, num_epochs=1, batch_size=4)  # frame-wise batches: one sequence (4 frames) each
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=_dataset(num_seqs=3))
    engine.train()
    engine.finalize()  # closes the file
    with h5py.File(dump, "r") as f:
        assert f.attrs["numSeqs"] == 3 and sorted(t.decode() for t in f["seqTags"][()]) == ["seq-0", "seq-1", "seq-2"]


@pytest.mark.parametrize("start_epoch", [1, 2, "auto"])
def test_init_network_after_training_loads_the_model_training_started_from(tmp_path, start_epoch):
    """Config task train, init_network_from_config after training with the same engine: with an explicit
    start_epoch the model training started from (start_epoch 1: none, the params random; 2: epoch 1's, not the
    newest), with "auto" the newest, as the reference (observed with the same steps)."""
    def weights(engine):
        return engine.network.get_default_output_layer().params["W"].eval(session=engine.tf_session)

    saved = {}
    if start_epoch == 2:
        config = _config(tmp_path, num_epochs=1)
        engine = Engine(config=config)
        engine.init_train_from_config(config=config, train_data=_dataset())
        engine.train()
        saved[1] = weights(engine)
        engine.finalize()
    config = _config(tmp_path, start_epoch=start_epoch, num_epochs=2)
    engine = Engine(config=config)
    engine.init_train_from_config(config=config, train_data=_dataset())
    engine.train()
    saved[2] = weights(engine)
    engine.init_network_from_config(config)
    loaded = {epoch: np.array_equal(weights(engine), value) for epoch, value in saved.items()}
    engine.finalize()
    assert loaded == {1: {2: False}, 2: {1: True, 2: False}, "auto": {2: True}}[start_epoch]
