"""Search layers: ``choice`` (beam search step / target in training), ``decide`` (best final hypothesis)."""

from returnn.tf.layers.search.choice import ChoiceLayer as ChoiceLayer  # noqa: F401
from returnn.tf.layers.search.decide import DecideLayer as DecideLayer  # noqa: F401
from returnn.tf.layers.search.edit_distance_loss import EditDistanceLoss as EditDistanceLoss  # noqa: F401
from returnn.tf.layers.search.choice_get_beam_scores import (  # noqa: F401
    ChoiceGetBeamScoresLayer as ChoiceGetBeamScoresLayer,
)
from returnn.tf.layers.search.choice_get_src_beams import ChoiceGetSrcBeamsLayer as ChoiceGetSrcBeamsLayer  # noqa: F401
from returnn.tf.layers.search.decide_keep_beam import DecideKeepBeamLayer as DecideKeepBeamLayer  # noqa: F401
from returnn.tf.layers.search.split_batch_beam import SplitBatchBeamLayer as SplitBatchBeamLayer  # noqa: F401
