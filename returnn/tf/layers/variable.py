"""Public import path ``returnn.tf.layers.variable``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it (as the reference's module, a star import also brings ``tf``,
``tf_compat``, ``tf_util``, ``contextlib``, ``Dim``, ``Tensor``, ``LayerBase``)."""

from __future__ import annotations

import contextlib as contextlib
from typing import List as List
from typing import Optional as Optional
from typing import Sequence as Sequence
from typing import TypeVar as TypeVar

import tensorflow as tf

import returnn.tf.compat as tf_compat
import returnn.tf.util.basic as tf_util
from returnn.tensor import Dim as Dim
from returnn.tensor import Tensor as Tensor
from returnn.tf.layers.core.layer_base import LayerBase as LayerBase
from returnn.tf.layers.variables.variable import VariableLayer as VariableLayer
