"""Recurrent layers: ``rec`` with a string unit (unit dicts: :mod:`.subnet`), ``rnn_cell``, and the layers used in
rec units (``masked_computation``, ``unmask``, ``cum_concat``, ``rec_unstack``, ``rec_last_output``, ...)."""

from returnn.tf.layers.recurrent.subnet.rec_subnet import RecLayer as RecLayer  # noqa: F401  (the registered one)
from returnn.tf.layers.recurrent.get_last_hidden_state import (  # noqa: F401
    GetLastHiddenStateLayer as GetLastHiddenStateLayer,
)
from returnn.tf.layers.recurrent.two_d_lstm import TwoDLSTMLayer as TwoDLSTMLayer  # noqa: F401
from returnn.tf.layers.recurrent.masked_computation import (  # noqa: F401
    MaskedComputationLayer as MaskedComputationLayer,
)
from returnn.tf.layers.recurrent.unmask import UnmaskLayer as UnmaskLayer  # noqa: F401
from returnn.tf.layers.recurrent.cum_concat import CumConcatLayer as CumConcatLayer  # noqa: F401
from returnn.tf.layers.recurrent.rec_unstack import RecUnstackLayer as RecUnstackLayer  # noqa: F401
from returnn.tf.layers.recurrent.rec_last_output import RecLastOutputLayer as RecLastOutputLayer  # noqa: F401
