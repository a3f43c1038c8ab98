"""``Dim.make_batch_variant``: the same dim with its own lengths for another batch (see
:mod:`returnn.tensor._dim_batch_variant`)."""

import numpy as np
import pytest

from returnn.errors import TensorArgError
from returnn.tensor import FeatureDim, SpatialDim


def test_batch_variant_equals_its_dim_and_has_its_own_lengths():
    time = SpatialDim("time2")
    time.dyn_size = np.array([4, 1])
    variant = time.make_batch_variant(np.array([4, 4, 4, 1, 1, 1]))
    assert variant == time and hash(variant) == hash(time) and variant is not time
    assert variant.batch_variant_of is time and time.batch_variant_of is None
    assert variant.dyn_size.tolist() == [4, 4, 4, 1, 1, 1] and time.dyn_size.tolist() == [4, 1]
    assert variant.dyn_size_ext.placeholder.tolist() == [4, 4, 4, 1, 1, 1]
    again = variant.make_batch_variant(np.array([1]))  # a variant of a variant: of the dim itself
    assert again.batch_variant_of is time


def test_batch_variant_of_a_static_dim_is_an_error():
    with pytest.raises(TensorArgError, match="dynamic"):
        FeatureDim("f", 3).make_batch_variant(np.array([3]))
