"""``{"class": "kenlm", "lm_file": ...}``: the reference's KenLM n-gram state/score layer.

It needs the KenLM library compiled into a native TF op, which this implementation does not provide: building a
network with it raises :class:`LayerArgError` naming what is missing (at template time, before any TF op).
"""

from __future__ import annotations

from typing import Any

from returnn.errors import LayerArgError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer


@register_layer
class KenLmStateLayer(ConcatInputLayer):
    """Not available: raises a clear error (see module doc)."""

    layer_class = "kenlm"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, lm_file: Any, vocab_file: Any = None, vocab_unknown_label: str = "UNK",
                 bpe_merge_symbol: Any = None, axis: Any = NotSpecified, input_step_offset: int = 0,
                 dense_output: bool = False, debug: bool = False, **kwargs: Any):
        """
        :param lm_file: the KenLM model file (the layer is not available here)
        :param vocab_file: accepted for compatibility with the reference; no effect here (the layer is not available)
        :param vocab_unknown_label: accepted for compatibility with the reference; no effect here (the layer is not
            available)
        :param bpe_merge_symbol: accepted for compatibility with the reference; no effect here (the layer is not
            available)
        :param axis: accepted for compatibility with the reference; no effect here (the layer is not available)
        :param input_step_offset: accepted for compatibility with the reference; no effect here (the layer is not
            available)
        :param dense_output: accepted for compatibility with the reference; no effect here (the layer is not available)
        :param debug: accepted for compatibility with the reference; no effect here (the layer is not available)
        """
        super().__init__(**kwargs)

    @classmethod
    def get_out_data_from_opts(cls, name: str, lm_file: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: always"""
        raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="lm_file",
                            problem="needs the KenLM native TF op (the kenlm C++ library built as a TensorFlow op), "
                                    "which is missing in this implementation:", got=lm_file,
                            hint="score with the n-gram LM outside the network (e.g. in rescoring), or use a neural LM "
                                 "subnetwork")
