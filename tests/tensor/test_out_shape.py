"""Tensor.verify_out_shape and the implicit dims (sparse dim; dims of the dynamic sizes of an axis), as observed in
the reference."""

import pytest

from returnn.tensor import (Dim, FeatureDim, ImplicitDynSizeDim, ImplicitSparseDim, OptionalDim, SpatialDim, Tensor,
                            VerifyOutShapeException, batch_dim)


def _dims():
    return SpatialDim("time"), FeatureDim("feat", 3), FeatureDim("classes", 5)


def test_dim_tags_set_implicit_has_the_sparse_dim():
    time, feat, classes = _dims()
    x = Tensor("x", dims=[batch_dim, time], sparse_dim=classes, dtype="int32")
    assert x.dim_tags_set_implicit == {batch_dim, time, classes}
    assert x.get_implicit_dims() == [ImplicitSparseDim(classes)]
    assert Tensor("y", dims=[batch_dim, time, feat]).get_implicit_dims() == []


def test_verify_out_shape_exact_and_optional():
    time, feat, classes = _dims()
    x = Tensor("x", dims=[batch_dim, time, feat])
    x.verify_out_shape({batch_dim, time, feat})
    x.verify_out_shape({batch_dim, time, feat, OptionalDim(classes)})
    with pytest.raises(VerifyOutShapeException, match="missing dims"):
        x.verify_out_shape({batch_dim, time})
    with pytest.raises(VerifyOutShapeException, match="not in self"):
        x.verify_out_shape({batch_dim, time, feat, classes})
    with pytest.raises(TypeError, match="expects a set"):
        x.verify_out_shape([batch_dim, time, feat])


def test_verify_out_shape_sparse_dim_is_required_unless_allowed_missing():
    time, feat, classes = _dims()
    y = Tensor("y", dims=[batch_dim, time], sparse_dim=classes, dtype="int32")
    y.verify_out_shape({batch_dim, time, classes})
    y.verify_out_shape({batch_dim, time, ImplicitSparseDim(classes)})
    with pytest.raises(VerifyOutShapeException, match="Missing dims: .*classes"):
        y.verify_out_shape({batch_dim, time})
    y.verify_out_shape({batch_dim, time}, allow_missing_implicit_dims=True)
    with pytest.raises(VerifyOutShapeException, match="is not an implicit dim"):
        y.verify_out_shape({batch_dim, time, ImplicitDynSizeDim(batch_dim)})


def test_implicit_dyn_size_dim_of_a_tensor_without_batch_axis():
    import tensorflow as tf
    with tf.Graph().as_default():
        time, feat, _ = _dims()
        time.dyn_size = tf.compat.v1.placeholder(tf.int32, [None])
        w = Tensor("w", dims=[time, feat])
        assert w.get_implicit_dims() == [ImplicitDynSizeDim(batch_dim)]
        assert w.dim_tags_set_implicit == {time, feat, batch_dim}
        w.verify_out_shape({time, feat, ImplicitDynSizeDim(batch_dim)})
        w.verify_out_shape({time, feat}, allow_missing_implicit_dims=True)
        with pytest.raises(VerifyOutShapeException, match="Missing dims"):
            w.verify_out_shape({time, feat})
        assert isinstance(batch_dim, Dim)


def test_verify_out_shape_empty_dict_is_the_empty_set():
    Tensor("s", dims=[], dtype="int32").verify_out_shape({})
    with pytest.raises(VerifyOutShapeException):
        Tensor("x", dims=[batch_dim], dtype="int32").verify_out_shape({})


def test_beam_variant_counts_as_its_dim():
    from returnn.tensor import Dim, SpatialDim, Tensor, batch_dim
    from returnn.tensor.search_beam import beam_variant_of, set_beam_variant_of

    time = SpatialDim("time")
    variant = Dim(None, description="time:beam", kind=time.kind)
    set_beam_variant_of(variant, time)
    assert beam_variant_of(variant) is time and beam_variant_of(time) is None
    x = Tensor("x", dims=[batch_dim, variant], dtype="int32")
    x.verify_out_shape({batch_dim, time})
    assert x.get_axis_from_description(time) == 1
