"""``{"class": "twod_lstm", "from": ..., "n_out": N}``: the reference's 2D LSTM over (source time, target time).

Not available here: the reference computes it with its native TF op ``TwoDLSTM`` (and ``GradOfTwoDLSTM`` for the
gradient), C++/CUDA code it compiles at run time; this project compiles no native ops and has no TF-ops
equivalent of this one. Building the layer raises :class:`returnn.errors.LayerArgError` saying so, before any
TF op is created (the arguments are the reference's, so the error names the layer, not an unknown argument).

Observed from the reference (for a future implementation): its op has a GPU kernel only (on a machine without a
GPU, building the layer fails with ``currently, there's no CPU support``); its params are
``<layer>/rec-twod/W_re`` ``[n_in, 5n]``, ``<layer>/rec-twod/Vh_re`` ``[n, 5n]`` and ``<layer>/rec-twod/Vv_re``
``[n, 5n]`` (no bias), where ``n_in`` sums the feature dims of both sources (e.g. ``base:encoder`` and the target
embedding in a rec unit).
"""

from __future__ import annotations

from typing import Any

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer

MISSING = ("needs the reference's native TF op 'TwoDLSTM' (with 'GradOfTwoDLSTM'), C++/CUDA code compiled at run "
           "time, which this project does not build, so it is not available here;")


@register_layer
class TwoDLSTMLayer(ConcatInputLayer):
    """See the module docstring.

    :param pooling: the reference's option (``"last"``, ``"max"``, ...), accepted
    :param unit_opts: the reference's option, accepted
    :raises LayerArgError: always (the native op is missing)
    """

    layer_class = "twod_lstm"
    recurrent = True

    def __init__(self, pooling: str = "last", unit_opts: Any = None, forward_weights_init: Any = None,
                 recurrent_weights_init: Any = None, bias_init: Any = None, **kwargs: Any):
        """
        :param forward_weights_init: accepted for compatibility with the reference; no effect here (the layer is not
            available)
        :param recurrent_weights_init: accepted for compatibility with the reference; no effect here (the layer is not
            available)
        :param bias_init: accepted for compatibility with the reference; no effect here (the layer is not available)
        """
        raise _missing_op(kwargs.get("name", "?"))

    @classmethod
    def get_out_data_from_opts(cls, name: str, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: always"""
        raise _missing_op(name)


def _missing_op(name: str) -> LayerArgError:
    return LayerArgError(layer=name, layer_class="twod_lstm", arg="twod_lstm", problem=MISSING + " layer class",
                         hint="use the reference RETURNN on a GPU for this config (its op has no CPU kernel), or "
                              "replace the layer (e.g. by an LSTM over the target time in the rec loop)")
