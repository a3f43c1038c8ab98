"""TensorDict and Tensor arithmetic on raw tensors; expected keys and values as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import TensorArgError
from returnn.tensor import Dim, Tensor, TensorDict


def _seq_dict():
    time, feat, vocab = Dim(None, name="time"), Dim(3, name="feat"), Dim(5, name="vocab")
    td = TensorDict()
    td.update({"data": {"dims": [time, feat], "dtype": "float32"},
               "classes": {"dims": [time], "dtype": "int32", "sparse_dim": vocab}}, auto_convert=True)
    return td, time, feat, vocab


def test_update_auto_convert_and_access():
    td, time, feat, vocab = _seq_dict()
    assert list(td.data) == ["data", "classes"]
    assert "data" in td and "x" not in td
    assert td["classes"].sparse_dim is vocab and td["classes"].dtype == "int32"
    assert td["data"].dims == (time, feat)
    assert td.all_dims() == [time, feat]
    with pytest.raises(KeyError):
        td["nope"]
    with pytest.raises(TensorArgError, match="auto_convert"):
        td.update({"x": {"dims": [time]}})  # a dict without auto_convert
    with pytest.raises(TensorArgError):
        td.update({"x": 3}, auto_convert=True)
    td2 = TensorDict({"a": td["data"]})
    assert td2["a"] is td["data"]
    assert repr(TensorDict()) == "TensorDict({})"


def test_copy_template_and_reset_content():
    td, time, _, _ = _seq_dict()
    td["data"].raw_tensor = np.zeros((4, 3), "float32")
    tmpl = td.copy_template()
    assert tmpl["data"] is not td["data"] and tmpl["data"].dims[0] is time
    assert tmpl["data"].raw_tensor is None
    time.dyn_size = np.array(4, "int32")
    td.reset_content()
    assert td["data"].raw_tensor is None and time.dyn_size is None


def test_raw_tensor_dict_keys_as_reference():
    td, time, _, _ = _seq_dict()
    td["data"].raw_tensor = np.zeros((4, 3), "float32")
    td["classes"].raw_tensor = np.arange(4, dtype="int32")
    time.dyn_size = np.array(4, "int32")
    # observed from the reference (a sequence without batch axis: the time size is a scalar)
    assert list(td.as_raw_tensor_dict()) == ["data", "data:size0", "classes", "classes:size0"]
    full = td.as_raw_tensor_dict(include_const_sizes=True)
    assert list(full) == ["data", "data:size0", "data:size1", "classes", "classes:size0"] and full["data:size1"] == 3
    assert list(td.as_raw_tensor_dict(exclude_duplicate_dims=True)) == ["data", "data:size0", "classes"]
    assert list(td.as_raw_tensor_dict(include_scalar_dyn_sizes=False)) == ["data", "classes"]
    with pytest.raises(TensorArgError, match="expected a raw tensor of type"):
        td.as_raw_tensor_dict(expected_value_type=int)

    raw = td.as_raw_tensor_dict()
    td.reset_content()
    td.assign_from_raw_tensor_dict_(raw)
    assert td["classes"].raw_tensor.tolist() == [0, 1, 2, 3]
    assert int(time.dyn_size) == 4
    with pytest.raises(TensorArgError, match="no raw tensor for 'classes'"):
        td.assign_from_raw_tensor_dict_({"data": raw["data"]})


def test_tensor_arithmetic_on_numpy_raw():
    time, vocab, feat = Dim(None, name="t"), Dim(5, name="v"), Dim(2, name="f")
    x = Tensor("classes", dims=[time], dtype="int32", sparse_dim=vocab)
    x.raw_tensor = np.arange(3, dtype="int32")
    y = x
    x += 1337
    assert x is not y and x.name == "add" and x.sparse_dim is vocab and x.dims == (time,)
    assert x.raw_tensor.tolist() == [1337, 1338, 1339] and x.raw_tensor.dtype == np.int32
    assert (y + 1.5).raw_tensor.tolist() == [1, 2, 3]  # the scalar is cast to int32 first (observed)
    assert (2 - y).raw_tensor.tolist() == [2, 1, 0] and (y * 2).name == "mul" and (y ** 2).raw_tensor.tolist() == [0, 1, 4]
    f = Tensor("f", dims=[time], dtype="float32")
    f.raw_tensor = np.array([1.0, 2.0, 3.0], "float32")
    g = Tensor("g", dims=[time, feat], dtype="float32")
    g.raw_tensor = np.ones((3, 2), "float32")
    prod = f * g
    assert prod.dims == (time, feat)
    np.testing.assert_allclose(prod.raw_tensor, np.array([[1, 1], [2, 2], [3, 3]], "float32"))
    with pytest.raises(TensorArgError, match="same dtype"):
        f + y
    with pytest.raises(TensorArgError, match="template"):
        Tensor("t", dims=[time]) + 1


def test_raw_tensor_dict_with_batch_dim():
    from returnn.tensor import batch_dim

    time = Dim(None, name="time")
    td = TensorDict()
    td.update({"data": {"dims": [batch_dim, time], "dtype": "float32"}}, auto_convert=True)
    td["data"].raw_tensor = np.zeros((2, 5), "float32")
    time.dyn_size = np.array([5, 3], "int32")
    raw = td.as_raw_tensor_dict()
    # as the reference names them: the batch size (a scalar) under size0, the lengths under size1
    assert list(raw) == ["data", "data:size0", "data:size1"]
    assert int(raw["data:size0"]) == 2 and raw["data:size1"].tolist() == [5, 3]
    assert list(td.as_raw_tensor_dict(include_scalar_dyn_sizes=False)) == ["data", "data:size1"]
