"""Public import path ``returnn.tf.network``: TFNetwork, ExternData, LossHolder and the construction errors."""

from returnn.tf.network.errors import CannotHandleUndefinedSourcesException as CannotHandleUndefinedSourcesException
from returnn.tf.network.errors import LayerNotFound as LayerNotFound
from returnn.tf.network.errors import NetworkConstructionDependencyLoopException as NetworkConstructionDependencyLoopException
from returnn.tf.network.errors import NetworkLayerException as NetworkLayerException
from returnn.tf.network.errors import NotInsideRecLoopError as NotInsideRecLoopError
from returnn.tf.network.extern_data import ExternData as ExternData
from returnn.tf.network.loss_holder import LossHolder as LossHolder
from returnn.tf.network.tfnetwork import TFNetwork as TFNetwork
