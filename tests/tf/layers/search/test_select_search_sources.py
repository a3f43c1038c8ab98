"""``SelectSearchSourcesLayer`` (importable from ``returnn.tf.layers.basic``, as in the reference, where its
``layer_class`` is None too): re-orders ``B*K`` hypothesis rows by the source beams of a search step."""

import numpy as np
import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.basic import InternalLayer, SelectSearchSourcesLayer
from returnn.tf.network.search_choices import SearchChoices
from tf_net_helpers import build_net


def _internal(net, name, raw, **attrs):
    out = Tensor(name=name, shape=(2,), dtype="float32")
    out.placeholder = raw
    layer = InternalLayer(name=name, network=net, output=out)
    for key, value in attrs.items():
        setattr(layer, key, value)
    return layer


def test_select_if_needed_gathers_rows_by_source_beams(session):
    net = build_net({"output": {"class": "copy", "from": "data"}})
    values = np.arange(4 * 2, dtype="float32").reshape(4, 2)  # B=2, K=2: rows b*K + k
    src_beams = tf.constant([[1, 0], [0, 0]])
    choice = _internal(net, "choice", tf.zeros((4, 2)), search_src_beams=src_beams, beam_size=2)
    layer = _internal(net, "prev_state", tf.constant(values))
    assert SelectSearchSourcesLayer.layer_class is None
    assert SelectSearchSourcesLayer.select_if_needed(layer, None) is layer
    selected = SelectSearchSourcesLayer.select_if_needed(layer, SearchChoices(choice))
    assert isinstance(selected, SelectSearchSourcesLayer) and selected.output.dims == layer.output.dims
    np.testing.assert_array_equal(session.run(selected.output.placeholder), values[[1, 0, 2, 2]])
    dependent = _internal(net, "dependent", tf.constant(values))
    dependent.sources = [choice]
    assert SelectSearchSourcesLayer.select_if_needed(dependent, SearchChoices(choice)) is dependent
