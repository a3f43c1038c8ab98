"""``{"class": "reinterpret_data", ...}``: relabel axes, sizes or sparsity without computing anything.

Options (reference names): ``switch_axes`` (two axis descriptions, e.g. ``["T", "F"]``: swaps their roles and
dims), ``size_base`` (layer whose time axis replaces ours; the time axes become the same Dim, so sizes are
shared), ``set_axes`` (dict ``"T"``/``"F"`` → axis description or None), ``enforce_batch_major``,
``enforce_time_major``, ``set_sparse`` (bool), ``set_sparse_dim`` (int), ``increase_sparse_dim`` (int added to
the sparse dim), ``set_dim_tags`` (dict axis description → Dim; a new dynamic Dim without lengths gets the
replaced axis' lengths, as an op ``<layer>/<dim>_size``, as the reference).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.scope_names import get_valid_scope_name_from_str
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


@register_layer
class ReinterpretDataLayer(LayerBase):
    """Output: the input raw tensor (transposed only for ``enforce_*_major``) with a new template."""

    layer_class = "reinterpret_data"

    def __init__(self, switch_axes: Any = None, size_base: Optional[LayerBase] = None,
                 set_axes: Optional[Dict[str, Any]] = None, enforce_batch_major: bool = False,
                 enforce_time_major: bool = False, set_sparse: Optional[bool] = None,
                 set_sparse_dim: Any = None, increase_sparse_dim: Optional[int] = None,
                 set_dim_tags: Optional[Dict[str, Dim]] = None, batch_dim_base: Any = None, **kwargs: Any):
        """
        :param switch_axes: two axis descriptions whose roles and dims are swapped, e.g. ``["T", "F"]``
        :param size_base: layer whose time axis (with its lengths) replaces ours
        :param set_axes: {``"T"``/``"F"``: axis description or None}: which axis is the time/feature axis
        :param enforce_batch_major: transpose the batch axis to the front
        :param enforce_time_major: transpose the time axis to the front
        :param set_sparse: make the output sparse (True) or dense (False)
        :param set_sparse_dim: the number of classes of the sparse output
        :param increase_sparse_dim: added to the number of classes of the sparse output
        :param set_dim_tags: {axis description: Dim}: the Dims the axes get
        :param batch_dim_base: accepted for compatibility with the reference; no effect here
        """
        super().__init__(**kwargs)
        inp = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        inp.placeholder = concat_sources(self.sources, inp)
        if enforce_batch_major:
            inp = inp.copy_as_batch_major()
        if enforce_time_major:
            inp = inp.copy_as_time_major()
        raw = inp.placeholder
        if inp.dtype != self.output.dtype:
            raw = tf.cast(raw, self.output.dtype)
        self.output.placeholder = tf.identity(raw)
        for desc, tag in (set_dim_tags or {}).items():  # a new dynamic dim without lengths takes the input axis' ones
            old = inp.dims[inp.get_axis_from_description(desc)]
            if isinstance(tag, Dim) and tag.dimension is None and tag.dyn_size is None and old.dyn_size is not None:
                tag.dyn_size = tf.identity(old.dyn_size, name=get_valid_scope_name_from_str(f"{tag.description}_size"))

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("size_base"), str):
            d["size_base"] = get_layer(d["size_base"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), switch_axes: Any = None,
                               size_base: Optional[LayerBase] = None, set_axes: Optional[Dict[str, Any]] = None,
                               enforce_batch_major: bool = False, enforce_time_major: bool = False,
                               set_sparse: Optional[bool] = None, set_sparse_dim: Any = None,
                               increase_sparse_dim: Optional[int] = None,
                               set_dim_tags: Optional[Dict[str, Dim]] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: invalid combinations (e.g. ``increase_sparse_dim`` on dense data)"""
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if enforce_batch_major:
            out = out.copy_as_batch_major()
        if enforce_time_major:
            out = out.copy_as_time_major()
        if switch_axes:
            if len(switch_axes) != 2:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="switch_axes",
                                    problem="needs exactly two axis descriptions:", got=switch_axes)
            a = out.get_axis_from_description(switch_axes[0])
            b = out.get_axis_from_description(switch_axes[1])
            dims = list(out.dims)
            dims[a], dims[b] = dims[b], dims[a]

            def swap(x: Optional[int]) -> Optional[int]:
                return b if x == a else a if x == b else x

            out = Tensor(**{**out.get_kwargs(), "dims": dims, "time_dim_axis": swap(out.time_dim_axis),
                            "feature_dim_axis": swap(out.feature_dim_axis)})
        if set_axes:
            for key, desc in set_axes.items():
                axis = None if desc is None else out.get_axis_from_description(desc)
                if key.lower() in ("t", "time"):
                    out.time_dim_axis = axis
                elif key.lower() in ("f", "feature"):
                    out.feature_dim_axis = axis
                else:
                    raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="set_axes",
                                        problem="unsupported key", got=key, expected="'T' or 'F'")
        if size_base is not None:
            base_time = size_base.output.time_dim
            if out.time_dim_axis is None or base_time is None:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="size_base",
                                    problem="needs a time axis in both the input and the size_base layer")
            out = out.copy_template_replace_dim(out.time_dim_axis, base_time)
        if set_dim_tags:
            for desc, tag in set_dim_tags.items():
                out = out.copy_template_replace_dim(out.get_axis_from_description(desc), tag)
        if set_sparse is not None or set_sparse_dim is not None or increase_sparse_dim:
            kwargs_t = out.get_kwargs()
            if set_sparse is False:
                kwargs_t["sparse_dim"] = None
            else:
                cur = out.sparse_dim
                if set_sparse and cur is None and set_sparse_dim is None:
                    if out.feature_dim_axis is None:
                        raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="set_sparse",
                                            problem="needs set_sparse_dim (no feature axis to take the dim from)")
                    cur = out.feature_dim
                    kwargs_t["feature_dim_axis"] = None
                if set_sparse_dim is not None:
                    cur = set_sparse_dim if isinstance(set_sparse_dim, Dim) else FeatureDim(f"{name}:sparse", set_sparse_dim)
                if increase_sparse_dim:
                    if cur is None:
                        raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="increase_sparse_dim",
                                            problem="needs sparse input:", got=repr(out))
                    cur = FeatureDim(f"{cur.description}+{increase_sparse_dim}", cur.dimension + increase_sparse_dim)
                kwargs_t["sparse_dim"] = cur
                if kwargs_t.get("dtype", "").startswith("float"):
                    kwargs_t["dtype"] = "int32"
            out = Tensor(**kwargs_t)
        return out
