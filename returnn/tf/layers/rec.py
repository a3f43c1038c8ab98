"""Public import path ``returnn.tf.layers.rec``, kept for user configs and scripts. Defines nothing; each name
is re-exported from the module that owns it (the same names the reference's module has)."""

from tensorflow.python.ops import rnn_cell as rnn_cell  # TF's cell module, a public name of the reference's module

import returnn.tf.layers  # noqa: F401  (registers all built-in layers)
from returnn.tf.layers.attention.dot_attention import DotAttentionLayer as DotAttentionLayer
from returnn.tf.layers.attention.gauss_window_attention import GaussWindowAttentionLayer as GaussWindowAttentionLayer
from returnn.tf.layers.attention.generic_attention import GenericAttentionLayer as GenericAttentionLayer
from returnn.tf.layers.attention.positional_encoding import PositionalEncodingLayer as PositionalEncodingLayer
from returnn.tf.layers.attention.relative_positional_encoding import (
    RelativePositionalEncodingLayer as RelativePositionalEncodingLayer,
)
from returnn.tf.layers.attention.self_attention import SelfAttentionLayer as SelfAttentionLayer
from returnn.tf.layers.core.internal import InternalLayer as InternalLayer
from returnn.tf.layers.core.internal import RecStepInfoLayer as RecStepInfoLayer
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.layers.core.search_choices import SearchChoices as SearchChoices
from returnn.tf.layers.loss_layers.edit_distance import EditDistanceLayer as EditDistanceLayer
from returnn.tf.layers.loss_layers.edit_distance_table import EditDistanceTableLayer as EditDistanceTableLayer
from returnn.tf.layers.loss_layers.edit_distance_table import OptimalCompletionsLayer as OptimalCompletionsLayer
from returnn.tf.layers.recurrent.cells.base_rnn_cell import BaseRNNCell as BaseRNNCell
from returnn.tf.layers.recurrent.cells.layer_norm_lstm import LayerNormVariantsLSTMCell as LayerNormVariantsLSTMCell
from returnn.tf.layers.recurrent.cells.rhn import RHNCell as RHNCell
from returnn.tf.layers.recurrent.cells.zoneout_lstm import ZoneoutLSTMCell as ZoneoutLSTMCell
from returnn.tf.layers.recurrent.cum_concat import CumConcatLayer as CumConcatLayer
from returnn.tf.layers.recurrent.get_last_hidden_state import GetLastHiddenStateLayer as GetLastHiddenStateLayer
from returnn.tf.layers.recurrent.masked_computation import MaskedComputationLayer as MaskedComputationLayer
from returnn.tf.layers.recurrent.rec_last_output import RecLastOutputLayer as RecLastOutputLayer
from returnn.tf.layers.recurrent.rec_unstack import RecUnstackLayer as RecUnstackLayer
from returnn.tf.layers.recurrent.rnn_cell import RnnCellLayer as RnnCellLayer
from returnn.tf.layers.recurrent.subnet.cell import SubnetworkRecCell as _SubnetworkRecCell  # noqa: F401
from returnn.tf.layers.recurrent.subnet.rec_subnet import RecLayer as RecLayer
from returnn.tf.layers.recurrent.subnet.template import TemplateLayer as _TemplateLayer  # noqa: F401
from returnn.tf.layers.recurrent.two_d_lstm import TwoDLSTMLayer as TwoDLSTMLayer
from returnn.tf.layers.recurrent.unmask import UnmaskLayer as UnmaskLayer
from returnn.tf.layers.search.beam import SearchBeam as SearchBeam
from returnn.tf.layers.search.choice import ChoiceLayer as ChoiceLayer
from returnn.tf.layers.search.choice_get_beam_scores import ChoiceGetBeamScoresLayer as ChoiceGetBeamScoresLayer
from returnn.tf.layers.search.choice_get_src_beams import ChoiceGetSrcBeamsLayer as ChoiceGetSrcBeamsLayer
from returnn.tf.layers.search.decide import DecideLayer as DecideLayer
from returnn.tf.layers.search.decide_keep_beam import DecideKeepBeamLayer as DecideKeepBeamLayer
from returnn.tf.layers.search.split_batch_beam import SplitBatchBeamLayer as SplitBatchBeamLayer
from returnn.tf.layers.utility.kenlm import KenLmStateLayer as KenLmStateLayer
