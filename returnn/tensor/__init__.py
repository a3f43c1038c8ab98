"""``returnn.tensor``: backend-free shape model (``Tensor``/``Data``, ``Dim``). Never imports TensorFlow."""

from returnn.tensor.batch_info import BatchInfo as BatchInfo
from returnn.tensor.control_flow_ctx import ControlFlowContext as ControlFlowContext
from returnn.tensor.dim import Dim as Dim
from returnn.tensor.dim import DimensionTag as DimensionTag
from returnn.tensor.dim import FeatureDim as FeatureDim
from returnn.tensor.dim import SpatialDim as SpatialDim
from returnn.tensor.dim import VerifyOutShapeException as VerifyOutShapeException
from returnn.tensor.dim import batch_dim as batch_dim
from returnn.tensor.dim import single_step_dim as single_step_dim
from returnn.tensor.marked_dim import ImplicitDynSizeDim as ImplicitDynSizeDim
from returnn.tensor.marked_dim import ImplicitSparseDim as ImplicitSparseDim
from returnn.tensor.marked_dim import MarkedDim as MarkedDim
from returnn.tensor.marked_dim import OptionalDim as OptionalDim
from returnn.tensor.search_beam import SearchBeam as SearchBeam
from returnn.tensor.tensor import Data as Data
from returnn.tensor.tensor import NotSpecified as NotSpecified
from returnn.tensor.tensor import Tensor as Tensor
from returnn.tensor.tensor_dict import TensorDict as TensorDict
