"""Network construction errors (names kept from the reference: ``NetworkLayerException``, ``LayerNotFound``,
``NetworkConstructionDependencyLoopException``; ``CannotHandleUndefinedSourcesException`` of older versions).

Public path; the classes are defined in :mod:`returnn.errors` (layers, below the network, raise them too).
"""

from returnn.errors import CannotHandleUndefinedSourcesException as CannotHandleUndefinedSourcesException
from returnn.errors import LayerNotFound as LayerNotFound
from returnn.errors import NetworkConstructionDependencyLoopException as NetworkConstructionDependencyLoopException
from returnn.errors import NetworkLayerException as NetworkLayerException
from returnn.errors import NotInsideRecLoopError as NotInsideRecLoopError
