"""Tests for init_datasets_from_config and the extern_data helpers."""

import pytest

from returnn.config import Config
from returnn.datasets.extern_data import (
    check_extern_data_against_dataset, get_extern_data_dict_from_dataset, get_extern_data_from_config)
from returnn.datasets.from_config import dataset_summary_lines, init_datasets_from_config
from returnn.datasets.generating import Task12AXDataset
from returnn.errors import ConfigValueError


def _config(**items):
    return Config(items)


def test_init_datasets_from_config():
    config = _config(train={"class": "Task12AXDataset", "num_seqs": 10},
                     dev={"class": "Task12AXDataset", "num_seqs": 5, "fixed_random_seed": 1},
                     eval_datasets={"dev2": {"class": "Task12AXDataset", "num_seqs": 3}},
                     batching="random", chunking="10:5")
    ds = init_datasets_from_config(config)
    train, dev = ds["train"], ds["dev"]
    assert ds["eval"] is None
    assert train.name == "train" and train.seq_ordering == "random"
    assert train.chunk_size["data"] == 10 and train.chunk_step["data"] == 5
    assert dev.name == "dev" and dev.seq_ordering == "default" and dev.chunk_size["data"] == 0
    assert set(ds["eval_datasets"]) == {"dev2"} and ds["eval_datasets"]["dev2"].name == "dev2"


def test_dataset_dict_wins_over_batching():
    config = _config(train={"class": "Task12AXDataset", "num_seqs": 10, "seq_ordering": "sorted"}, batching="random")
    assert init_datasets_from_config(config)["train"].seq_ordering == "sorted"


def test_string_dataset_in_config():
    config = _config(train="Task12AXDataset:num_seqs=4")
    assert init_datasets_from_config(config)["train"].get_total_num_seqs() == 4


def test_summary_lines():
    ds = Task12AXDataset(num_seqs=10)
    assert dataset_summary_lines(ds, with_dims=True) == [
        "  input: 9 x 1", "  output: {'classes': (2, 1), 'data': (9, 2)}",
        "  Task12AXDataset, sequences: 10, frames: unknown"]


def test_extern_data_from_dataset():
    ds = Task12AXDataset(num_seqs=2)
    ext = get_extern_data_dict_from_dataset(ds)
    assert ext["data"] == {"dim": 9, "shape": (None, 9), "sparse": False, "dtype": "float32"}
    assert ext["classes"]["dim"] == 2 and ext["classes"]["shape"] == (None,) and ext["classes"]["sparse"]
    assert ext["classes"]["dtype"] == "int32"


def test_extern_data_mismatch_names_key():
    ds = Task12AXDataset(num_seqs=2)
    with pytest.raises(ConfigValueError) as exc:
        check_extern_data_against_dataset({"data": {"dim": 100, "shape": (None, 100)}}, ds)
    msg = str(exc.value)
    assert "extern_data['data']" in msg and "100" in msg and "9" in msg
    with pytest.raises(ConfigValueError, match="sparse"):
        check_extern_data_against_dataset({"classes": {"dim": 2, "sparse": False}}, ds)
    check_extern_data_against_dataset({"data": {"dim": 9}, "classes": {"dim": 2, "sparse": True},
                                       "other": {"dim": 3}}, ds)


def test_extern_data_from_config_legacy():
    ds = Task12AXDataset(num_seqs=2)
    ext = get_extern_data_from_config(_config(num_inputs=9, num_outputs=2), ds)
    assert ext["data"]["dim"] == 9
    assert ext["classes"] == {"dim": 2, "shape": (None,), "sparse": True, "available_for_inference": False}
    with pytest.raises(ConfigValueError, match="num_outputs"):
        get_extern_data_from_config(_config(num_inputs=9, num_outputs=5), ds)
    assert get_extern_data_from_config(_config(), ds)["data"]["dim"] == 9


def test_datasets_from_the_parsed_data_options():
    from returnn.datasets.from_config import init_dataset_from_config_key, init_dataset_of_key, init_datasets
    from returnn.options import DataOptions

    config = _config(train={"class": "Task12AXDataset", "num_seqs": 6}, chunking="4:2", chunk_eval=True,
                     dev={"class": "Task12AXDataset", "num_seqs": 2}, min_chunk_size=2,
                     my_data={"class": "Task12AXDataset", "num_seqs": 3})
    opts = DataOptions.from_config(config)
    ds = init_datasets(opts)
    assert ds["train"].get_total_num_seqs() == 6 and ds["dev"].name == "dev"
    assert ds["dev"].chunk_size["data"] == 4 and ds["dev"].min_chunk_size == 2  # chunk_eval: the dev data too
    assert init_dataset_of_key(opts, "eval") is None
    with pytest.raises(ValueError, match="expected one of"):
        init_dataset_of_key(opts, "my_data")
    # a key the user names (a tool's config:<key>) is not one of DataOptions: read as given
    other = init_dataset_from_config_key(config, "my_data")
    assert other.name == "my_data" and other.get_total_num_seqs() == 3
    assert init_dataset_from_config_key(config, "no_such_key") is None


def test_num_inputs_of_a_line_based_config():
    """Observed on the reference: ``num_inputs 9`` / ``num_outputs 2`` lines give data (dim 9, dense) and classes
    (dim 2, sparse)."""
    from returnn.datasets.extern_data import extern_data_from_config

    config = Config()
    config.add_line("num_inputs", "9")
    config.add_line("num_outputs", "2")
    ext = extern_data_from_config(config)
    assert ext["data"]["dim"] == 9 and not ext["data"].get("sparse")
    assert ext["classes"]["dim"] == 2 and ext["classes"]["sparse"]
