"""Keys of a config written with the RETURNN frontend (``returnn.frontend``): the model and its step functions."""

from __future__ import annotations

import dataclasses
from typing import Any

from returnn.options.declare import OptionGroup, option


@dataclasses.dataclass(frozen=True)
class FrontendOptions(OptionGroup):
    """An RF model (instead of ``network``), run by both TF backends (see :mod:`returnn.tf.engine.frontend`)."""

    topic = "RETURNN frontend models"

    get_model: Any = option(None, "function (*, epoch, step, **kwargs) -> the rf.Module to train or run; selects the "
                                  "RF engine when neither network nor get_network is set", kind="any")
    train_step: Any = option(None, "function (*, model, extern_data, **kwargs) marking the losses "
                                   "(loss.mark_as_loss(name=..., scale=, as_error=, use_normalized_loss=)); tasks "
                                   "train and eval", kind="any")
    forward_step: Any = option(None, "function (*, model, extern_data, **kwargs) marking the outputs "
                                     "(mark_as_default_output / mark_as_output); task forward", kind="any")
    model_outputs: Any = option(None, "dict output name -> Tensor kwargs (dims, dtype, ...) of the outputs "
                                      "forward_step marks", kind="any")
