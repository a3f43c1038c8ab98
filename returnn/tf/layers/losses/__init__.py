"""Loss classes: what a layer dict's ``"loss": "<name>"`` names (``ce``, ``ctc``, ``mse``, ...; subclasses of
``Loss`` in the loss registry, not layers); importing registers them. The *layers* around losses
(``"class": "loss"``, ``edit_distance``, ...) are in :mod:`returnn.tf.layers.loss_layers`."""

from returnn.tf.layers.losses import as_is as _as_is  # noqa: F401
from returnn.tf.layers.losses import binary_cross_entropy as _bce  # noqa: F401
from returnn.tf.layers.losses import cross_entropy as _ce  # noqa: F401
from returnn.tf.layers.losses import ctc as _ctc  # noqa: F401
from returnn.tf.layers.losses import l1 as _l1  # noqa: F401
from returnn.tf.layers.losses import mse as _mse  # noqa: F401
from returnn.tf.layers.losses import sampling as _sampling  # noqa: F401
from returnn.tf.layers.losses import bleu as _bleu  # noqa: F401
from returnn.tf.layers.losses import rasr as _rasr  # noqa: F401
from returnn.tf.layers.losses import search as _search  # noqa: F401
from returnn.tf.layers.losses import via_layer as _via_layer  # noqa: F401
