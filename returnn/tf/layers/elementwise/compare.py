"""``{"class": "compare", "kind": "equal", "from": [...], "value": ...}``: elementwise comparison → bool.

Kinds: ``equal``, ``not_equal``, ``less``, ``less_equal``, ``greater``, ``greater_equal``. With one source and
``value``, compares against that constant; with several sources, compares them pairwise left to right (all must
hold). Shape: broadcast of the sources; dtype bool.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.broadcast import align_raw, common_template, loop_dims_of
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.util.suggest import close_matches

_KINDS = {"equal": tf.equal, "not_equal": tf.not_equal, "less": tf.less, "less_equal": tf.less_equal,
          "greater": tf.greater, "greater_equal": tf.greater_equal}


@register_layer
class CompareLayer(LayerBase):
    """Elementwise comparison; output dtype bool."""

    layer_class = "compare"

    def __init__(self, kind: str = "equal", value: Optional[Any] = None, allow_broadcast_all_sources: Any = None,
                 **kwargs: Any):
        """
        :param kind: ``equal``, ``not_equal``, ``less``, ``less_equal``, ``greater`` or ``greater_equal``
        :param value: with one source: the constant it is compared against
        :param allow_broadcast_all_sources: accepted for compatibility with the reference; no effect here (the
            sources always broadcast to their common dims)
        """
        super().__init__(**kwargs)
        raws = [align_raw(s.output, self.output, name=self.name) for s in self.sources]
        if value is not None:
            raws.append(tf.constant(value, dtype=raws[0].dtype if raws else None))
        fn = _KINDS[kind]
        result = None
        for a, b in zip(raws[:-1], raws[1:]):
            r = fn(a, b)
            result = r if result is None else tf.logical_and(result, r)
        self.output.placeholder = result

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), kind: str = "equal",
                               value: Any = None, **kwargs: Any) -> Tensor:
        if kind not in _KINDS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="kind", problem="invalid value",
                                got=kind, expected=" | ".join(_KINDS), suggestions=close_matches(str(kind), _KINDS))
        if len(sources) + (value is not None) < 2:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="value",
                                problem="needs two sources, or one source and a value")
        out = common_template([s.output for s in sources], name=name, layer_class=cls.layer_class,
                              keep_apart=loop_dims_of(network))
        out.dtype = "bool"
        out.sparse_dim = None
        if out.feature_dim_axis is None and sources and sources[0].output.sparse:
            pass
        return out
