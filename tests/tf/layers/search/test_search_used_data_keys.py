"""A search network with a choice whose target is not available for inference does not use that target (its
template only reads the target's dims), as the reference (observed): ``used_data_keys`` holds only the input."""

import tensorflow as tf

from returnn.tf.network import ExternData, TFNetwork


def test_search_choice_target_not_a_used_key():
    with tf.Graph().as_default():
        extern_data = ExternData({"data": {"dim": 4},
                                  "classes": {"dim": 4, "sparse": True, "available_for_inference": False}})
        net = TFNetwork(extern_data=extern_data, search_flag=True, train_flag=False, eval_flag=False)
        net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": {
            "output": {"class": "choice", "from": "data:source", "input_type": "log_prob", "initial_output": 0,
                       "explicit_search_source": "prev:output", "beam_size": 2, "target": "classes"}}}})
        assert net.used_data_keys == {"data"}
        net = TFNetwork(extern_data=extern_data, search_flag=False, train_flag=True)
        net.construct_from_dict({"output": {"class": "copy", "from": "data:classes"}})
        assert net.used_data_keys == {"classes"}  # a layer reading it uses it
