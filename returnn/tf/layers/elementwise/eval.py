"""``{"class": "eval", "eval": "<python expr>", "from": [...]}``: an arbitrary TF expression over the sources.

The output template is the broadcast of all sources (see :mod:`returnn.tf.layers.core.broadcast`), changed by
``out_type``: a dict with ``dtype``/``dim``/``sparse``, or full Tensor kwargs with ``shape`` (its dynamic axes take
the dynamic dims of the first source that has some, in order, as the reference: ``{"shape": (None, 1)}`` over
``{B, T, F}`` gives ``{B, T, F'(1)}``), or a function ``out_type(sources=..., name=..., network=..., **opts)``
returning a Tensor (it gets the layer's options, as the reference).

``eval`` is a string or a function. As the reference (observed):

- a string is evaluated in the namespace of ``returnn.tf.util.basic`` (``TFUtil``: ``where_bc``,
  ``safe_log``, ...) plus ``tf`` (the ``tensorflow`` module), ``self`` (the layer: ``self.network``,
  ``self.sources``, ``self.output``), ``source`` and the ``eval_locals`` dict;
- a function is called as ``eval(self=layer, source=source, **eval_locals)``;
- ``source(i, auto_convert=True, enforce_batch_major=False, as_data=False)``: source ``i``; with ``auto_convert``
  transposed and expanded (size-1 axes) to the output's axes, so elementwise ops broadcast (no dtype cast), then
  batch-major if ``enforce_batch_major``; the raw tensor, or the Tensor with ``as_data``;
- every source must be used (``source(i)`` called for each ``i``), else the layer is rejected.

The result is cast to the output dtype.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, NotSpecified, SpatialDim, Tensor
from returnn.tf.layers.core.broadcast import common_template, loop_dims_of, match_axes
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def eval_template(cls: Any, name: str, sources: Sequence[LayerBase], out_type: Any, network: Any,
                  **opts: Any) -> Tensor:
    """:return: broadcast template of the sources, with ``out_type`` applied (see module doc)

    :raises LayerArgError: unsupported ``out_type`` keys without ``shape``
    """
    if callable(out_type):
        for key, default in (("n_out", NotSpecified), ("loss", None), ("target", None), ("size_target", None)):
            opts.setdefault(key, default)  # the reference passes these always
        return out_type(sources=list(sources), name=name, network=network, **opts)
    if out_type and (out_type.get("shape") is not None or out_type.get("dims") is not None
                     or out_type.get("dim_tags") is not None):
        return _template_from_full_out_type(name, sources, dict(out_type))
    allow = opts.get("allow_broadcast_all_sources") is True or opts.get("out_shape") is not None
    out = common_template([s.output for s in sources], name=name, layer_class=cls.layer_class,
                          allow_broadcast_all_sources=allow, out_shape=opts.get("out_shape"),
                          keep_apart=loop_dims_of(network)) if sources \
        else Tensor(name=f"{name}_output", shape=(), batch_dim_axis=None)
    complete = [s.output for s in sources
                if len(s.output.dims) == len(out.dims) and set(s.output.dims) <= set(out.dims)]
    if (complete and complete[0].sparse and out.sparse_dim is None
            and all(s.output.dtype.startswith("int") for s in sources)):
        # int values: the classes of the first source with all the output's axes (as the reference, observed: labels
        # [B,T] and lengths [B] in either order; not a dense first source of the same axes)
        out.sparse_dim = complete[0].sparse_dim
    if out_type:
        opts_ = dict(out_type)
        if "dtype" in opts_:
            out.dtype = opts_.pop("dtype")
            if not out.dtype.startswith("int"):
                out.sparse_dim = None
        if opts_.get("sparse") is False:
            out.sparse_dim = None
            opts_.pop("sparse")
        if opts_.get("sparse") is True:
            opts_.pop("sparse")
            if not out.sparse:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_type",
                                    problem="sparse=True over a dense input (its feature axis stays) in", got=out_type,
                                    hint="give the full output with shape, e.g. {'shape': (None,), 'sparse': True, "
                                         "'dim': N} (the reference fails here on the shape too)")
        if "dim" in opts_:
            dim = opts_.pop("dim")
            if out.sparse and dim != out.dim:  # as the reference: new classes, same description
                out.sparse_dim = FeatureDim(out.sparse_dim.description, dim)
            elif dim != out.dim and out.feature_dim_axis is not None:
                out = out.copy_template_replace_dim(out.feature_dim_axis, FeatureDim(f"{name}:feature", dim))
        unknown = sorted(set(opts_) - {"batch_dim_axis", "time_dim_axis", "name"})
        if unknown:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_type",
                                problem="unsupported keys in", got=unknown,
                                expected="dtype, dim, sparse, or full Tensor kwargs with shape")
    return out


def _template_from_full_out_type(name: str, sources: Sequence[LayerBase], opts: Dict[str, Any]) -> Tensor:
    """``out_type`` with ``shape``: a new Tensor whose new dynamic axes take the dynamic dims of the first source
    that has some, preferring one whose dims are all defined (:attr:`returnn.tensor.Dim.undefined`)"""
    opts.setdefault("name", f"{name}_output")
    out = Tensor(**opts)
    new_axes = [i for i, d in enumerate(out.dims)
                if not d.is_batch_dim() and d.dimension is None and d.dyn_size is None]
    candidates = [[d for d in src.output.dims if not d.is_batch_dim() and d.dimension is None] for src in sources]
    candidates = [dims for dims in candidates if dims]
    defined = [dims for dims in candidates if not any(d.undefined for d in dims)]
    source_dyn: List[Dim] = (defined or candidates or [[]])[0]
    for axis, dim in zip(new_axes, source_dyn):
        out = out.copy_template_replace_dim(axis, dim)
    first = sources[0].output if sources else None
    if (first is not None and first.sparse and out.feature_dim_axis is None
            and not {"dtype", "dim", "sparse", "sparse_dim"} & set(opts)):
        # labels of a sparse source without a feature axis (e.g. one frame of them): its dtype and classes (as the
        # reference, observed: {"shape": ()} of an eval over sparse data)
        out.dtype = first.dtype
        out.sparse_dim = first.sparse_dim
    return out


def aligned_source(src: Tensor, out: Tensor, *, name: str, layer_class: str) -> Tensor:
    """:return: ``src`` (with raw tensor) transposed and expanded to the axes of ``out``: where ``out`` has an
    axis that ``src`` lacks, a size-1 axis (``<dim>_dummy_dim1``, as the reference names it); ``src`` itself
    when nothing changes"""
    mapping = match_axes(src, out, name=name, layer_class=layer_class)
    feat = src.feature_dim_axis
    if feat is not None and mapping[feat] is None and out.feature_dim_axis is not None \
            and out.feature_dim_axis not in mapping:
        mapping[feat] = out.feature_dim_axis  # feature axes correspond even when their sizes differ (reference)
    if mapping == list(range(out.batch_ndim)):
        return src
    unmapped = [i for i, j in enumerate(mapping) if j is None]
    if any(src.dims[i].dimension != 1 for i in unmapped):
        # an axis the output does not have: not alignable (e.g. an eval that reduces it); as the reference, the
        # expression must then use source(i, auto_convert=False)
        raise LayerArgError(layer=name, layer_class=layer_class, arg="eval",
                            problem=f"source {src.name!r} has axes the output does not have; source(i) cannot "
                                    "align it to the output in", expected=out.get_dims_repr(),
                            got=src.get_dims_repr(),
                            hint="use source(i, auto_convert=False) (raw, as is), or set out_type")
    src_axis_for = {j: i for i, j in enumerate(mapping) if j is not None}
    dims = [src.dims[src_axis_for[j]] if j in src_axis_for else SpatialDim(f"{od.description}_dummy_dim1", 1)
            for j, od in enumerate(out.dims)]
    kwargs: Dict[str, Any] = {"time_dim_axis": out.time_dim_axis if out.time_dim_axis in src_axis_for else None}
    if src.sparse:
        kwargs["sparse_dim"] = src.sparse_dim
    else:
        kwargs["feature_dim_axis"] = out.feature_dim_axis if out.feature_dim_axis in src_axis_for else None
    res = Tensor(name=src.name, dims=dims, dtype=src.dtype, **kwargs)
    raw = src.placeholder
    if unmapped:
        raw = tf.squeeze(raw, axis=unmapped)
    kept = [j for j in mapping if j is not None]  # output axis of each remaining raw axis
    order = sorted(range(len(kept)), key=lambda k: kept[k])
    if order != list(range(len(kept))):
        raw = tf.transpose(raw, order)
    if len(kept) != out.batch_ndim:
        shape = tf.shape(raw)
        positions = sorted(kept)
        raw = tf.reshape(raw, tf.stack([shape[positions.index(j)] if j in positions else 1
                                        for j in range(out.batch_ndim)]))
    res.placeholder = raw
    return res


def eval_namespace(layer: LayerBase, source: Callable[..., Any], eval_locals: Optional[Dict[str, Any]]
                   ) -> Dict[str, Any]:
    """:return: the globals of an ``eval`` string: ``returnn.tf.util.basic``'s names, ``tf``, ``self``,
    ``source``, then ``eval_locals``"""
    # The public module TFUtil is the namespace the reference gives (not a dependency of this module): imported
    # here, so that it may import layer code itself.
    import returnn.tf.util.basic as tf_util

    namespace = dict(vars(tf_util))
    namespace.update({"tf": tf, "self": layer, "source": source})
    namespace.update(eval_locals or {})
    return namespace


def run_eval(layer: LayerBase, expr: Any, eval_locals: Optional[Dict[str, Any]] = None) -> Any:
    """Evaluates ``expr`` (string or function, see module doc) for ``layer``.

    :return: the raw result
    :raises LayerArgError: the string cannot be evaluated (syntax, unknown name, ...), or a source is unused
    """
    out = layer.output
    used = set()

    def source(i: int, auto_convert: bool = True, enforce_batch_major: bool = False, as_data: bool = False) -> Any:
        used.add(i)
        if not 0 <= i < len(layer.sources):
            raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="eval",
                                problem=f"source({i}) is out of range in", got=expr,
                                expected=f"source(0) ... source({len(layer.sources) - 1}) (the layers in \"from\")")
        data = layer.sources[i].output
        if auto_convert:
            data = aligned_source(data, out, name=layer.name, layer_class=layer.layer_class)
        if enforce_batch_major:
            data = data.copy_as_batch_major()
        return data if as_data else data.placeholder

    if callable(expr):
        result = expr(self=layer, source=source, **(eval_locals or {}))
    else:
        try:
            result = eval(expr, eval_namespace(layer, source, eval_locals))  # noqa: S307 (the config's expression)
        except (NameError, SyntaxError) as exc:
            raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="eval",
                                problem="cannot evaluate", got=expr, hint=f"{type(exc).__name__}: {exc}") from exc
    unused = sorted(set(range(len(layer.sources))) - used)
    if unused:
        raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="eval",
                            problem=f"does not use source(s) {unused} (every layer in \"from\" must be used):",
                            got=expr if isinstance(expr, str) else getattr(expr, "__name__", expr),
                            hint="remove the unused layers from \"from\", or use them (as the reference requires)")
    return result


@register_layer
class EvalLayer(LayerBase):
    """Output: ``eval`` evaluated over the sources (broadcast to a common template)."""

    layer_class = "eval"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, eval: Any, eval_locals: Optional[Dict[str, Any]] = None,  # noqa: A002 (reference name)
                 activation: Optional[str] = None, allow_broadcast_all_sources: Any = None, **kwargs: Any):
        """:param allow_broadcast_all_sources: True: the sources may all lack some axis of the output (see
            :mod:`returnn.tf.layers.core.broadcast`; an ``out_shape`` allows it too)
        :param eval: the expression: a string evaluated with ``source``, ``self``, ``tf`` ..., or a function
        :param eval_locals: extra names the expression can use
        :param activation: activation function applied to the result (default none)
        """
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
        """:raises LayerArgError: ``eval`` missing; unsupported ``out_type``"""
        if eval is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="eval", problem="missing required argument")
        return eval_template(cls, name, sources, out_type, network, eval=eval, **kwargs)
