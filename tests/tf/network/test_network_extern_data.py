"""Tests for returnn.tf.network.extern_data.ExternData with the old extern_data forms, in a network.
Expected reprs observed from the reference (returnn 1.20261022, ``TFNetwork(config=...).extern_data``)."""

import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.tensor import DimensionTag
from returnn.tf.network import ExternData, TFNetwork


def test_tuple_form_in_network_like_reference():
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": (3, 2), "classes": (5, 1)}}), train_flag=True)
        data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
        assert repr(data) == "Tensor{'data', [B,T|'time:var:extern_data:data'[B],F|F'feature:data'(3)]}"
        assert repr(classes) == ("Tensor{'classes', [B,T|'time:var:extern_data:classes'[B]], dtype='int32', "
                                 "sparse_dim=Dim{F'classes:sparse-dim'(5)}, available_for_inference=False}")
        assert data.placeholder.name == "extern_data/placeholders/data/data:0"
        assert data.size_placeholder[0].name == "extern_data/placeholders/data/data_dim0_size:0"


def test_f2l_targets_not_available_for_inference_like_reference():
    ext = ExternData()
    ext.init_from_config(Config({"extern_data": {"data": (80, 2), "data_target": (512, 2)}}))
    assert ext.data["data"].available_for_inference and not ext.data["data_target"].available_for_inference
    assert ext.data["data_target"].batch_shape == (None, None, 512)


def test_constructor_takes_tuples_too():
    ext = ExternData({"data": (3, 2), "classes": {"dim": 4, "sparse": True}})
    assert ext.data["data"].dim == 3 and ext.data["classes"].sparse and not ext.data["classes"].available_for_inference


def test_bad_entry_names_the_key():
    with pytest.raises(ConfigValueError, match="extern_data\\['data'\\]"):
        ExternData().init_from_config(Config({"extern_data": {"data": (80, 0)}}))


def test_user_dim_tag_with_dimension_none():
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="time", dimension=None)
    ext = ExternData()
    ext.init_from_config(Config({"extern_data": {
        "data": {"dim": 3, "same_dim_tags_as": {"t": tag}},
        "classes": {"dim": 4, "sparse": True, "same_dim_tags_as": {"t": tag}}}}))
    assert ext.data["data"].dims[1] == ext.data["classes"].dims[1]


def test_same_dim_tags_as_names_the_axis_by_the_first_key_like_reference():
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="time", dimension=None)
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"a": {"dim": 2, "same_dim_tags_as": {"T": tag}},
                                                       "b": {"dim": 3, "same_dim_tags_as": {"T": tag}}}}),
                        train_flag=True)
        a, b = net.extern_data.data["a"], net.extern_data.data["b"]
    assert repr(a) == "Tensor{'a', [B,T|'time:var:extern_data:a'[B],F|F'feature:a'(2)]}"
    assert repr(b) == "Tensor{'b', [B,T|'time:var:extern_data:a'[B],F|F'feature:b'(3)]}"
    assert a.dims[1] == b.dims[1] and a.size_placeholder[0] is b.size_placeholder[0]


def test_same_dim_tags_as_with_a_name_instead_of_a_dim_is_one_clear_error():
    """The reference rejects it too (an assertion on the Dim); here the key and the expected value are named."""
    with pytest.raises(ConfigValueError, match=r"extern_data\['t'\]\['same_dim_tags_as'\].*DimensionTag") as exc:
        ExternData({"classes": {"dim": 5, "sparse": True},
                    "t": {"dim": None, "sparse": True, "same_dim_tags_as": {"t": "classes"}}})
    assert "{'t': 'classes'}" in str(exc.value)


def test_extern_data_from_dicts_has_placeholders_at_once_as_reference():
    import tensorflow as tf
    from returnn.tf.network import ExternData, TFNetwork

    with tf.Graph().as_default():
        ed = ExternData({"data": {"dim": 20, "sparse": True}, "classes": {"dim": 13, "sparse": True}})
        data = ed.data["data"]
        # observed from the reference: placeholders and lengths exist before any network is built
        assert data.placeholder is not None and data.placeholder.name == "extern_data/placeholders/data/data:0"
        assert data.dims[1].dyn_size_ext is not None and data.dims[1].dyn_size_ext.dims[0].is_batch_dim()
        assert data.batch is not None
        placeholder = data.placeholder
        net = TFNetwork(extern_data=ed)
        assert net.extern_data.data["data"].placeholder is placeholder  # the network keeps them
        with tf.compat.v1.Session() as session:
            feed = {placeholder: [[1, 2, 3], [4, 5, 6]], data.size_placeholder[0]: [3, 2]}
            assert session.run(net.get_data_batch_dim(), feed_dict=feed) == 2


def test_layer_kwargs_as_reference():
    import tensorflow as tf
    from returnn.config import Config
    from returnn.tf.network import TFNetwork

    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}))
        net.construct_from_dict({"output": {"class": "linear", "from": "data", "n_out": 4, "activation": "relu"}})
        layer = net.layers["output"]
        # observed: the transformed layer dict, with the resolved sources, name and output
        assert layer.kwargs["n_out"] == 4 and layer.kwargs["activation"] == "relu"
        assert layer.kwargs["name"] == "output" and layer.kwargs["output"] is layer.output
        assert [s.name for s in layer.kwargs["sources"]] == ["data"]


def _data_without_batch_info(batch_axis: bool):
    from returnn.tensor import Tensor
    if batch_axis:
        return Tensor("data", shape=(None, 3), dim=3)
    return Tensor("data", shape=(5, 3), dim=3, batch_dim_axis=None, time_dim_axis=0)


def test_entry_assigned_directly_gets_no_batch_info_and_a_layer_fails_like_reference():
    """As the reference (observed, e.g. its test_ResNet): an entry with a batch axis assigned to
    ``extern_data.data[key]`` directly gets no batch info from the network, and building any layer then fails with
    an AssertionError; through register_data it gets one and builds."""
    from returnn.errors import MissingBatchInfoError
    with tf.Graph().as_default():
        extern = ExternData()
        extern.data["data"] = data = _data_without_batch_info(batch_axis=True)
        net = TFNetwork(extern_data=extern)
        assert data.batch is None
        with pytest.raises(AssertionError, match=r"extern data \['data'\] has a batch axis but no batch info") as exc:
            net.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        assert isinstance(exc.value, MissingBatchInfoError) and exc.value.keys == ("data",)
    with tf.Graph().as_default():
        extern = ExternData()
        extern.register_data(_data_without_batch_info(batch_axis=True))
        net = TFNetwork(extern_data=extern)
        net.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        assert net.layers["output"].output.batch is not None


def test_entry_assigned_directly_without_batch_axis_builds_like_reference():
    with tf.Graph().as_default():
        extern = ExternData()
        extern.data["data"] = _data_without_batch_info(batch_axis=False)
        net = TFNetwork(extern_data=extern)
        net.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        assert net.layers["output"].output.batch_shape == (5, 3)
