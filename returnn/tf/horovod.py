"""Public import path ``returnn.tf.horovod`` (legacy name ``TFHorovod``) of the reference: ``get_ctx(config)`` is
None unless the config enables multi-worker training (``use_horovod`` / ``distributed``), which this project runs
on TensorFlow's collectives, not Horovod (see ``returnn.tf.distributed.horovod_ctx``)."""

from returnn.tf.distributed.startup import HorovodContext as HorovodContext
from returnn.tf.distributed.startup import get_horovod_ctx as get_ctx
