"""Search layers: ``choice`` (beam search step / target in training), ``decide`` (best final hypothesis)."""

from returnn.tf.layers.search.choice import ChoiceLayer as ChoiceLayer  # noqa: F401
from returnn.tf.layers.search.decide import DecideLayer as DecideLayer  # noqa: F401
from returnn.tf.layers.search.edit_distance_loss import EditDistanceLoss as EditDistanceLoss  # noqa: F401
