"""``{"class": "pad", "axes": "T", "padding": (1, 2), "value": 0, "mode": "constant"}``: pad axes.

``padding``: an int (both sides), a pair ``(left, right)``, or a list of pairs (one per axis). Dynamic axes get
lengths ``len + left + right``; as the reference, the padding is added to the raw (padded) tensor, so for a
sequence shorter than the batch maximum the right padding lies after the batch's padded frames (which are set
to 0 here, so results equal the reference's on zero-padded batches); static axes grow by ``left + right``. ``mode``: ``constant``, ``reflect``,
``symmetric`` (the latter two on static axes only).
"""

from __future__ import annotations

from typing import Any, List, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import mask_padded


def _paddings(axes: List[int], padding: Any, name: str, layer_class: str) -> List[Tuple[int, int]]:
    if isinstance(padding, int):
        return [(padding, padding)] * len(axes)
    padding = list(padding)
    if len(padding) == 2 and all(isinstance(p, int) for p in padding):
        return [tuple(padding)] * len(axes)
    if len(padding) != len(axes):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="padding",
                            problem=f"needs one (left, right) pair per axis ({len(axes)}):", got=padding)
    return [(p, p) if isinstance(p, int) else tuple(p) for p in padding]


@register_layer
class PadLayer(ConcatInputLayer):
    """Pads ``axes`` with ``value``."""

    layer_class = "pad"

    def __init__(self, axes: Any, padding: Any, value: float = 0, mode: str = "constant", **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axes_from_description(axes)
        pads = _paddings(ax, padding, self.name, self.layer_class)
        x = inp.placeholder
        for a, (left, right) in zip(ax, pads):
            d = inp.dims[a]
            tmp = inp.copy()
            tmp.placeholder = x
            if d.is_dynamic() and d.dyn_size is not None:
                x = mask_padded(tmp, a, 0)
                spec = [[0, 0]] * inp.batch_ndim
                spec[a] = [left, right]
                x = tf.pad(x, spec, constant_values=value)
                self.output.dims[a].dyn_size = d.dyn_size + left + right
            else:
                spec = [[0, 0]] * inp.batch_ndim
                spec[a] = [left, right]
                x = tf.pad(x, spec, mode=mode.upper(), constant_values=value) if mode == "constant" \
                    else tf.pad(x, spec, mode=mode.upper())
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, padding: Any = 0,
                               mode: str = "constant", **kwargs: Any) -> Tensor:
        if mode not in ("constant", "reflect", "symmetric"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value", got=mode,
                                expected="constant | reflect | symmetric")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axes_from_description(axes)
        out = inp
        for a, (left, right) in zip(ax, _paddings(ax, padding, name, cls.layer_class)):
            d = inp.dims[a]
            desc = f"({left}+{d.description})+{right}"
            if d.dimension is None:
                new = SpatialDim(desc, None, derived_from_tag=d)
            else:
                new = (FeatureDim if d.is_feature_dim() else SpatialDim)(desc, d.dimension + left + right)
            out = out.copy_template_replace_dim(a, new)
        return out
