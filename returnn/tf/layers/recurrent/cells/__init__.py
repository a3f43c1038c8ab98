"""Recurrent cells defined by one step (``zoneoutlstm``, ``layernormvariantslstm``): used by ``rec`` over a whole
sequence (:mod:`returnn.tf.layers.recurrent.units`) and by ``rnn_cell`` for one step inside a loop, with the same
parameters and numerics."""

from returnn.tf.layers.recurrent.cells.base_rnn_cell import BaseRNNCell as BaseRNNCell
from returnn.tf.layers.recurrent.cells.layer_norm_lstm import LayerNormVariantsLSTMCell as LayerNormVariantsLSTMCell
from returnn.tf.layers.recurrent.cells.rhn import RHNCell as RHNCell
from returnn.tf.layers.recurrent.cells.standard_lstm import StandardLSTMCell as StandardLSTMCell
from returnn.tf.layers.recurrent.cells.step_cell import StepCell as StepCell
from returnn.tf.layers.recurrent.cells.zoneout_lstm import ZoneoutLSTMCell as ZoneoutLSTMCell
