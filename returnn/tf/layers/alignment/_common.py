"""Shared by the alignment layers: the input as time-major log-probabilities, RASR errors."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor

INPUT_TYPES = ("log_prob", "prob")
PROB_FLOOR = 1e-20  # input_type "prob": log(max(p, 1e-20)), as the reference (observed)


def time_major_log_probs(data: Tensor, input_type: str) -> tf.Tensor:
    """:return: float32 ``[T, B, C]``: the input's raw values (feature last), as log-probabilities"""
    tm = data.copy_as_time_major()
    if tm.batch_dim_axis != 1:
        tm = tm.copy_with_batch_dim_axis(1)
    if tm.feature_dim_axis != 2:
        tm = tm.copy_with_feature_dim_axis(2)
    x = tf.cast(tm.placeholder, tf.float32)
    if input_type == "prob":
        return tf.math.log(tf.maximum(x, PROB_FLOOR))
    return x


def check_input(name: str, layer_class: str, sources: Any, input_type: str) -> Tensor:
    """:return: the single source's template ``{B, T, C}`` (any order)
    :raises LayerArgError: not one source; no batch/time/feature axis or other axes; an unknown input_type"""
    if input_type not in INPUT_TYPES:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="input_type", problem="invalid value",
                            got=input_type, expected=" | ".join(INPUT_TYPES))
    if len(sources) != 1:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="from", problem="needs exactly one source",
                            got=[s.name for s in sources])
    data = sources[0].output
    if (data.batch_ndim != 3 or data.batch_dim_axis is None or data.time_dim_axis is None
            or data.feature_dim_axis is None or data.sparse):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="from",
                            problem="needs (log-)probabilities {B, T, C}:", got=data.get_description())
    return data


def rasr_error(name: str, layer_class: str, arg: str, got: Any) -> LayerArgError:
    """:return: the error for an FSA or loss that only RASR (Sprint) can provide"""
    return LayerArgError(layer=name, layer_class=layer_class, arg=arg,
                         problem="needs RASR (Sprint), which this implementation does not run:", got=got,
                         hint="the built-in FSAs need no RASR: align_target 'ctc' (fast_bw) or topology 'ctc'/'rna' "
                              "(forced_align)")
