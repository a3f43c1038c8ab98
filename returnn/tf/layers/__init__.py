"""All layer families; importing this package registers every built-in layer and loss."""

from returnn.tf.layers import control as control  # noqa: F401
from returnn.tf.layers import conv as conv  # noqa: F401
from returnn.tf.layers import elementwise as elementwise  # noqa: F401
from returnn.tf.layers import indexing as indexing  # noqa: F401  (shape/indexing helper: gather_nd, scatter_nd, ...)
from returnn.tf.layers import inputs as inputs  # noqa: F401
from returnn.tf.layers import linear as linear  # noqa: F401
from returnn.tf.layers import losses as losses  # noqa: F401
from returnn.tf.layers import loss_layers as loss_layers  # noqa: F401  (losses helper: loss, edit_distance, ...)
from returnn.tf.layers import alignment as alignment  # noqa: F401  (losses helper: forced_align, fast_bw)
from returnn.tf.layers import norm as norm  # noqa: F401
from returnn.tf.layers import recurrent as recurrent  # noqa: F401
from returnn.tf.layers import reduce as reduce  # noqa: F401
from returnn.tf.layers import shape as shape  # noqa: F401
from returnn.tf.layers import signal as signal  # noqa: F401  (shape/indexing helper: stft, mel_filterbank, dct)
from returnn.tf.layers import utility as utility  # noqa: F401  (shape/indexing helper: print, hdf_dump, ...)
from returnn.tf.layers import variables as variables  # noqa: F401  (shape/indexing helper: variable)
from returnn.tf.layers.recurrent import rnn_cell as _rnn_cell  # noqa: F401  (search helper: rnn_cell)
from returnn.tf.layers.recurrent import subnet as _subnet  # noqa: F401  (search helper: rec with unit dicts)
from returnn.tf.layers import search as search  # noqa: F401  (search helper: choice, decide)
from returnn.tf.layers import attention as attention  # noqa: F401  (search helper: attention layers)
