"""``{"class": "positional_encoding", "from": "data", "n_out": N, "add_to_input": False}``: sinusoidal encoding.

The tensor2tensor timing signal (as the reference): for position ``p`` and ``k < n/2`` timescales
``inv[k] = exp(-k * log(1e4) / (n/2 - 1))``, the encoding is ``concat(sin(p * inv), cos(p * inv))``.

Shapes: input ``{B, T, F}`` -> ``{B, T, n_out}`` (positions ``offset + t``); with ``add_to_input`` the encoding is
added to the input (``n_out`` = F). Inside a rec unit (input without time axis) the position is the step ``:i``
(``offset + i``), output ``{B, n_out}``.
"""

from __future__ import annotations

import math
from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def timing_signal(positions: tf.Tensor, n_out: int, min_timescale: float = 1.0,
                  max_timescale: float = 1.0e4) -> tf.Tensor:
    """:param positions: float32 ``[N]`` :return: float32 ``[N, n_out]``"""
    num = n_out // 2
    inc = math.log(max_timescale / min_timescale) / max(num - 1, 1)
    inv = min_timescale * tf.exp(tf.range(num, dtype=tf.float32) * -inc)
    scaled = positions[:, None] * inv[None, :]
    signal = tf.concat([tf.sin(scaled), tf.cos(scaled)], axis=1)
    if n_out % 2:
        signal = tf.pad(signal, [[0, 0], [0, 1]])
    return signal


@register_layer
class PositionalEncodingLayer(ConcatInputLayer):
    """See the module docstring.

    :param add_to_input: add the encoding to the input instead of returning it
    :param constant: if >= 0, use this position for all frames
    :param offset: a layer (scalar or ``{B}``) or int added to the positions
    """

    layer_class = "positional_encoding"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, add_to_input: bool = False, constant: int = -1, offset: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        n_out = self.output.dim
        if inp.time_dim_axis is not None:
            bm = inp.copy_as_batch_major().copy_with_time_dim_axis(1)
            length = tf.shape(bm.placeholder)[1]
            pos = tf.cast(tf.range(length), tf.float32)
        else:
            bm = inp.copy_as_batch_major()
            step = self.network.get_layer(":i").output.placeholder if self.network.parent_net is not None \
                and _has_step(self.network) else tf.constant(0)
            pos = tf.cast(tf.reshape(step, [1]), tf.float32)
        if constant >= 0:
            pos = tf.zeros_like(pos) + float(constant)
        if isinstance(offset, int):
            pos = pos + float(offset)
        signal = timing_signal(pos, n_out)  # [T, n] or [1, n]
        batch = tf.shape(bm.placeholder)[0]
        if inp.time_dim_axis is not None:
            signal = tf.tile(signal[None], [batch, 1, 1])
        else:
            signal = tf.tile(signal, [batch, 1])
        if add_to_input:
            signal = tf.cast(bm.placeholder, tf.float32) + signal
        out_tmpl = self.output.copy_as_batch_major()
        if out_tmpl.time_dim_axis is not None:
            out_tmpl = out_tmpl.copy_with_time_dim_axis(1)
        out_tmpl.placeholder = signal
        perm = [out_tmpl.dims.index(d) for d in self.output.dims]
        self.output.placeholder = out_tmpl.copy_transpose(perm).placeholder

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), n_out: Any = NotSpecified,
                               add_to_input: bool = False, out_dim: Any = None, **kwargs: Any) -> Tensor:
        """:return: the input's dims with the feature dim ``n_out`` (float32)
        :raises LayerArgError: ``n_out`` missing (and not ``add_to_input``) or disagreeing with the input"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.sparse:
            inp = inp.copy_as_dense_template()
        if out_dim is not None:
            n_out = out_dim.dimension
        if add_to_input:
            if n_out not in (NotSpecified, None) and n_out != inp.dim:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="invalid value",
                                    got=n_out, expected=f"the input dim {inp.dim} with add_to_input")
            out = inp.copy_template(name=f"{name}_output")
            out.dtype = "float32"
            return out
        if n_out in (NotSpecified, None):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        feat = out_dim or FeatureDim(f"{name}:feature", n_out)
        if inp.feature_dim_axis is None:
            out = inp.copy_add_dim(inp.batch_ndim, feat, as_feature=True)
        else:
            out = inp.copy_template_replace_dim(inp.feature_dim_axis, feat)
        out = out.copy_template(name=f"{name}_output")
        out.dtype = "float32"
        return out

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Inside a rec unit, also depends on the step index ``:i``."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if d.get("sources") and d["sources"][0].output.time_dim_axis is None and network.parent_net is not None:
            try:
                get_layer(":i")
            except Exception:  # noqa: BLE001 (not inside a rec unit)
                pass


def _has_step(network: Any) -> bool:
    return ":i" in network.layers
