"""The generated datasets give exactly the reference's sequences for the same options, seed and epoch.

Every expected value here was observed by running the reference RETURNN (``init_dataset(opts)``,
``init_seq_order(epoch)``, ``load_seqs``, ``get_data``) on the same options.
"""

import numpy as np
import pytest

from returnn.datasets import init_dataset


def _load(opts, epoch, n):
    ds = init_dataset(dict(opts))
    ds.init_seq_order(epoch=epoch)
    ds.load_seqs(0, n)
    return ds


# 12AX: symbols of "data" (one-hot over "123ABCXYZ") and "classes" (0/1), first three sequences.
_12AX_CASES = [
    ({"class": "Task12AXDataset", "num_seqs": 1000}, 1, [
        ("BY1AXX2AXC3A3Y2AXAXAX1AXBYBYZA2BYBYCB1AX3AXYAX12BY2BYBY2AXXAAZBYBYAXAX1AX1BYZBBYAAC1",
         "000010000000000000000001000000001010000100100100010010100000000101000000100000000000"),
        ("AXX3Y1BYXBYYX1B",
         "000000000000000"),
        ("2AXAXAX11AX31BYBY1AX3Z11YC2BY312BYBY2BY12AX2AXBBYX2BYAXAB2AXA2BY2",
         "00000000001000000001000000001000010100100000000010001000000000010"),
    ]),
    ({"class": "Task12AXDataset", "num_seqs": 1000}, 2, [
        ("2AX2AXBY2BY1BY2AXBYZ1XZBYBYYAX1BY1AXBYBY1BY2AX1AXBY1XAAXCBYBYXCY1BYAXX1BYBYXA",
         "00000001001000000010000000000100000100000000000010000001000000000000100000000"),
        ("2AXAXB2BY12BYAAX31AX2BY1BY1AXAXAX2A",
         "00000000100010000001001000001010100"),
        ("22BY21BYAXAXBY2BY3AXB",
         "000100000101000010000"),
    ]),
    ({"class": "Task12AXDataset", "num_seqs": 100, "fixed_random_seed": 42}, 5, [
        ("12BYAXB1AXZAX32BYBYB",
         "00010000010010001010"),
        ("2ZAXA2BYBY22ZAX2BY2BYAXAAXACB2AXY2BYAXBYAA2BYB22BY1BY1AXZ2BYBY2BAX1AXBYBY",
         "0000000101000000010010000000000000010001000010000100000100010100000010000"),
        ("AXBY2BYXAX",
         "0000001000"),
    ]),
]


@pytest.mark.parametrize("opts, epoch, expected", _12AX_CASES)
def test_12ax_reference_sequences(opts, epoch, expected):
    ds = _load(opts, epoch, len(expected))
    for i, (symbols, targets) in enumerate(expected):
        data, classes = ds.get_data(i, "data"), ds.get_data(i, "classes")
        assert data.dtype == np.float32 and data.shape == (len(symbols), 9)
        np.testing.assert_array_equal(data.sum(axis=1), 1.0)
        assert "".join("123ABCXYZ"[j] for j in data.argmax(axis=1)) == symbols
        assert classes.dtype == np.int32 and "".join(map(str, classes)) == targets
        assert ds.get_tag(i) == f"seq-{i}"


def test_12ax_seed_is_full_epoch_plus_offset():
    # Observed: random_seed_offset=1 in epoch 1 gives the sequences of epoch 2; with partition_epoch the
    # sub-epochs of one full epoch share the seed, the corpus index picks the sequence.
    a = _load({"class": "Task12AXDataset", "num_seqs": 1000, "random_seed_offset": 1}, 1, 1)
    b = _load({"class": "Task12AXDataset", "num_seqs": 1000}, 2, 1)
    np.testing.assert_array_equal(a.get_data(0, "data"), b.get_data(0, "data"))
    part = _load({"class": "Task12AXDataset", "num_seqs": 4, "partition_epoch": 2}, 2, 1)  # corpus seq 2
    full = _load({"class": "Task12AXDataset", "num_seqs": 4}, 1, 3)
    np.testing.assert_array_equal(part.get_data(0, "data"), full.get_data(2, "data"))
    assert part.get_tag(0) == "seq-2"


_COPY = {"class": "CopyTaskDataset", "nsymbols": 10, "num_seqs": 50, "minlen": 1, "maxlen_epoch_factor": 20}


@pytest.mark.parametrize("opts, epoch, expected", [
    (_COPY, 1, [[0, 4, 1, 9, 4, 3, 1, 6, 6, 2, 8], [4, 9, 3, 4, 9, 6],
                [0, 3, 7, 9, 6, 0, 3, 3, 0, 6, 9, 3, 1, 2, 0, 0, 0, 9, 9, 2]]),
    (_COPY, 4, [[5, 6, 3, 2, 4, 7, 9, 2, 3, 1, 2, 9, 9, 8, 1, 0, 5, 7, 5, 2, 7, 2, 3, 2, 6, 3, 0], [3], [5]]),
    (dict(_COPY, fixed_random_seed=42), 2, [
        [9, 8, 1, 3, 6, 9, 6, 2, 6, 5, 7], [7, 0, 0, 8, 2],
        [0, 4, 0, 4, 5, 7, 2, 0, 0, 5, 9, 4, 5, 5, 9, 1, 1, 5, 6, 0, 7, 3, 6, 1, 0, 6, 0, 4, 7, 4, 2]]),
])
def test_copy_task_reference_sequences(opts, epoch, expected):
    ds = _load(opts, epoch, len(expected))
    for i, seq in enumerate(expected):
        for key in ("data", "classes"):
            arr = ds.get_data(i, key)
            assert arr.dtype == np.int8 and arr.tolist() == seq
    assert ds.get_data_dtype("data") == "int32" and ds.is_data_sparse("data")


def test_copy_task_length_range_checked_per_epoch():
    # maxlen=0 with maxlen_epoch_factor is valid (the demo's config): the range is computed per epoch
    ds = _load({"class": "CopyTaskDataset", "nsymbols": 4, "num_seqs": 30, "minlen": 2, "maxlen": 3,
                "minlen_epoch_factor": 1, "maxlen_epoch_factor": 2}, 2, 30)
    lens = {len(ds.get_data(i, "data")) for i in range(30)}
    assert lens <= set(range(4, 8)) and len(lens) > 1  # [2 + 1 * 2, 3 + 2 * 2]
    from returnn.errors import DatasetArgError
    with pytest.raises(DatasetArgError, match="length range"):
        _load({"class": "CopyTaskDataset", "nsymbols": 4, "num_seqs": 3}, 1, 1)


@pytest.mark.parametrize("opts, epoch, expected", [
    ({"class": "TaskNumberBaseConvertDataset", "num_seqs": 10000}, 1, [
        ([2, 7, 0, 4, 1, 4], [1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0]),
        ([4, 1, 3, 7, 4, 4], [1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0]),
        ([0, 3, 0, 3, 7, 1, 6, 5], [1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1])]),
    ({"class": "TaskNumberBaseConvertDataset", "num_seqs": 10000}, 5, [
        ([2], [1, 0]), ([3, 5, 2, 5], [1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1]),
        ([6, 0, 5, 3, 0, 6, 2, 1], [1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1])]),
    ({"class": "TaskNumberBaseConvertDataset", "num_seqs": 100, "fixed_random_seed": 1, "input_base": 2,
      "output_base": 10, "max_input_seq_len": 3}, 2, [([0, 1], [1]), ([0, 1], [1]), ([1], [1])]),
])
def test_number_base_convert_reference_sequences(opts, epoch, expected):
    ds = _load(opts, epoch, len(expected))
    for i, (data, classes) in enumerate(expected):
        assert ds.get_data(i, "data").tolist() == data and ds.get_data(i, "classes").tolist() == classes
        assert ds.get_data(i, "data").dtype == np.int64
    assert ds.labels["classes"] == "0123456789"[:ds.get_data_dim("classes")]


def test_dummy_dataset_reference_values():
    # Observed: classes continue the data's count: (seq_len * input_dim + t + seq_idx) % output_dim
    ds = _load({"class": "DummyDataset", "input_dim": 3, "output_dim": 4, "num_seqs": 10}, 1, 3)
    assert [ds.get_data(i, "classes").tolist() for i in range(3)] == [[2, 3], [3, 0], [0, 1]]
    np.testing.assert_allclose(ds.get_data(1, "data").ravel(), [-0.4, -0.3, -0.2, -0.1, 0.0, 0.1], rtol=1e-6)
    ds = _load({"class": "DummyDataset", "input_dim": 7, "output_dim": 10, "num_seqs": 10}, 3, 2)
    assert ds.get_data(0, "classes").tolist() == [4, 5] and ds.get_data(1, "classes").tolist() == [5, 6]
    ds = _load({"class": "DummyDatasetMultipleSequenceLength", "input_dim": 3, "output_dim": 4, "num_seqs": 10,
                "seq_len": {"data": 4, "classes": 6}}, 2, 2)
    assert ds.get_data(1, "classes").tolist() == [1, 2, 3, 0, 1, 2] and ds.get_data(1, "classes").dtype == np.int64
    assert ds.get_data(0, "data").dtype == np.float64 and ds.get_data(0, "data")[0, 2] == (2 - 5.0) * 0.1


def _symbols(ds, i, alphabet):
    data, classes = ds.get_data(i, "data"), ds.get_data(i, "classes")
    assert data.dtype == np.float32 and classes.dtype == np.int64
    return "".join(alphabet[j] for j in data.argmax(axis=1)), "".join(alphabet[j] for j in classes)


@pytest.mark.parametrize("opts, epoch, idx, expected", [
    ({"class": "TaskXmlModelingDataset", "num_seqs": 1000}, 1, 0, (" <chaebe></chaebe>", "<       < chaebe><")),
    ({"class": "TaskXmlModelingDataset", "num_seqs": 1000}, 1, 6, (
        " <g><dcffafgd></dcffafgd><hgag></hgag></g><dcadabhb></dcadabhb>",
        "<  <         < dcffafgd><     < hgag>< g><         < dcadabhb><")),
    ({"class": "TaskXmlModelingDataset", "num_seqs": 1000, "limit_stack_depth": 2}, 2, 3, (
        " <gdche><bechbh></bechbh><eeeh></eeeh></gdche>", None)),
    ({"class": "TaskXmlModelingDataset", "num_seqs": 1000, "limit_stack_depth": 7}, 3, 0, (
        " <hfdecch></hfdecch><degcfched></degcfched>", "<        < hfdecch><          < degcfched><")),
])
def test_xml_modeling_reference_sequences(opts, epoch, idx, expected):
    ds = _load(opts, epoch, idx + 1)
    data, classes = _symbols(ds, idx, " <>/abcdefgh")
    assert data == expected[0]
    if expected[1] is not None:
        assert classes == expected[1]


@pytest.mark.parametrize("epoch, idx, expected", [
    (1, 0, ("270414          ........", "                 270414.")),
    (3, 1, ("27242                                 .......", "                                       27242.")),
    (3, 0, ("7534227" + " " * 93 + "." * 9, " " * 101 + "7534227.")),
])
def test_episodic_copy_reference_sequences(epoch, idx, expected):
    ds = _load({"class": "TaskEpisodicCopyDataset", "num_seqs": 1000}, epoch, idx + 1)
    assert _symbols(ds, idx, " .01234567") == expected
