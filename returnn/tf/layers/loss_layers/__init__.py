"""Layers around losses and alignments: ``loss``, ``sparse_softmax_cross_entropy_with_logits``,
``edit_distance``, ``ctc_loss``, ... ; importing registers them. These are layers (``"class": ...``); the loss functions a
layer's ``"loss"`` argument names are in :mod:`returnn.tf.layers.losses`."""

from returnn.tf.layers.loss_layers import loss as _loss  # noqa: F401
from returnn.tf.layers.loss_layers import sparse_softmax_ce as _sparse_softmax_ce  # noqa: F401
from returnn.tf.layers.loss_layers import edit_distance as _edit_distance  # noqa: F401
from returnn.tf.layers.loss_layers import edit_distance_table as _edit_distance_table  # noqa: F401
from returnn.tf.layers.loss_layers import ctc_loss as _ctc_loss  # noqa: F401
