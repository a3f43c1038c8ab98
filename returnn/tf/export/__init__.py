"""Export of a trained network as a TensorFlow SavedModel that loads without this package
(``tf.saved_model.load``), e.g. for TF Serving: ``tools/tf_export_saved_model.py``.

- :mod:`~.signature`: the signatures' named inputs (extern data, lengths) and outputs (forward, search)
- :mod:`~.graph_check`: only TensorFlow's own ops, no Python functions (:class:`~.errors.NotExportableError`)
- :mod:`~.saved_model`: the writer (variables saved, not frozen)
- :mod:`~.from_config`: config + checkpoint -> SavedModel
"""

from returnn.tf.export.errors import NotExportableError as NotExportableError
from returnn.tf.export.from_config import export_saved_model as export_saved_model
