"""Search layers: ``choice`` (beam search step / target in training), ``decide`` (best final hypothesis)."""

from returnn.tf.layers.search.choice import ChoiceLayer as ChoiceLayer  # noqa: F401
