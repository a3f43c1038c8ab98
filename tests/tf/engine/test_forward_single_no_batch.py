"""``Engine.forward_single`` of an output without batch axis: a rec layer whose unit counts the steps (``output``
from ``prev:output`` only, ``out_type`` int32 of dim 1) has a template without batch axis, ``[T, F=1]``, as the
reference's (observed); forward_single gives ``[T]`` (the reference: the axis after the time axis, of size 1, is
taken as the batch axis)."""

import numpy as np
import pytest

from returnn.config import Config
from returnn.datasets.generating import DummyDataset
from returnn.errors import LayerShapeError
from returnn.tf.engine import Engine


def _engine(tmp_path, dim):
    dataset = DummyDataset(input_dim=2, output_dim=3, num_seqs=2, seq_len=4)
    dataset.init_seq_order(epoch=1)
    config = Config({
        "model": str(tmp_path / "model"), "extern_data": {"data": {"dim": 2}, "classes": {"dim": 3, "sparse": True}},
        "network": {"output": {"class": "rec", "from": "data", "unit": {"output": {
            "class": "eval", "eval": "source(0) + 1", "from": "prev:output", "initial_output": 0,
            "out_type": {"dim": dim, "dtype": "int32"}}}}}})
    engine = Engine(config=config)
    engine.init_network_from_config(config)
    return engine, dataset


def test_counter_without_batch_axis(tmp_path):
    engine, dataset = _engine(tmp_path, 1)
    out = engine.network.get_default_output_layer().output
    assert out.batch_dim_axis is None and out.batch_shape == (None, 1) and out.dtype == "int32"
    assert engine.network.get_default_output_layer().cell.layers["output"].output.batch_shape == (1,)
    values = engine.forward_single(dataset=dataset, seq_idx=0)
    assert values.dtype == np.int32
    np.testing.assert_array_equal(values, [1, 2, 3, 4])
    engine.finalize()


def test_axis_after_time_not_of_size_one(tmp_path):
    engine, dataset = _engine(tmp_path, 3)
    with pytest.raises(LayerShapeError, match="size 1 at axis 1"):
        engine.forward_single(dataset=dataset, seq_idx=0)
    engine.finalize()
