"""RF names and behaviours that the published i6_experiments setups rely on (found by benchmarks/rf-setups): each
against the reference's behaviour as observed by running it, or numpy."""

import numpy as np
import pytest

import returnn.frontend as rf
from returnn.errors import TensorArgError
from returnn.frontend.decoder.transformer import TransformerDecoder
from returnn.tensor import Dim, Tensor, batch_dim


def test_dim_get_size_tensor(g):
    """Observed in the reference: a static dim gives a scalar int32 Tensor ``<name>:size`` of its size; a dim with
    lengths gives its ``dyn_size_ext`` itself."""
    rf.select_backend_tf()
    s = Dim(5, name="s")
    size = s.get_size_tensor()
    assert (size.name, size.dims, size.dtype) == ("s:size", (), "int32")
    assert g.run(size) == 5
    t = g.time_dim([3, 2])
    assert t.get_size_tensor() is t.dyn_size_ext
    np.testing.assert_array_equal(g.run(t.get_size_tensor()), [3, 2])
    with pytest.raises(TensorArgError, match="size tensor"):
        Dim(None, name="unknown").get_size_tensor()


def test_tensor_remaining_dims():
    """Observed in the reference: the dims in their order without ``remove`` (a dim or a sequence; None: all)."""
    t, f = Dim(None, name="t"), Dim(3, name="f")
    x = Tensor("x", [batch_dim, t, f], "float32")
    assert x.remaining_dims(t) == [batch_dim, f]
    assert x.remaining_dims([t, f]) == [batch_dim]
    assert x.remaining_dims() == x.remaining_dims(()) == [batch_dim, t, f]
    with pytest.raises(TensorArgError, match="not one of its dims"):
        x.remaining_dims(Dim(4, name="other"))


def test_max_pool_takes_padded_frames_as_they_are(g):
    """Observed in the reference's TF backend: pooling does not mask the padding (sequence 1 has 3 frames, its
    padded frame holds 100; a window reaching into it takes 100)."""
    rf.select_backend_tf()
    t = g.time_dim([4, 3])
    f = Dim(2, name="F")
    x = np.arange(16, dtype=np.float32).reshape(2, 4, 2) - 20.0
    x[1, 3] = 100.0
    xt = g.const("x", [batch_dim, t, f], x)
    y, t1 = rf.pool1d(xt, mode="max", pool_size=2, padding="same", in_spatial_dim=t, strides=1)
    np.testing.assert_array_equal(g.run(y.copy_transpose([batch_dim, t1, f]))[1],
                                  [[-10, -9], [-8, -7], [100, 100], [100, 100]])
    y2, t2 = rf.pool1d(xt, mode="max", pool_size=2, padding="same", in_spatial_dim=t)
    np.testing.assert_array_equal(g.run(y2.copy_transpose([batch_dim, t2, f]))[1], [[-10, -9], [100, 100]])
    np.testing.assert_array_equal(g.run(t2.dyn_size_ext), [2, 2])


def test_transformer_decoder_initial_state_pos_is_a_tensor():
    """Observed in the reference: the state's ``pos`` is a scalar int32 Tensor (setups map a beam's gather over the
    state's Tensors and Dims, and fail on an int)."""
    rf.select_backend_tf()
    dec = TransformerDecoder(None, Dim(5, name="v"), Dim(8, name="m"), num_layers=1, num_heads=2)
    pos = dec.default_initial_state(batch_dims=[batch_dim])["pos"]
    assert isinstance(pos, Tensor) and (pos.dims, pos.dtype) == ((), "int32")
