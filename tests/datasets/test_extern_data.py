"""Tests for returnn.datasets.extern_data: the config forms of extern_data (Tensor kwargs, the old (dim, ndim)
tuples, num_inputs/num_outputs). Expected values observed from the reference (returnn 1.20261022,
``ExternData().init_from_config(Config(...))``), given here as the Tensor kwargs that produce those tensors."""

import pytest

from returnn.config import Config
from returnn.datasets import extern_data as extern_data_mod
from returnn.datasets.extern_data import extern_data_from_config, get_extern_data_from_config
from returnn.datasets.generating import Task12AXDataset
from returnn.errors import ConfigValueError
from returnn.log import log


@pytest.mark.parametrize("config, expected", [
    # the reference: (80, 2) -> [B,T,F(80)]; (80, 1) -> sparse [B,T] with 80 classes; (80, 3) -> [B,T,?,F(80)]
    ({"extern_data": {"data": (80, 2)}}, {"data": {"dim": 80, "shape": (None, 80), "sparse": False}}),
    ({"extern_data": {"data": (80, 1)}}, {"data": {"dim": 80, "shape": (None,), "sparse": True}}),
    ({"extern_data": {"data": (80, 3)}}, {"data": {"dim": 80, "shape": (None, None, 80), "sparse": False}}),
    ({"extern_data": {"data": (None, 2)}}, {"data": {"dim": None, "shape": (None, None), "sparse": False}}),
    ({"extern_data": {"data": (3, True)}}, {"data": {"dim": 3, "shape": (None,), "sparse": True}}),
    # f2l configs: every key but the default input is not available for inference
    ({"extern_data": {"data": (80, 2), "data_target": (512, 2)}},
     {"data": {"dim": 80, "shape": (None, 80), "sparse": False},
      "data_target": {"dim": 512, "shape": (None, 512), "sparse": False, "available_for_inference": False}}),
    ({"extern_data": {"data": {"dim": 3}, "foo": {"dim": 4, "available_for_inference": True}}},
     {"data": {"dim": 3}, "foo": {"dim": 4, "available_for_inference": True}}),
    ({"extern_data": {"data": (3, 2), "foo": (4, 2)}, "default_input": "foo"},
     {"data": {"dim": 3, "shape": (None, 3), "sparse": False, "available_for_inference": False},
      "foo": {"dim": 4, "shape": (None, 4), "sparse": False}}),
    ({"extern_data": {}}, {}),
    # without the default input, only the default target is not available for inference
    ({"extern_data": {"a": (2, 2), "b": {"dim": 3}}}, {"a": {"dim": 2, "shape": (None, 2), "sparse": False},
                                                       "b": {"dim": 3}}),
    ({"extern_data": {"a": {"dim": 2}, "classes": {"dim": 3, "sparse": True}}},
     {"a": {"dim": 2}, "classes": {"dim": 3, "sparse": True, "available_for_inference": False}}),
    ({"extern_data": {"a": {"dim": 2}, "data": {"dim": 3}}},
     {"a": {"dim": 2, "available_for_inference": False}, "data": {"dim": 3}}),
    # num_inputs/num_outputs: the classes first, the input from num_inputs last
    ({"num_inputs": 40, "num_outputs": 10},
     {"classes": {"dim": 10, "shape": (None,), "sparse": True, "available_for_inference": False},
      "data": {"dim": 40, "shape": (None, 40), "sparse": False}}),
    ({"num_inputs": 40, "num_outputs": 10, "target": "foo"},
     {"foo": {"dim": 10, "shape": (None,), "sparse": True, "available_for_inference": False},
      "data": {"dim": 40, "shape": (None, 40), "sparse": False}}),
    ({"num_inputs": 4, "num_outputs": {"classes": (3, 1), "data": (5, 2)}},
     {"classes": {"dim": 3, "shape": (None,), "sparse": True, "available_for_inference": False},
      "data": {"dim": 5, "shape": (None, 5), "sparse": False}}),
    ({"num_inputs": 4, "num_outputs": {"data": 5}}, {"data": {"dim": 5, "shape": (None, 5), "sparse": False}}),
    ({"num_outputs": {"data": (4, 2), "classes": 3}},
     {"data": {"dim": 4, "shape": (None, 4), "sparse": False},
      "classes": {"dim": 3, "shape": (None,), "sparse": True, "available_for_inference": False}}),
    ({"num_inputs": (4, 2), "num_outputs": 3},
     {"classes": {"dim": 3, "shape": (None,), "sparse": True, "available_for_inference": False},
      "data": {"dim": 4, "shape": (None, 4), "sparse": False}}),
    ({"num_inputs": 40, "num_outputs": {"classes": {"dim": 10, "sparse": True}, "data": [40, 2]}},
     {"classes": {"dim": 10, "sparse": True, "available_for_inference": False},
      "data": {"dim": 40, "shape": (None, 40), "sparse": False}}),
    ({"num_inputs": 40, "num_outputs": {"classes": (10, 3)}},
     {"classes": {"dim": 10, "shape": (None, None, 10), "sparse": False, "available_for_inference": False},
      "data": {"dim": 40, "shape": (None, 40), "sparse": False}}),
])
def test_forms_like_reference(config, expected):
    result = extern_data_from_config(Config(config))
    assert result == expected and list(result) == list(expected)


@pytest.mark.parametrize("config, match", [
    # all rejected by the reference as well (AssertionError, TypeError, ValueError there)
    ({"extern_data": {"data": (80, 0)}}, "ndim an int >= 1"),
    ({"extern_data": {"data": (3, -1)}}, "ndim an int >= 1"),
    ({"extern_data": {"data": 80}}, "a dict of Tensor kwargs, or \\(dim, ndim\\)"),
    ({"extern_data": {"data": (80,)}}, "a dict of Tensor kwargs, or \\(dim, ndim\\)"),
    ({"extern_data": {"data": (80, 2, 3)}}, "a dict of Tensor kwargs, or \\(dim, ndim\\)"),
    ({"extern_data": {"data": None}}, "a dict of Tensor kwargs"),
    ({"extern_data": {"data": (3.0, 2)}}, "unexpected dimension type"),
    ({"extern_data": [("data", (3, 2))]}, "a dict data key"),
    ({"num_inputs": 40}, "provide extern_data in the config"),
    ({"num_outputs": 10}, "provide extern_data in the config"),
    ({"num_inputs": 0, "num_outputs": 3}, "provide extern_data in the config"),
    ({"num_inputs": 4, "num_outputs": {"classes": "x"}}, "num_outputs\\['classes'\\]"),
    ({"num_inputs": 4, "num_outputs": {"classes": [3, 1, 2]}}, "num_outputs\\['classes'\\]"),
])
def test_rejected_like_reference(config, match):
    with pytest.raises(ConfigValueError, match=match):
        extern_data_from_config(Config(config))


def test_none_without_any_form():
    assert extern_data_from_config(Config({})) is None


def test_warnings_like_reference(capsys):
    log.initialize(verbosity=[2])
    log._printed_warning_history.discard(extern_data_mod.DEPRECATION_NUM_IO)  # noqa: SLF001 (once per process)
    for _ in range(2):
        extern_data_from_config(Config({"extern_data": {"data": {"dim": 3}}, "num_inputs": 40, "num_outputs": 10}),
                                print_warnings=True)
        extern_data_from_config(Config({"num_inputs": 40, "num_outputs": 10}), print_warnings=True)
    # the reference: the ignore warning every time, the deprecation warning once per process
    assert capsys.readouterr().out == (
        "Warning: Using extern_data and will ignore num_inputs/num_outputs in config.\n"
        "DEPRECATION WARNING: Using num_inputs/num_outputs instead of extern_data is deprecated and might be removed "
        "in future versions\nThis might be disallowed with a future behavior_version.\n"
        "Warning: Using extern_data and will ignore num_inputs/num_outputs in config.\n")


def test_tuple_form_checked_against_dataset():
    ds = Task12AXDataset(num_seqs=2)
    ext = get_extern_data_from_config(Config({"extern_data": {"data": (9, 2), "classes": (2, 1)}}), ds)
    assert ext["data"]["dim"] == 9 and ext["classes"]["sparse"]
    with pytest.raises(ConfigValueError, match="extern_data\\['classes'\\]"):
        get_extern_data_from_config(Config({"extern_data": {"data": (9, 2), "classes": (2, 2)}}), ds)


def test_set_config_extern_data_from_dataset():
    # observed on the reference with Task12AXDataset (an existing extern_data is replaced)
    from returnn.config import Config
    from returnn.datasets.basic import set_config_extern_data_from_dataset
    from returnn.datasets.generating import Task12AXDataset

    config = Config({"extern_data": {"x": {"dim": 3}}})
    assert set_config_extern_data_from_dataset(config, Task12AXDataset(num_seqs=3)) is None
    assert config.typed_dict["extern_data"] == {
        "data": {"batch_dim_axis": 0, "time_dim_axis": 1, "shape": [None, 9], "dim": 9, "sparse": False,
                 "dtype": "float32", "available_for_inference": True},
        "classes": {"batch_dim_axis": 0, "time_dim_axis": 1, "shape": [None], "dim": 2, "sparse": True,
                    "dtype": "int32", "available_for_inference": False}}
