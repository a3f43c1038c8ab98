"""Layers that produce data without a computation on sources: source, constant, length."""

from returnn.tf.layers.inputs import constant as _constant  # noqa: F401
from returnn.tf.layers.inputs import global_train_step as _global_train_step  # noqa: F401
from returnn.tf.layers.inputs import length as _length  # noqa: F401
from returnn.tf.layers.inputs import rand_int as _rand_int  # noqa: F401
from returnn.tf.layers.inputs import random as _random  # noqa: F401
from returnn.tf.layers.inputs import random_state_init as _random_state_init  # noqa: F401
from returnn.tf.layers.inputs import range as _range  # noqa: F401
from returnn.tf.layers.inputs import range_from_length as _range_from_length  # noqa: F401
from returnn.tf.layers.inputs import range_in_axis as _range_in_axis  # noqa: F401
from returnn.tf.layers.inputs import source as _source  # noqa: F401
from returnn.tf.layers.inputs import train_flag as _train_flag  # noqa: F401
