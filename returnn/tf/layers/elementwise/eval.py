"""``{"class": "eval", "eval": "<python expr>", "from": [...]}``: an arbitrary TF expression over the sources.

In the expression, ``source(i)`` is the raw tensor of source ``i`` aligned (transposed/expanded) to the output
template, so elementwise ops broadcast; ``source(i, as_data=True)`` gives the Tensor. Also available: ``tf``,
``self`` (the layer), ``network``, and ``eval_locals``. The output template is the broadcast of all sources
(see :mod:`returnn.tf.layers.core.broadcast`), updated by ``out_type`` (dict of Tensor kwargs, e.g.
``{"dtype": "bool"}``, or a function ``(sources, name, network, **) -> Tensor``).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.broadcast import align_raw, common_template
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def eval_template(cls: Any, name: str, sources: Any, out_type: Any, network: Any) -> Tensor:
    """:return: broadcast template of the sources, with ``out_type`` applied"""
    if callable(out_type):
        return out_type(sources=sources, name=name, network=network)
    out = common_template([s.output for s in sources], name=name, layer_class=cls.layer_class) if sources \
        else Tensor(name=f"{name}_output", shape=(), batch_dim_axis=None)
    if out_type:
        opts = dict(out_type)
        if "dtype" in opts:
            out.dtype = opts.pop("dtype")
            if not out.dtype.startswith("int"):
                out.sparse_dim = None
        if opts.get("sparse") is False:
            out.sparse_dim = None
            opts.pop("sparse")
        if "dim" in opts:
            dim = opts.pop("dim")
            if dim != out.dim and out.feature_dim_axis is not None:
                from returnn.tensor import FeatureDim
                out = out.copy_template_replace_dim(out.feature_dim_axis, FeatureDim(f"{name}:feature", dim))
        if opts.get("shape") is not None:
            kwargs = {"name": f"{name}_output", "dtype": out.dtype, **opts}
            out = Tensor(**kwargs)
        elif opts:
            unknown = sorted(set(opts) - {"shape", "batch_dim_axis", "time_dim_axis"})
            if unknown:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_type",
                                    problem="unsupported keys in", got=unknown,
                                    expected="dtype, dim, sparse, shape (full Tensor kwargs with shape)")
    return out


def run_eval(layer: LayerBase, expr: Any, eval_locals: Optional[Dict[str, Any]] = None) -> tf.Tensor:
    """Evaluates ``expr`` (string or callable ``(source, self, ...) -> raw``) for ``layer``."""
    out = layer.output

    def source(i: int, auto_convert: bool = True, enforce_batch_major: bool = False, as_data: bool = False) -> Any:
        src = layer.sources[i].output
        if as_data:
            return src.copy_as_batch_major() if enforce_batch_major else src
        raw = align_raw(src, out, name=layer.name, layer_class=layer.layer_class)
        if auto_convert and src.dtype != out.dtype and out.dtype.startswith("float") and src.dtype.startswith("float"):
            raw = tf.cast(raw, out.dtype)
        return raw

    namespace: Dict[str, Any] = {"tf": tf, "np": np, "source": source, "self": layer, "network": layer.network}
    namespace.update(eval_locals or {})
    if callable(expr):
        return expr(source=source, self=layer, **(eval_locals or {}))
    try:
        return eval(expr, namespace)  # noqa: S307 (the config's own expression, as the reference)
    except (NameError, SyntaxError, TypeError, IndexError) as exc:
        raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="eval", problem="cannot evaluate",
                            got=expr, hint=f"{type(exc).__name__}: {exc}") from exc


@register_layer
class EvalLayer(LayerBase):
    """Output: ``eval`` evaluated over the sources (broadcast to a common template)."""

    layer_class = "eval"

    def __init__(self, eval: Any, eval_locals: Optional[Dict[str, Any]] = None,  # noqa: A002 (reference name)
                 activation: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        raw = run_eval(self, eval, eval_locals)
        raw = tf.convert_to_tensor(raw)
        raw = self.apply_activation(raw, activation)
        if raw.dtype.name != self.output.dtype:
            raw = tf.cast(raw, self.output.dtype)
        self.output.placeholder = raw

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), out_type: Any = None,
                               eval: Any = None, **kwargs: Any) -> Tensor:  # noqa: A002
        if eval is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="eval", problem="missing required argument")
        return eval_template(cls, name, sources, out_type, network)

