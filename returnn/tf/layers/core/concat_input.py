"""``ConcatInputLayer`` (reference ``_ConcatInputLayer``): concatenates the sources on the feature axis and
applies the input ``dropout`` (training only unless ``dropout_on_forward``). The dropout mask is shared over
all axes except the feature axis unless ``dropout_noise_shape`` says otherwise, or ``dropout_axis`` names the axes
with independent noise (shared over all others), as the reference."""

from __future__ import annotations

from typing import Any, Optional

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template
from returnn.tf.ops.dropout import apply_dropout


class ConcatInputLayer(LayerBase):
    """Base for layers that take one input: ``self.input_data`` is the concatenation of all sources (feature
    axis), with dropout applied. ``dropout_noise_shape`` is a dict axis-description → 1 (share the mask over that
    axis) or None; ``{"*": None}`` gives independent noise everywhere (default: shared except over F)."""

    supports_input_dropout = True

    def __init__(self, dropout_axis: Any = None, **kwargs: Any):
        """:param dropout_axis: axis description(s) (e.g. ``["T", "F"]``) over which the input dropout noise is
            independent; the mask is shared over the other axes (instead of ``dropout_noise_shape``)"""
        super().__init__(**kwargs)
        self._input_data: Optional[Tensor] = None
        if self.sources:
            # broadcasting all sources was checked with the output template (where the layer has one from them)
            tmpl = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class,
                                           allow_broadcast_all_sources=True)
            tmpl.placeholder = concat_sources(self.sources, tmpl)
            if self.dropout:
                seed = self.network.random.randint(2 ** 31) if self.network is not None else None
                noise_shape = self.dropout_noise_shape
                if dropout_axis is not None:
                    axes = set(tmpl.get_axes_from_description(dropout_axis))
                    noise_shape = [None if i in axes else 1 for i in range(tmpl.batch_ndim)]
                tmpl.placeholder = apply_dropout(tmpl, self.dropout, train_flag=self.network.train_flag,
                                                 noise_shape=noise_shape,
                                                 on_forward=self.dropout_on_forward, seed=seed,
                                                 amp=self.network.amp if self.network is not None else None)
            self._input_data = tmpl

    @property
    def input_data(self) -> Optional[Tensor]:
        """Concatenated (and dropped-out) input; dims as :func:`concat_sources_template`."""
        return self._input_data


_ConcatInputLayer = ConcatInputLayer
