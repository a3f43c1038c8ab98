"""``returnn.frontend`` (``import returnn.frontend as rf``): the RETURNN frontend, a framework-independent way to
write models on :mod:`returnn.tensor` (``Tensor``, ``Dim``); here the ops run as TF graph ops
(:mod:`returnn.tf.frontend_low_level`) or, on numpy arrays, with numpy. The names are the reference's; each
submodule holds one family (``array_``, ``math_``, ``reduce``, ``module``, ``parameter``, ``linear``, ``conv``,
``loss``, ``run_ctx``, ``init``, ...)."""

# flake8: noqa: F401,F403
from returnn.tensor import Dim, Tensor

from returnn.frontend import _numpy_backend, audio, decoder, encoder, init, nested
from returnn.frontend.decoder import transformer as _transformer  # noqa: F401 (rf.decoder.transformer)
from returnn.frontend.encoder import conformer as _conformer  # noqa: F401 (rf.encoder.conformer)
from returnn.frontend.array_ import *
from returnn.frontend.attention import *
from returnn.frontend.backend import *
from returnn.frontend.build_from_dict import *
from returnn.frontend.cond import *
from returnn.frontend.const import *
from returnn.frontend.container import *
from returnn.frontend.conv import *
from returnn.frontend.device import *
from returnn.frontend.dims import *
from returnn.frontend.dropout import *
from returnn.frontend.dtype import *
from returnn.frontend.gradient import *
from returnn.frontend.label_smoothing import *
from returnn.frontend.linear import *
from returnn.frontend.loop import *
from returnn.frontend.loss import *
from returnn.frontend.math_ import *
from returnn.frontend.matmul import *
from returnn.frontend.module import *
from returnn.frontend.normalization import *
from returnn.frontend.parameter import *
from returnn.frontend.parametrizations import *
from returnn.frontend.parametrize import *
from returnn.frontend.piecewise_linear import *
from returnn.frontend.rand import *
from returnn.frontend.rec import *
from returnn.frontend.reduce import *
from returnn.frontend.run_ctx import *
from returnn.frontend.signal import *
from returnn.frontend.state import *
from returnn.frontend import tensor_array
from returnn.frontend.types import *
