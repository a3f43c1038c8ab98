"""The default output template of a layer (``LayerBase.get_out_data_from_opts``): the sources' dims with the feature
dim from ``n_out`` / ``out_dim`` / ``out_type`` / the loss target."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, NotSpecified, Tensor

if TYPE_CHECKING:
    from returnn.tf.layers.core.layer_base import LayerBase


def get_target_template(network: Any, target: str, target_layers: Optional[Dict[str, Any]] = None) -> Tensor:
    """:return: the template of ``target`` (an extern data key, or ``"layer:<name>"``)
    :raises LayerArgError: (via the network) if the key is not in ``extern_data``
    """
    if target.startswith("layer:"):
        if target_layers and target in target_layers:
            return target_layers[target].output
        return network.get_layer(target[len("layer:"):]).output
    return network.get_extern_data(target, mark_data_key_as_used=True)


def base_out_template(cls: Any, *, name: str, network: Any, sources: Sequence[LayerBase], n_out: Any = NotSpecified,
                      out_type: Optional[Dict] = None, out_dim: Any = None, target: Any = None,
                      target_layers: Any = None, loss: Any = None, sources_template: Optional[Tensor] = None,
                      out_dim_description: Optional[str] = None, require_n_out: bool = False) -> Tensor:
    """Shared template logic: take ``sources_template`` (default: first source; without sources the target's
    template), replace the feature dim.

    The new feature dim is, in order: ``out_dim``; ``out_type["dim"]``; ``n_out``; the target's dim when a loss
    is set (plus the loss's extra classes, e.g. the CTC blank) or, without a loss, when ``n_out`` is not set (as the
    reference). When a loss target is given, the target's sparse dim object itself is used as the feature dim if
    the sizes agree; without a loss only when the dim comes from the target.

    :raises LayerShapeError: ``n_out`` disagrees with the target's dim
    :raises LayerArgError: ``require_n_out`` and no output dim can be determined
    """
    if out_type and "dim" in out_type and n_out is NotSpecified:
        n_out = out_type["dim"]
    if out_dim is not None:
        n_out = out_dim.dimension
    target_dim_obj: Optional[Dim] = None
    target_tmpl: Optional[Tensor] = None
    if loss is not None and target and not isinstance(target, (list, tuple)):
        target_tmpl = get_target_template(network, target, target_layers)
        target_dim = target_tmpl.dim
        extra = loss.get_auto_output_layer_dim_extra() if hasattr(loss, "get_auto_output_layer_dim_extra") else 0
        if target_dim is not None:
            expected = target_dim + extra
            if n_out is NotSpecified or n_out is None:
                n_out = expected
            elif n_out != expected:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"n_out={n_out} does not match the dim of target {target!r}",
                                      expected=f"n_out={expected} (target dim {target_dim}"
                                               + (f" + {extra} for loss {loss.class_name!r}" if extra else "") + ")",
                                      got=f"n_out={n_out}", hint="remove n_out (it is taken from the target) or fix it")
            if extra == 0:
                target_dim_obj = target_tmpl.feature_dim_or_sparse_dim
            else:
                target_dim_obj = FeatureDim(f"({target_tmpl.feature_dim_or_sparse_dim.description})+{extra}", expected)
    elif target and not isinstance(target, (list, tuple)) and (n_out is NotSpecified or n_out is None):
        # as the reference: without a loss, a target still gives the output dim when n_out is not set
        target_tmpl = get_target_template(network, target, target_layers)
        if target_tmpl.dim is not None:
            n_out = target_tmpl.dim
            target_dim_obj = target_tmpl.feature_dim_or_sparse_dim
    if sources_template is None:
        if sources:
            sources_template = sources[0].output
        elif target_tmpl is not None:  # no sources: the target's dims (dense), as the reference
            sources_template = target_tmpl
        else:
            sources_template = Tensor(name=f"{name}_output", shape=(), batch_dim_axis=0)
    out = sources_template.copy_template(name=f"{name}_output")
    if n_out is NotSpecified or n_out is None:
        if require_n_out:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument",
                                hint="set n_out (or out_dim), or set loss + target to take it from the target")
        return out
    new_dim = out_dim if out_dim is not None else target_dim_obj
    if new_dim is None:
        new_dim = FeatureDim(out_dim_description or f"{name}:feature-dense", n_out)
    dtype = (out_type or {}).get("dtype", "float32")
    if out.sparse:
        dims = list(out.dims) + [new_dim]
        return Tensor(name=f"{name}_output", dims=dims, dtype=dtype, time_dim_axis=out.time_dim_axis,
                      feature_dim_axis=len(dims) - 1)
    if out.feature_dim_axis is None:
        dims = list(out.dims) + [new_dim]
        return Tensor(name=f"{name}_output", dims=dims, dtype=dtype, time_dim_axis=out.time_dim_axis,
                      feature_dim_axis=len(dims) - 1)
    res = out.copy_template_replace_dim(out.feature_dim_axis, new_dim)
    res.dtype = dtype
    return res
