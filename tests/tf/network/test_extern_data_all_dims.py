"""ExternData.get_all_dimension_tags: the dims of all data by sorted key, each once (as the reference, observed)."""

import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.network import ExternData


def test_get_all_dimension_tags():
    with tf.Graph().as_default():
        time1, time2 = SpatialDim("t1"), SpatialDim("t2")
        f_a, f_b, classes = FeatureDim("fa", 3), FeatureDim("fb", 3), FeatureDim("classes", 5)
        extern = ExternData()
        extern.register_data(Tensor("b", dims=[batch_dim, time2, f_b]))
        extern.register_data(Tensor("a", dims=[time1, batch_dim, f_a]))
        extern.register_data(Tensor("c", dims=[batch_dim, time1], sparse_dim=classes, dtype="int32"))
        assert extern.get_all_dimension_tags() == [time1, batch_dim, f_a, time2, f_b]
        assert extern.get_all_dimension_tags(allow_same_feature_dim=True) == [time1, batch_dim, f_a, time2]

