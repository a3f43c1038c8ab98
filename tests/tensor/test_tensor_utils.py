"""returnn.tensor.utils: random numpy contents for a TensorDict (shapes follow the dims, one batch size and one
set of lengths per dynamic dim, values by dtype / sparse dim)."""

import numpy as np

from returnn.tensor import Dim, TensorDict, batch_dim
from returnn.tensor.utils import tensor_dict_fill_random_numpy_, tensor_fill_random_numpy_


def _dict():
    spatial, k, vocab = Dim(None, name="spatial"), Dim(5, name="k"), Dim(11, name="vocab")
    td = TensorDict()
    td.update({"out": {"dims": [batch_dim, spatial, k], "dtype": "int32", "sparse_dim": vocab},
               "probs": {"dims": [batch_dim, spatial, k], "dtype": "float32"},
               "mask": {"dims": [batch_dim, Dim(3, name="x")], "dtype": "bool"}}, auto_convert=True)
    return td, spatial


def test_fill_shapes_and_values():
    td, spatial = _dict()
    tensor_dict_fill_random_numpy_(td, dyn_dim_min_sizes={spatial: 3}, dyn_dim_max_sizes={spatial: 7})
    out, probs, mask = td["out"].raw_tensor, td["probs"].raw_tensor, td["mask"].raw_tensor
    lens = spatial.dyn_size
    assert isinstance(lens, np.ndarray) and lens.dtype == np.int32 and 3 <= lens.min() <= lens.max() <= 7
    assert out.shape == probs.shape == (len(lens), lens.max(), 5) and mask.shape == (len(lens), 3)
    assert out.dtype == np.int32 and 0 <= out.min() and out.max() < 11
    assert probs.dtype == np.float32 and mask.dtype == bool
    assert batch_dim.dyn_size_ext is None  # the global batch dim is left alone


def test_fill_is_seeded_and_keeps_existing():
    results = []
    for _ in range(2):
        td, spatial = _dict()
        tensor_dict_fill_random_numpy_(td, rnd=7)
        results.append((spatial.dyn_size.tolist(), td["probs"].raw_tensor.copy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    td, _ = _dict()
    td["mask"].raw_tensor = np.zeros((2, 3), bool)
    assert not tensor_fill_random_numpy_(td["mask"])
    assert tensor_fill_random_numpy_(td["out"], min_val=4, max_val=6, batch_size=2)
    assert td["out"].raw_tensor.shape[0] == 2 and set(np.unique(td["out"].raw_tensor)) <= {4, 5}
