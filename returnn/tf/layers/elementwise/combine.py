"""``{"class": "combine", "kind": "add", "from": [a, b, ...]}``: elementwise combination with broadcasting.

Kinds: ``add``, ``sub``, ``mul``, ``truediv``, ``floordiv``, ``maximum``, ``minimum``, ``average``,
``squared_difference``, ``logical_and``, ``logical_or``, ``eval`` (with ``eval``, as the ``eval`` layer).
Optional ``activation`` after combining, ``with_bias`` (param ``b`` ``[F]``).
Shape: broadcast of the sources (axes matched by Dim, then by role; see ``core/broadcast.py``). Int sources with
a sparse first source keep its ``sparse_dim`` (as the reference). When every source lacks some axis of the output
(``[B,T1,F] + [B,T2,F]``), ``allow_broadcast_all_sources=True`` or an ``out_shape`` is needed
(``behavior_version >= 4``, as the reference; a deprecation warning below).
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.broadcast import align_raw
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.elementwise.eval import eval_template, run_eval
from returnn.tf.ops.init import get_initializer
from returnn.util.suggest import close_matches

_KINDS = {
    "add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "truediv": tf.truediv, "floordiv": tf.math.floordiv,
    "maximum": tf.maximum, "minimum": tf.minimum, "squared_difference": tf.math.squared_difference,
    "logical_and": tf.logical_and, "logical_or": tf.logical_or,
}
_ALL_KINDS = sorted([*_KINDS, "average", "eval"])


@register_layer
class CombineLayer(LayerBase):
    """Combines all sources elementwise."""

    layer_class = "combine"
    recurrent = True  # as the reference's class; an instance is only when its kind is "eval" (observed)

    def __init__(self, kind: str, activation: Optional[str] = None, with_bias: bool = False,
                 eval: Any = None, eval_locals: Optional[Dict[str, Any]] = None,  # noqa: A002
                 eval_for_output_loss: bool = False, allow_broadcast_all_sources: Any = None, **kwargs: Any):
        """
        :param kind: the combination: ``add``, ``sub``, ``mul``, ``truediv``, ``floordiv``, ``maximum``, ``minimum``,
            ``average``, ``squared_difference``, ``logical_and``, ``logical_or`` or ``eval``
        :param activation: activation function applied after combining (default none)
        :param with_bias: add a trainable bias ``b`` over the feature axis
        :param eval: with ``kind="eval"``: the expression (string or function), as in the ``eval`` layer
        :param eval_locals: with ``kind="eval"``: extra names visible to the expression
        :param eval_for_output_loss: accepted for compatibility with the reference; no effect here
        :param allow_broadcast_all_sources: allow an output axis that none of the sources has all of (default:
            deprecated from ``behavior_version`` 4 without ``out_shape``)
        """
        super().__init__(**kwargs)
        _check_kind(self.layer_class, self.name, kind)
        self.recurrent = kind == "eval" or bool(getattr(self.loss, "recurrent", False))
        out = self.output
        if kind == "eval":
            raw = tf.convert_to_tensor(run_eval(self, eval, eval_locals))
        else:
            raws = [align_raw(s.output, out, name=self.name, layer_class=self.layer_class) for s in self.sources]
            raws = [tf.cast(r, out.dtype) if r.dtype.name != out.dtype and not out.dtype == "bool" else r for r in raws]
            if kind == "average":
                raw = functools.reduce(tf.add, raws) / float(len(raws))
            else:
                raw = functools.reduce(_KINDS[kind], raws)
        if with_bias:
            bias = self.create_param("b", (out.dim,), get_initializer(0.0))
            raw = raw + bias
        raw = self.apply_activation(raw, activation)
        self.output.placeholder = raw

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), kind: str = None,
                               out_type: Any = None, eval: Any = None, n_out: Any = None,  # noqa: A002
                               **kwargs: Any) -> Tensor:
        """The output template. ``kind`` None (not given) is accepted here, as the reference's template does
        not depend on it (e.g. a direct call for a template); constructing the layer still needs one.

        :raises LayerArgError: unknown ``kind``, ``eval`` missing for kind ``eval``
        """
        if kind is not None:
            _check_kind(cls.layer_class, name, kind)
        if kind == "eval" and eval is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="eval",
                                problem='missing (needed with kind "eval")')
        out = eval_template(cls, name, sources, out_type, network,  # broadcasting all sources: see core/broadcast.py
                            **{k: kwargs[k] for k in ("allow_broadcast_all_sources", "out_shape") if k in kwargs})
        if (not out_type and sources and sources[0].output.sparse and out.sparse_dim is None
                and out.dtype.startswith("int") and all(s.output.dtype.startswith("int") for s in sources)):
            out.sparse_dim = sources[0].output.sparse_dim  # int values: the first source's classes (as the reference)
        if kind in ("logical_and", "logical_or"):
            out.dtype = "bool"
            out.sparse_dim = None
        return out


def _check_kind(layer_class: str, name: str, kind: Any) -> None:
    """:raises LayerArgError: ``kind`` is not one of the known kinds (None included)"""
    if kind not in _ALL_KINDS:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="kind", problem="invalid value",
                            got=kind, expected=" | ".join(_ALL_KINDS), suggestions=close_matches(str(kind), _ALL_KINDS))
