"""``choice`` arguments this implementation does not support (the reference's sampling and multi-source search
options): a value other than the default raises one LayerArgError where it would take effect (the search options
where the layer searches, ``scheduled_sampling`` where it returns the target); where it has no effect in the reference
either (the search options in training), the layer builds."""

import re

import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.network import TFNetwork

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}


def _build(search, **choice_opts):
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=not search, search_flag=search)
        net.construct_from_dict({
            "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 4, "unit": {
                "output": {"class": "choice", "target": "classes", "beam_size": 2, "from": "prob",
                           "initial_output": 0, **choice_opts},
                "end": {"class": "compare", "from": "output", "value": 0},
                "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
                "prob": {"class": "softmax", "from": "emb", "target": "classes", "loss": "ce"}}}})
        return net


@pytest.mark.parametrize("key, value", [("base_beam_score_scale", 0.0), ("random_sample_scale", 1.0),
                                        ("length_normalization_exponent", 0.5), ("source_beam_sizes", [2, 2]),
                                        ("separate_beams", True)])
def test_search_option_rejected_in_search_only(key, value):
    with pytest.raises(LayerArgError, match=rf"(?s)output/output.*not supported.*{key}.*got: +{re.escape(repr(value))}"
                       ) as exc:
        _build(search=True, **{key: value})
    assert "the default" in str(exc.value)
    assert _build(search=False, **{key: value}).layers["output"]  # training: no effect in the reference either


def test_defaults_accepted():
    defaults = {"base_beam_score_scale": 1.0, "random_sample_scale": 0.0, "length_normalization_exponent": 1.0,
                "source_beam_sizes": None, "separate_beams": False, "scheduled_sampling": False}
    for search in (True, False):
        assert _build(search=search, **defaults).layers["output"]


def test_scheduled_sampling_rejected_where_the_target_is_returned():
    with pytest.raises(LayerArgError, match=r"(?s)not supported.*scheduled_sampling.*got: .*gold_mixin_prob"):
        _build(search=False, scheduled_sampling={"gold_mixin_prob": 0.5})
    assert _build(search=True, scheduled_sampling={"gold_mixin_prob": 0.5}).layers["output"]
