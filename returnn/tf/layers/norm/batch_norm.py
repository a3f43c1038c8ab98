"""``{"class": "batch_norm"}``: batch normalisation over all axes except the feature axis, padded frames
excluded from the statistics.

Behaviour observed from the reference (defaults ``momentum=0.99``, ``epsilon=1e-3``, ``use_shift``,
``use_std``, ``update_sample_only_in_training=False``):

- statistics are the masked mean/variance of the current batch (``masked_time=False``: over all frames, the
  padded ones included);
- moving averages are updated as ``moving = momentum * batch + (1 - momentum) * moving`` (initial mean 0,
  variance 1); the update ops go into ``tf.GraphKeys.UPDATE_OPS``;
- training normalises with the batch statistics; otherwise with the moving statistics after this step's update
  (``delay_sample_update``: before it);
- ``update_sample_only_in_training``: outside training the moving statistics are neither updated nor do they
  see the current batch.

Params (reference names), by ``param_version`` (default 0; 2 from behavior_version 12):

- 0: ``batch_norm/<layer>_<layer>_output_{mean,variance,gamma,beta}``, each ``[1, ..., F]`` (shape of the input
  with all non-feature axes 1);
- 1: ``batch_norm/{mean,variance,gamma,beta}``, same shapes;
- 2: ``batch_norm/v2_{mean,variance,gamma,beta}``, each ``[F]``; without ``masked_time`` the normalisation is TF's
  fused batch norm op (the same values).

A checkpoint of one version loads into another (``TFNetwork.load_params_from_file``).
"""

from __future__ import annotations

from typing import Any

from returnn.errors import LayerArgError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import dense_feature_sources_template


@register_layer
class BatchNormLayer(ConcatInputLayer):
    """Batch normalisation (:meth:`LayerBase.batch_norm` of the input; options not given keep its defaults).

    :param in_dim: if given, must be the input's feature dim
    """

    layer_class = "batch_norm"

    def __init__(self, in_dim: Any = None, use_shift: Any = NotSpecified, use_std: Any = NotSpecified,
                 use_sample: Any = NotSpecified, force_sample: Any = NotSpecified, momentum: Any = NotSpecified,
                 epsilon: Any = NotSpecified, update_sample_only_in_training: Any = NotSpecified,
                 delay_sample_update: Any = NotSpecified, param_version: Any = NotSpecified,
                 gamma_init: Any = NotSpecified, beta_init: Any = NotSpecified, masked_time: Any = NotSpecified,
                 **kwargs: Any):
        """
        :param use_shift: learn and add the shift ``beta`` (default True)
        :param use_std: learn and multiply by the scale ``gamma`` (default True)
        :param use_sample: accepted for compatibility with the reference; no effect here (training always normalises
            with the batch statistics)
        :param force_sample: accepted for compatibility with the reference; no effect here
        :param momentum: weight of the previous moving statistics in their update (default 0.99)
        :param epsilon: added to the variance before the square root (default 1e-3)
        :param update_sample_only_in_training: update the moving statistics in training steps only
        :param delay_sample_update: outside training, normalise with the moving statistics before this step's update
        :param param_version: naming and shape of the params: 0, 1 or 2 (see the description)
        :param gamma_init: initializer spec of the scale ``gamma`` (default ones)
        :param beta_init: initializer spec of the shift ``beta`` (default zeros)
        :param masked_time: exclude padded frames from the statistics (default True)
        """
        super().__init__(in_dim=in_dim, **kwargs)
        inp = self.input_data
        if in_dim is not None and in_dim != inp.feature_dim:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="in_dim",
                                problem="is not the input's feature dim", expected=repr(inp.feature_dim),
                                got=repr(in_dim))
        given = dict(use_shift=use_shift, use_std=use_std, use_sample=use_sample, force_sample=force_sample,
                     momentum=momentum, epsilon=epsilon, update_sample_only_in_training=update_sample_only_in_training,
                     delay_sample_update=delay_sample_update, param_version=param_version, gamma_init=gamma_init,
                     beta_init=beta_init, masked_time=masked_time)
        self.output.placeholder = self.batch_norm(inp, **{k: v for k, v in given.items() if v is not NotSpecified})

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return dense_feature_sources_template(sources, name=name, layer_class=cls.layer_class)
