"""Attention layers. Also registers ``softmax_over_spatial`` (family ``linear``), used by attention configs."""

from returnn.tf.layers.attention.generic_attention import GenericAttentionLayer as GenericAttentionLayer  # noqa: F401
from returnn.tf.layers.linear.softmax_over_spatial import SoftmaxOverSpatialLayer as SoftmaxOverSpatialLayer  # noqa: F401,E501
from returnn.tf.layers.attention.positional_encoding import PositionalEncodingLayer as PositionalEncodingLayer  # noqa: F401,E501
from returnn.tf.layers.attention.relative_positional_encoding import RelativePositionalEncodingLayer as RelativePositionalEncodingLayer  # noqa: F401,E501
from returnn.tf.layers.attention.self_attention import SelfAttentionLayer as SelfAttentionLayer  # noqa: F401
from returnn.tf.layers.attention.dot_attention import DotAttentionLayer as DotAttentionLayer  # noqa: F401
from returnn.tf.layers.attention.gauss_window_attention import GaussWindowAttentionLayer as GaussWindowAttentionLayer  # noqa: F401,E501
from returnn.tf.layers.linear.dot import DotLayer as DotLayer  # noqa: F401
