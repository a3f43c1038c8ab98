"""Public import path ``returnn.tf.util.data``, kept for user configs and the reference's tests. Defines nothing;
importing it installs the TF raw backend, so that ``Data`` methods computing raw tensors (``get_sequence_mask()``,
...) work in scripts."""

import returnn.tf.ops  # noqa: F401  (installs the TF raw backend of returnn.tensor)
from returnn.tensor import BatchInfo as BatchInfo
from returnn.tensor import ControlFlowContext as ControlFlowContext
from returnn.tensor import Data as Data
from returnn.tensor import Dim as Dim
from returnn.tensor import DimensionTag as DimensionTag
from returnn.tensor import FeatureDim as FeatureDim
from returnn.tensor import ImplicitDynSizeDim as ImplicitDynSizeDim
from returnn.tensor import ImplicitSparseDim as ImplicitSparseDim
from returnn.tensor import MarkedDim as MarkedDim
from returnn.tensor import NotSpecified as NotSpecified
from returnn.tensor import OptionalDim as OptionalDim
from returnn.tensor import SearchBeam as SearchBeam
from returnn.tensor import SpatialDim as SpatialDim
from returnn.tensor import Tensor as Tensor
from returnn.tensor import VerifyOutShapeException as VerifyOutShapeException
from returnn.tensor import batch_dim as batch_dim
from returnn.tensor import single_step_dim as single_step_dim
