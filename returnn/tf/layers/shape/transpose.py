"""``{"class": "transpose", "perm": {"T": "F", "F": "T"}}``: permute axes; ``perm`` maps each source axis
(description) to the position of another axis (description). The time/feature roles stay with their dims."""

from __future__ import annotations

from typing import Any, Dict

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _perm(inp: Tensor, perm: Dict[Any, Any], name: str, layer_class: str) -> list:
    order = list(range(inp.batch_ndim))
    mapping = {inp.get_axis_from_description(k): inp.get_axis_from_description(v) for k, v in perm.items()}
    if sorted(mapping) != sorted(mapping.values()):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="perm", problem="is not a permutation:", got=perm)
    for src, dst in mapping.items():
        order[dst] = src
    return order


@register_layer
class TransposeLayer(ConcatInputLayer):
    """``{B, T, F} --{T: F, F: T}--> {B, F, T}`` (raw order)."""

    layer_class = "transpose"

    def __init__(self, perm: Dict[Any, Any], **kwargs: Any):
        """
        :param perm: {source axis: target axis} (axis descriptions): where each axis goes
        """
        super().__init__(**kwargs)
        inp = self.input_data
        self.output.placeholder = inp.copy_transpose(_perm(inp, perm, self.name, self.layer_class)).placeholder

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), perm: Any = None, **kwargs: Any) -> Tensor:
        if not isinstance(perm, dict):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="perm", problem="invalid value", got=perm,
                                expected="a dict axis description -> axis description")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        return inp.copy_transpose(_perm(inp, perm, name, cls.layer_class))
