"""Keys of the numeric precision of the computation (mixed precision, ``tf_amp``)."""

from __future__ import annotations

import dataclasses
from typing import Optional

from returnn.options.declare import OptionGroup, borrowed, option
from returnn.options.run import RunOptions

#: the values of ``tf_amp`` that switch mixed precision on
TF_AMP_CHOICES = ("bfloat16", "float16")


@dataclasses.dataclass(frozen=True)
class PrecisionOptions(OptionGroup):
    """Mixed precision (:mod:`returnn.tf.util.amp`), read once per network."""

    topic = "numeric precision"

    tf_amp: Optional[str] = option(
        None, "mixed precision: 'bfloat16' (CPU and GPU) or 'float16' (GPU only, with dynamic loss scaling) runs "
              "the matmuls, convolutions and LSTM gate matmuls in that dtype; variables, checkpoints, softmax, "
              "losses and normalization statistics stay float32. Unset/None: float32 everywhere (as the reference)",
        kind="any_or_str", choices=TF_AMP_CHOICES,
        hint="mixed precision computes the matmuls and convolutions in bfloat16 or float16; unset it for float32")
    #: 'float16' needs a GPU: not with device 'cpu' (declared in :class:`RunOptions`)
    device: Optional[str] = borrowed(RunOptions, "device")
