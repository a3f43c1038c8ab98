"""Public import path ``returnn.tf.network``: TFNetwork, ExternData, LossHolder and the construction errors.

As the reference's module (which has no ``__all__``), a star import of it also brings the helpers user configs
and scripts rely on: ``tf``, ``tf_compat``, ``tf_util``, ``numpy``, ``contextlib``, ``re``, ``sys``, ``typing`` (and
its common names), ``util`` (``returnn.util.basic``), ``log``, ``Data``/``Tensor``/``Dim``, ``LayerBase`` and
``get_layer_class``, ``reuse_name_scope``; also ``help_on_tf_exception`` and
``_extern_data_types_from_config`` (the Tensor kwargs per data key of a config)."""

from __future__ import annotations

import contextlib as contextlib
import re as re
import sys as sys
import typing as typing
from typing import TYPE_CHECKING as TYPE_CHECKING
from typing import Any as Any
from typing import Callable as Callable
from typing import Dict as Dict
from typing import List as List
from typing import Optional as Optional
from typing import Protocol as Protocol
from typing import Tuple as Tuple
from typing import Union as Union

import numpy as numpy
import tensorflow as tf

import returnn.tf.compat as tf_compat
import returnn.tf.util.basic as tf_util
import returnn.util.basic as util
from returnn.log import log as log
from returnn.tensor import Data as Data
from returnn.tensor import Dim as Dim
from returnn.tensor import Tensor as Tensor
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.layers.core.registry import get_layer_class as get_layer_class
from returnn.tf.network.errors import CannotHandleUndefinedSourcesException as CannotHandleUndefinedSourcesException
from returnn.tf.network.errors import LayerNotFound as LayerNotFound
from returnn.tf.network.errors import NetworkConstructionDependencyLoopException as NetworkConstructionDependencyLoopException
from returnn.tf.network.errors import NetworkLayerException as NetworkLayerException
from returnn.tf.network.errors import NotInsideRecLoopError as NotInsideRecLoopError
from returnn.tf.network.exception_help import help_on_tf_exception as help_on_tf_exception
from returnn.tf.network.extern_data import ExternData as ExternData
from returnn.tf.network.extern_data import extern_data_types_from_config as _extern_data_types_from_config
from returnn.tf.network.loss_holder import LossHolder as LossHolder
from returnn.tf.network.params import TFNetworkParamsSerialized as TFNetworkParamsSerialized
from returnn.tf.network.tfnetwork import TFNetwork as TFNetwork
from returnn.tf.util.scopes import reuse_name_scope as reuse_name_scope
