"""``returnn.tensor``: backend-free shape model (``Tensor``/``Data``, ``Dim``). Never imports TensorFlow."""

from returnn.tensor.dim import Dim as Dim
from returnn.tensor.dim import DimensionTag as DimensionTag
from returnn.tensor.dim import FeatureDim as FeatureDim
from returnn.tensor.dim import SpatialDim as SpatialDim
from returnn.tensor.dim import batch_dim as batch_dim
from returnn.tensor.tensor import Data as Data
from returnn.tensor.tensor import NotSpecified as NotSpecified
from returnn.tensor.tensor import Tensor as Tensor
