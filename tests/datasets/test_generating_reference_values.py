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
