"""Side-by-side cases: layer classes that a config defines itself and registers (``register_layer_class``), as
published configs do for ``sampled_logits``/``sampling`` (2020-lm-domain-robust), ``hmm_factorization``
(2020-zero-order-latent-attention) and ``name_axis`` (2022-lsh-attention). The reference registers none of these
names, so a config is free to take them (registering a taken name fails on both sides).

``sampled_logits`` here is a deterministic stand-in written in the style of those configs: a ``_ConcatInputLayer``
subclass with a layer argument resolved in ``transform_config_dict``, its own ``tf.compat.v1.get_variable``
parameters added with ``add_param``, its output template from ``get_out_data_from_opts`` and ``self.output.placeholder``
set in ``__init__``. It scales each input frame by the sigmoid of the logit of that frame's label.
"""

import tensorflow as tf

from returnn.tf.layers.basic import _ConcatInputLayer, register_layer_class


class SampledLogitsLayer(_ConcatInputLayer):
    """input [B,T,F] (any order), labels [B,T] sparse (num_classes) -> input * sigmoid(x . W[label] + b[label])"""

    layer_class = "sampled_logits"

    def __init__(self, labels, num_classes, **kwargs):
        super(SampledLogitsLayer, self).__init__(**kwargs)
        x = self.input_data.copy_as_batch_major()
        in_dim = x.batch_shape[-1]
        weights = self.add_param(tf.compat.v1.get_variable(
            "W", shape=(num_classes, in_dim), initializer=tf.compat.v1.glorot_uniform_initializer()))
        bias = self.add_param(tf.compat.v1.get_variable(
            "b", shape=(num_classes,), initializer=tf.compat.v1.random_normal_initializer(stddev=0.5)))
        y = labels.output.copy_as_batch_major().placeholder  # [B,T]
        logit = tf.reduce_sum(x.placeholder * tf.gather(weights, y), axis=-1) + tf.gather(bias, y)  # [B,T]
        self.output.placeholder = x.placeholder * tf.expand_dims(tf.sigmoid(logit), -1)

    @classmethod
    def transform_config_dict(cls, d, network, get_layer):
        super(SampledLogitsLayer, cls).transform_config_dict(d, network=network, get_layer=get_layer)
        d["labels"] = get_layer(d["labels"])

    @classmethod
    def get_out_data_from_opts(cls, name, sources, **kwargs):
        return sources[0].output.copy_template(name="%s_output" % name).copy_as_batch_major()


register_layer_class(SampledLogitsLayer)

_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}

CASES = [
    {"name": "sampled_logits_config_defined", "extern_data": _DATA,
     "network": {"emb": {"class": "linear", "activation": "tanh", "n_out": 6, "from": "data:classes"},
                 "output": {"class": "sampled_logits", "labels": "data:classes", "num_classes": 4, "from": "emb"}}},
    {"name": "sampled_logits_config_defined_in_rec_loop", "extern_data": _DATA, "train": True,
     "network": {"output": {"class": "rec", "from": "data", "unit": {
         "lab": {"class": "reduce", "mode": "argmax", "axis": "F", "from": "data:source"},  # sparse, dim 5
         "lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": ["data:source", "prev:output"]},
         "output": {"class": "sampled_logits", "labels": "lab", "num_classes": 5, "from": "lin"}}}}},
]
