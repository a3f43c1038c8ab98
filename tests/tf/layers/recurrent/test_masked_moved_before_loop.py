"""A ``masked_computation`` with ``masked_from`` that only ``unmask`` layers read moves out before the loop (over its
``masked_from`` frames) while its mask stays in the loop (``collocate_with`` a layer on a ``prev:`` cycle); the
``unmask`` in the loop then counts the masked frames and picks the matching one. Which layers move where and the
output values were observed by running the reference on the same networks and inputs."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import ExternData, TFNetwork

tf.compat.v1.disable_eager_execution()


def _unit(variant):
    unit = {
        "const1": {"class": "constant", "value": 1, "with_batch_dim": True},
        "in_loop_dummy": {"class": "combine", "kind": "add", "from": ["const1", "prev:in_loop_dummy"]},
        "mask": {"class": "eval", "from": [":i", "const1", "in_loop_dummy"], "out_type": {"dtype": "bool"},
                 "eval": "(tf.equal(source(0) % 2, source(1)), source(2))[0]", "collocate_with": "in_loop_dummy"},
        "masked": {"class": "masked_computation", "from": "data:source", "mask": "mask",
                   "masked_from": "base:data:data_masked",
                   "unit": {"class": "subnetwork", "from": "data", "subnetwork": {
                       "input0": {"class": "cast", "from": "data", "dtype": "float32"},
                       "output": {"class": "expand_dims", "axis": "f", "from": "input0"}}}},
        "unmask": {"class": "unmask", "from": "masked", "mask": "mask", "collocate_with": "in_loop_dummy"},
        "output": {"class": "squeeze", "from": "unmask", "axis": "f"},
    }
    if variant in ("no_collocate_unmask", "no_collocate"):
        del unit["unmask"]["collocate_with"]
    if variant == "no_collocate":
        del unit["mask"]["collocate_with"]
    if variant == "no_masked_from":
        del unit["masked"]["masked_from"]
    if variant == "prev_mask":  # mask and input via prev: of loop layers (not read when moved out)
        unit["mask"]["initial_output"] = False
        unit["masked"].update({"mask": "prev:mask", "from": "prev:in_loop_dummy"})
        unit["unmask"]["mask"] = "prev:mask"
    return unit


# (variant, input layers moved out, layers in the loop, output layers moved out): observed from the reference (its
# lists also name ":i"; the order of the first list differs)
_PLACES = [
    ("collocated", ["const1", "masked"], ["in_loop_dummy", "mask", "unmask"], ["output"]),
    ("no_collocate_unmask", ["const1"], ["in_loop_dummy", "mask"], ["output", "unmask", "masked"]),
    ("no_collocate", ["const1"], ["in_loop_dummy"], ["output", "unmask", "masked", "mask"]),
    ("no_masked_from", ["const1"], ["in_loop_dummy", "mask", "masked", "unmask"], ["output"]),
    ("prev_mask", ["const1", "masked"], ["in_loop_dummy", "mask", "unmask"], ["output"]),
]


@pytest.mark.parametrize("variant, inputs, loop, outputs", _PLACES)
def test_places_and_values_as_reference(session, variant, inputs, loop, outputs):
    net = TFNetwork(extern_data=ExternData({"data": {"dim": 20, "sparse": True},
                                            "data_masked": {"dim": 20, "sparse": True}}), config=Config({}))
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": _unit(variant)}})
    cell = net.get_layer("output").cell
    assert sorted(cell.input_layers_moved_out) == inputs
    assert cell.layers_in_loop == loop
    assert cell.output_layers_moved_out == outputs
    out = net.get_layer("output").output.copy_as_batch_major()
    value = session.run(out.placeholder, feed_dict={
        net.extern_data.get_batch_info().dim: 2,
        net.extern_data.data["data"].placeholder: [[3, 4, 5, 6], [5, 4, -3, -4]],
        net.extern_data.data["data"].size_placeholder[0]: [4, 2],
        net.extern_data.data["data_masked"].placeholder: [[4, 6], [4, -4]],
        net.extern_data.data["data_masked"].size_placeholder[0]: [2, 1]})
    # the reference's values; the mask counts also past a sequence's end (frame 3 of the second sequence)
    expected = [[0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 4.0, 4.0]] if variant == "prev_mask" else [
        [0.0, 4.0, 4.0, 6.0], [0.0, 4.0, 4.0, -4.0]]
    np.testing.assert_allclose(value, expected)
